"""transforms.clients.wayback.client: retries, backoff, digest checks and the cache, against
the in-process fake Wayback server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.wayback_server import FakeWayback
from tests.transforms.clients.wayback.helpers import (
    STORY_HTML,
    STORY_TS,
    STORY_URL,
    html,
    make_client,
    story_capture,
)
from transforms.clients.wayback.client import WaybackClient
from transforms.clients.wayback.errors import WaybackError


def test_cdx_page_cache_resumes_after_crash(tmp_path: Path, sleeps: list[float]) -> None:
    captures = [(f"https://www.bbc.co.uk/news/s{i}", "20160101000000", html(i)) for i in range(6)]
    with FakeWayback(captures) as fake:
        with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
            pages = client.iter_cdx("bbc.co.uk/news/", limit=2)
            partial = [next(pages) for _ in range(3)]  # reads pages 1 and 2, then "crashes"
            pages.close()
        assert len(fake.cdx_requests) == 2
        with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
            resumed = list(client.iter_cdx("bbc.co.uk/news/", limit=2))
            assert client.stats["cache_hits"] == 2
        assert len(fake.cdx_requests) == 3  # only page 3 was fetched
        with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
            again = list(client.iter_cdx("bbc.co.uk/news/", limit=2))
        assert len(fake.cdx_requests) == 3  # a full re-run makes zero CDX requests
    assert resumed == again and resumed[:3] == partial and len(resumed) == 6
    assert not list(tmp_path.rglob("*.tmp"))


def test_cdx_garbage_body_is_retried(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("/cdx/", ["garbage"])
    with make_client(fake.base_url, sleeps) as client:
        got = list(client.iter_cdx("bbc.co.uk/news/"))
        assert client.stats["error_bad_cdx_response"] == 1
    assert [c.original for c in got] == [STORY_URL]
    assert len(fake.cdx_requests) == 2


def test_fetch_success_verifies_digest(fake: FakeWayback, sleeps: list[float]) -> None:
    with make_client(fake.base_url, sleeps) as client:
        result = client.fetch(story_capture(fake))
        assert client.stats["requests"] == 1 and client.stats["bytes"] == len(STORY_HTML)
    assert result.content == STORY_HTML
    assert (result.status, result.digest_ok, result.from_cache, result.attempts) == (
        200,
        True,
        False,
        1,
    )
    assert (result.url, result.timestamp) == (STORY_URL, STORY_TS)
    assert result.headers["Content-Type"] == "text/html"
    assert fake.fetch_requests == [f"/web/{STORY_TS}id_/{STORY_URL}"]
    assert fake.user_agents[0].startswith("qa-dataset-toolkit/")
    assert sleeps == []


def test_fetch_429_pauses_then_succeeds(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", [429])
    with make_client(fake.base_url, sleeps, rate_limit_pause=30.0) as client:
        result = client.fetch(story_capture(fake))
        assert client.stats["rate_limited"] == 1 and client.stats["retries"] == 1
    assert result.content == STORY_HTML and result.attempts == 2
    assert sleeps == [30.0]  # Retry-After: 0 is smaller than the pause


def test_fetch_429_honours_larger_retry_after(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", [(429, {"Retry-After": "90"})])
    with make_client(fake.base_url, sleeps, rate_limit_pause=30.0) as client:
        assert client.fetch(story_capture(fake)).attempts == 2
    assert sleeps == [90.0]


def test_fetch_503_twice_backs_off_exponentially(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", [503, 503])
    with make_client(fake.base_url, sleeps, backoff_base=2.0) as client:
        result = client.fetch(story_capture(fake))
        assert client.stats["error_server_error"] == 2 and client.stats["rate_limited"] == 0
    assert result.attempts == 3 and len(fake.fetch_requests) == 3
    assert len(sleeps) == 2
    assert 2.0 <= sleeps[0] <= 2.2 and 4.0 <= sleeps[1] <= 4.4


def test_backoff_is_capped(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", [500, 500, 500])
    with make_client(fake.base_url, sleeps, backoff_base=10.0, backoff_max=15.0) as client:
        client.fetch(story_capture(fake))
    assert 10.0 <= sleeps[0] <= 11.0 and sleeps[1:] == [15.0, 15.0]


def test_fetch_retries_exhausted(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", [503] * 10)
    with (
        make_client(fake.base_url, sleeps, max_retries=2) as client,
        pytest.raises(WaybackError) as info,
    ):
        client.fetch(story_capture(fake))
    assert info.value.kind == "server_error" and info.value.attempts == 3
    assert len(fake.fetch_requests) == 3 and len(sleeps) == 2


def test_digest_mismatch_strict_raises_and_caches_nothing(
    fake: FakeWayback, sleeps: list[float], tmp_path: Path
) -> None:
    fake.fail("id_/", ["corrupt"] * 2)
    with make_client(fake.base_url, sleeps, max_retries=2, cache_dir=str(tmp_path)) as client:
        with pytest.raises(WaybackError) as info:
            client.fetch(story_capture(fake))
        # the same wrong payload twice is deterministic: no third request
        assert info.value.kind == "digest_mismatch" and len(fake.fetch_requests) == 2
        assert info.value.final and not info.value.retryable
        assert not list(tmp_path.rglob("*.body"))
        assert client.fetch(story_capture(fake)).from_cache is False  # refetched, now clean
    assert len(fake.fetch_requests) == 3


def test_digest_mismatch_then_match_is_retried(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", ["corrupt"])
    with make_client(fake.base_url, sleeps) as client:
        result = client.fetch(story_capture(fake))
    assert result.digest_ok is True and result.attempts == 2 and result.content == STORY_HTML


def test_digest_mismatch_warn_accepts_flagged_payload(
    fake: FakeWayback, sleeps: list[float]
) -> None:
    fake.fail("id_/", ["corrupt"] * 3)
    with make_client(fake.base_url, sleeps, max_retries=2, verify_digest="warn") as client:
        result = client.fetch(story_capture(fake))
    assert result.digest_ok is False and result.attempts == 2  # the same payload twice
    assert result.content != STORY_HTML and len(result.content) == len(STORY_HTML)


def test_digest_check_off(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", ["corrupt"])
    with make_client(fake.base_url, sleeps, verify_digest="off") as client:
        result = client.fetch(story_capture(fake))
    assert result.digest_ok is None and result.attempts == 1
    with pytest.raises(ValueError):
        WaybackClient(fake.base_url, verify_digest="sometimes")


def test_fetch_cache_hit_makes_no_request(
    fake: FakeWayback, sleeps: list[float], tmp_path: Path
) -> None:
    with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
        first = client.fetch(story_capture(fake))
    with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
        second = client.fetch(story_capture(fake))
        assert client.stats["cache_hits"] == 1 and client.stats["requests"] == 0
    assert len(fake.fetch_requests) == 1
    assert second.from_cache is True and second.attempts == 0
    assert (second.content, second.status, second.digest_ok) == (first.content, 200, True)
    assert not list(tmp_path.rglob("*.tmp"))


def test_package_exposes_the_public_names() -> None:
    import transforms.clients.wayback as wayback
    from transforms.clients.wayback import cdx, client, digest, errors

    assert wayback.WaybackClient is WaybackClient and wayback.WaybackError is WaybackError
    assert wayback.CdxCapture is cdx.CdxCapture and wayback.FetchResult is client.FetchResult
    assert wayback.parse_cdx_json is cdx.parse_cdx_json
    assert wayback.bbc_cdx_queries is cdx.bbc_cdx_queries
    assert wayback.sha1_base32 is digest.sha1_base32 and errors.WaybackError is WaybackError
