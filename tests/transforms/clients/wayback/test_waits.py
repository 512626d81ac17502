"""Bounds on waiting (issue 27 §2): Retry-After is obeyed up to a cap, a request and a run each
have a wait budget, and every wait is counted. Waits are recorded, never slept: the seconds
below are the injected clock's."""

from __future__ import annotations

import pytest

from tests.fakes.wayback_server import FakeWayback
from tests.transforms.clients.wayback.helpers import (
    STORY_HTML,
    STORY_TS,
    make_client,
    story_capture,
)
from transforms.clients.wayback import WaybackClient, WaybackPolicy
from transforms.clients.wayback.cdx import CdxCapture
from transforms.clients.wayback.errors import WaybackError


def _client(fake: FakeWayback, sleeps: list[float], **overrides: object) -> WaybackClient:
    """A client with the policy's defaults but no rate limiting."""
    return WaybackClient(fake.base_url, WaybackPolicy(cdx_per_minute=0, fetches_per_minute=0),
                         sleep=sleeps.append, timeout=(2.0, 2.0), **overrides)


@pytest.mark.parametrize(("fault", "kind"), [("unavailable_hour", "server_error"),
                                             ("retry_after_hour", "rate_limited")])
def test_an_hour_of_retry_after_is_capped(
    fake: FakeWayback, sleeps: list[float], fault: str, kind: str
) -> None:
    fake.fail("id_/", [fault] * 2)
    with _client(fake, sleeps) as client:
        assert client.fetch(story_capture(fake)).content == STORY_HTML
        assert client.stats[f"error_{kind}"] == 2
    assert sleeps == [300.0, 300.0]  # WaybackPolicy.max_retry_after, not 3600


def test_the_cap_is_an_option(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", ["unavailable_hour"])
    with _client(fake, sleeps, max_retry_after=45.0) as client:
        client.fetch(story_capture(fake))
    assert sleeps == [45.0]


def test_a_capture_stops_at_its_wait_budget_and_keeps_the_cause(
    fake: FakeWayback, sleeps: list[float]
) -> None:
    fake.fail("id_/", ["unavailable_hour"] * 6)
    with _client(fake, sleeps) as client:  # max_retries 5, budget 600 s per request
        with pytest.raises(WaybackError) as info:
            client.fetch(story_capture(fake))
        assert client.stats["retry_waits"] == 2 and client.stats["retry_wait_seconds"] == 600
    error = info.value
    assert error.kind == "retry_budget_exhausted" and error.attempts == 3
    assert error.message.startswith("server_error (HTTP 503")
    assert "300 s more would exceed the 600 s budget" in error.message
    assert sleeps == [300.0, 300.0] and len(fake.fetch_requests) == 3


def test_a_run_stops_waiting_at_its_budget(sleeps: list[float]) -> None:
    stories = [(f"https://www.bbc.co.uk/news/s{i}", STORY_TS, f"<p>{i}</p>") for i in range(3)]
    with FakeWayback(stories) as fake:
        for url, _, _ in stories[:2]:
            fake.fail(f"id_/{url}", ["unavailable_hour"])
        captures = [CdxCapture.from_dict(fake.capture(url, STORY_TS).row())
                    for url, _, _ in stories]
        with _client(fake, sleeps, run_wait_budget=500.0) as client:
            assert client.fetch(captures[0]).attempts == 2  # waited 300 s of the 500
            with pytest.raises(WaybackError) as info:
                client.fetch(captures[1])  # 300 s more would make 600
            assert client.stats["retry_wait_seconds"] == 300
            assert client.fetch(captures[2]).attempts == 1  # no wait needed: fetched
    assert info.value.kind == "run_retry_budget_exhausted" and info.value.attempts == 1
    assert sleeps == [300.0]


def test_zero_means_no_budget(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", ["unavailable_hour"] * 5)
    with _client(fake, sleeps, request_wait_budget=0.0, run_wait_budget=0.0) as client:
        assert client.fetch(story_capture(fake)).attempts == 6
    assert sleeps == [300.0] * 5


def test_every_wait_is_counted(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", [503, 429])
    with make_client(fake.base_url, sleeps, backoff_base=2.0, rate_limit_pause=30.0,
                     cdx_per_minute=0.5) as client:
        client.fetch(story_capture(fake))
        list(client.iter_cdx("bbc.co.uk/news/"))
        list(client.iter_cdx("bbc.com/news/"))  # waits for the CDX limiter's next slot
        stats = dict(client.stats)
    backoff, pause, slot = sleeps  # the slot: what is left of the limiter's 120 s interval
    assert 2.0 <= backoff <= 2.2 and pause == 30.0 and 0 < slot <= 120.0
    assert stats["retry_waits"] == 2 and stats["retry_wait_seconds"] == round(backoff + pause)
    assert stats["throttle_wait_seconds"] == round(slot)
