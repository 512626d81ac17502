"""WaybackClient against hostile servers: gzip bombs, endless and slow bodies, redirect loops
and short bodies are bounded in time and memory, and never cached."""

from __future__ import annotations

from itertools import count
from pathlib import Path

import pytest

from tests.fakes.wayback_server import FakeWayback
from tests.transforms.clients.test_rate_limit import FakeClock
from tests.transforms.clients.wayback.helpers import (
    STORY_HTML,
    STORY_TS,
    STORY_URL,
    make_client,
    story_capture,
)
from transforms.clients.wayback.errors import WaybackError

SMALL = {"max_body_bytes": 256 * 1024, "max_decoded_bytes": 1 << 20, "deadline": 0.5}


def _fails(fake: FakeWayback, sleeps: list[float], cache: Path, **overrides: object):
    options = {**SMALL, **overrides}
    with make_client(fake.base_url, sleeps, cache_dir=str(cache), **options) as client:
        with pytest.raises(WaybackError) as info:
            client.fetch(story_capture(fake))
        return info.value, client.stats


def _ticking(step: float):
    """A clock that advances ``step`` seconds each time it is read, however fast or slow the
    machine is: a deadline expires after a fixed number of reads of it."""
    ticks = count()
    return lambda: next(ticks) * step


@pytest.mark.parametrize("fault", ["gzip_bomb", "endless"])
def test_oversized_body_fails_once_and_is_not_cached(
    fake: FakeWayback, sleeps: list[float], tmp_path: Path, fault: str
) -> None:
    fake.bomb_bytes = 8 << 20
    fake.fail("id_/", [fault] * 5)
    error, stats = _fails(fake, sleeps, tmp_path)
    assert error.kind == "body_too_large" and not error.retryable
    assert len(fake.fetch_requests) == 1 and stats["error_body_too_large"] == 1
    assert sleeps == []  # stopped by the byte caps, at once, not retried
    assert not list(tmp_path.rglob("*.body"))


def test_slow_body_hits_the_total_deadline(
    fake: FakeWayback, sleeps: list[float], tmp_path: Path
) -> None:
    fake.slow_interval = 0.05  # each byte well inside the 2 s read timeout
    fake.fail("id_/", ["slowloris"] * 5)
    # the deadline's clock advances 0.1 s a read: 0.4 s pass after a few of the slow bytes
    error, stats = _fails(fake, sleeps, tmp_path, max_retries=1, deadline=0.4,
                          clock=_ticking(0.1))
    assert error.kind == "deadline_exceeded" and error.attempts == 2
    assert stats["error_deadline_exceeded"] == 2 and stats["retries"] == 1
    assert not list(tmp_path.rglob("*.body"))


def test_redirect_loop_is_capped_and_every_hop_counted(
    fake: FakeWayback, sleeps: list[float], tmp_path: Path
) -> None:
    fake.fail("id_/", ["redirect_loop"])
    # one fetch a minute on a fake clock that only the limiter's sleeps advance
    clock = FakeClock()
    error, stats = _fails(fake, sleeps, tmp_path, max_redirects=3, fetches_per_minute=1,
                          sleep=clock.sleep, clock=clock.time)
    assert error.kind == "too_many_redirects" and not error.retryable
    assert len(fake.requests) == 4 and stats["requests"] == 4
    assert clock.sleeps == [60.0, 60.0, 60.0]  # every hop waited for its own slot


def test_a_redirect_within_the_cap_is_followed(fake: FakeWayback, sleeps: list[float]) -> None:
    path = f"/web/{STORY_TS}id_/{STORY_URL}"
    fake.fail("id_/", [(302, {"Location": path})])
    with make_client(fake.base_url, sleeps, **SMALL) as client:
        result = client.fetch(story_capture(fake))
        assert client.stats["requests"] == 2
    assert result.content == STORY_HTML and result.digest_ok is True
    assert fake.fetch_requests == [path, path]


@pytest.mark.parametrize("fault", ["truncate", "short_gzip", "cut_gzip"])
def test_short_bodies_are_retried_and_never_cached(
    fake: FakeWayback, sleeps: list[float], tmp_path: Path, fault: str
) -> None:
    fake.fail("id_/", [fault])
    with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path), **SMALL) as client:
        result = client.fetch(story_capture(fake))
        assert client.stats["error_truncated"] == 1
    assert result.content == STORY_HTML and result.attempts == 2
    fake.fail("id_/", [fault] * 5)
    error, _ = _fails(fake, sleeps, tmp_path / "fresh", max_retries=1, verify_digest="off")
    assert error.kind == "truncated" and error.attempts == 2
    assert not list((tmp_path / "fresh").rglob("*.body"))


def test_cdx_page_is_bounded_too(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("/cdx/", ["endless"])
    with make_client(fake.base_url, sleeps, **SMALL) as client:
        with pytest.raises(WaybackError) as info:
            list(client.iter_cdx("bbc.co.uk/news/"))
    assert info.value.kind == "body_too_large" and len(fake.cdx_requests) == 1


def test_cdx_redirect_loop_is_capped(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("/cdx/", ["redirect_loop"])
    with make_client(fake.base_url, sleeps, max_redirects=2) as client:
        with pytest.raises(WaybackError) as info:
            list(client.iter_cdx("bbc.co.uk/news/"))
        assert client.stats["requests"] == 3
    assert info.value.kind == "too_many_redirects" and len(fake.requests) == 3
