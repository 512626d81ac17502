"""transforms.clients.wayback.errors: how failures are classified (timeouts, resets, refusals,
permanent statuses) and that errors survive pickling."""

from __future__ import annotations

import pickle
import socket

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
from transforms.clients.wayback.cdx import CdxCapture
from transforms.clients.wayback.errors import WaybackError


def test_fetch_hung_connection_times_out_and_retries(
    fake: FakeWayback, sleeps: list[float]
) -> None:
    fake.fail("id_/", ["hang"])
    with make_client(fake.base_url, sleeps, timeout=(1.0, 0.3)) as client:
        result = client.fetch(story_capture(fake))
        assert client.stats["error_timeout"] == 1  # the read timeout cut the hung answer
    assert result.content == STORY_HTML and result.attempts == 2
    assert len(sleeps) == 1


def test_fetch_reset_connection_is_retried(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", ["reset"])
    with make_client(fake.base_url, sleeps) as client:
        result = client.fetch(story_capture(fake))
        assert client.stats["error_connection_error"] == 1
    assert result.content == STORY_HTML and result.attempts == 2


def test_fetch_missing_capture_is_permanent_404(sleeps: list[float]) -> None:
    gone = ("https://www.bbc.co.uk/news/gone", "20150101000000", html(0))
    with FakeWayback(missing=[gone]) as fake, make_client(fake.base_url, sleeps) as client:
        capture = CdxCapture.from_dict(fake.capture(gone[0], gone[1]).row())
        with pytest.raises(WaybackError) as info:
            client.fetch(capture)
        assert client.stats["retries"] == 0 and client.stats["failures"] == 1
    assert info.value.kind == "http_404" and info.value.status == 404
    assert info.value.url == capture.id_url(fake.base_url)
    assert len(fake.fetch_requests) == 1 and sleeps == []


@pytest.mark.parametrize("status", [403, 410])
def test_fetch_other_permanent_statuses(
    fake: FakeWayback, sleeps: list[float], status: int
) -> None:
    fake.fail("id_/", [status])
    with make_client(fake.base_url, sleeps) as client, pytest.raises(WaybackError) as info:
        client.fetch(story_capture(fake))
    assert info.value.kind == f"http_{status}" and not info.value.retryable
    assert len(fake.fetch_requests) == 1 and sleeps == []


def test_refused_connection_is_treated_as_rate_limiting(sleeps: list[float]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    capture = CdxCapture("k", STORY_TS, STORY_URL, "text/html", "200", "-")
    with make_client(
        f"http://127.0.0.1:{port}", sleeps, max_retries=2, rate_limit_pause=45.0
    ) as client:
        with pytest.raises(WaybackError) as info:
            client.fetch(capture)
        assert client.stats["rate_limited"] == 3
    assert info.value.kind == "connection_refused"
    assert sleeps == [45.0, 45.0]


def test_wayback_error_survives_pickling() -> None:
    error = WaybackError("http_410", "http://x/web/1id_/y", "HTTP 410", status=410, attempts=1)
    clone = pickle.loads(pickle.dumps(error))
    assert (clone.kind, clone.url, clone.status, str(clone)) == (
        "http_410",
        error.url,
        410,
        str(error),
    )
