"""Archive semantics (issue 27 §1): which capture a replay is, told by its Memento headers,
against the fake archive's redirects to other timestamps, replayed archived statuses,
exclusion pages, duplicate CDX lines and revisit records."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.fakes.wayback_server import FakeCapture, FakeWayback, sha1_base32
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

LATER_TS = "20150622093000"  # three weeks after STORY_TS


def _redirecting(later_payload: bytes) -> FakeWayback:
    """An archive that cannot replay the story at STORY_TS and redirects to LATER_TS."""
    return FakeWayback([FakeCapture(STORY_URL, STORY_TS, STORY_HTML, replayable=False),
                        FakeCapture(STORY_URL, LATER_TS, later_payload)])


def test_a_redirect_to_another_capture_is_dead_lettered_at_once(sleeps: list[float]) -> None:
    with _redirecting(html(2)) as fake, make_client(fake.base_url, sleeps,
                                                    max_retries=5) as client:
        with pytest.raises(WaybackError) as info:
            client.fetch(story_capture(fake))
        assert client.stats["retries"] == 0 and client.stats["requests"] == 2
    error = info.value
    assert error.kind == "capture_redirected" and not error.retryable
    assert f"listed {STORY_TS}, the archive served {LATER_TS}" in error.message
    assert "another payload" in error.message
    assert f"/web/{LATER_TS}/" in error.message  # the rel="memento" link of what was served
    assert error.url.endswith(f"/web/{LATER_TS}id_/{STORY_URL}")
    assert len(fake.fetch_requests) == 2 and sleeps == []


def test_a_redirect_with_the_same_payload_is_not_labelled_as_the_listed_capture(
    sleeps: list[float],
) -> None:
    with _redirecting(STORY_HTML) as fake, make_client(fake.base_url, sleeps) as client:
        with pytest.raises(WaybackError) as info:
            client.fetch(story_capture(fake))
    assert info.value.kind == "capture_redirected" and "the same payload" in info.value.message


@pytest.mark.parametrize(("payload", "digest_ok"), [(html(2), None), (STORY_HTML, True)])
def test_an_accepted_redirect_carries_the_served_timestamp(
    sleeps: list[float], tmp_path: Path, payload: bytes, digest_ok: bool | None
) -> None:
    with _redirecting(payload) as fake:
        with make_client(fake.base_url, sleeps, capture_redirects="accept",
                         cache_dir=str(tmp_path)) as client:
            result = client.fetch(story_capture(fake))
        with make_client(fake.base_url, sleeps, capture_redirects="accept",
                         cache_dir=str(tmp_path)) as client:
            cached = client.fetch(story_capture(fake))
    assert (result.timestamp, result.requested_timestamp, result.redirected) == (
        LATER_TS, STORY_TS, True)
    assert result.content == payload and result.digest_ok is digest_ok
    assert result.attempts == 1 and sleeps == []
    assert (cached.from_cache, cached.timestamp, cached.requested_timestamp) == (
        True, LATER_TS, STORY_TS)


@pytest.mark.parametrize("recorded", [429, 503])
def test_an_archived_error_status_is_the_pages_not_the_archives(
    sleeps: list[float], recorded: int
) -> None:
    capture = FakeCapture(STORY_URL, STORY_TS, b"Too many requests", replay_status=recorded)
    with FakeWayback([capture]) as fake, make_client(fake.base_url, sleeps,
                                                     max_retries=5) as client:
        with pytest.raises(WaybackError) as info:
            client.fetch(story_capture(fake))
        assert client.stats["rate_limited"] == 0 and client.stats["retries"] == 0
    assert info.value.kind == "archived_error" and info.value.status == recorded
    assert f"the capture of {STORY_TS} recorded HTTP {recorded}" in info.value.message
    assert len(fake.fetch_requests) == 1 and sleeps == []


def test_the_archives_own_429_is_still_throttling(fake: FakeWayback,
                                                  sleeps: list[float]) -> None:
    fake.fail("id_/", [429])  # no Memento headers: the archive's own answer
    with make_client(fake.base_url, sleeps) as client:
        assert client.fetch(story_capture(fake)).content == STORY_HTML
        assert client.stats["rate_limited"] == 1
    assert sleeps == [30.0]


def two_lines_of_one_capture(fake: FakeWayback) -> tuple[CdxCapture, CdxCapture]:
    """The story's CDX line, and another line of the same URL and time with another
    digest (the archive serves the first one's payload for both)."""
    listed = story_capture(fake)
    return listed, CdxCapture(listed.urlkey, STORY_TS, STORY_URL, "text/html", "200",
                              sha1_base32(b"the other line's payload"))


def test_two_cdx_lines_of_one_url_and_time_do_not_share_a_cache_entry(
    fake: FakeWayback, sleeps: list[float], tmp_path: Path
) -> None:
    listed, other = two_lines_of_one_capture(fake)
    with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
        assert client.fetch(listed).digest_ok is True
        with pytest.raises(WaybackError) as info:
            client.fetch(other)  # asked of the archive, which serves the first payload
        assert client.stats["cache_hits"] == 0
        assert client.fetch(listed).from_cache is True
    assert info.value.kind == "digest_mismatch" and info.value.final
    assert len(fake.fetch_requests) == 3  # the other line: twice the same payload, then no more


def test_a_cache_entry_written_before_digests_keyed_it_is_reverified(
    fake: FakeWayback, sleeps: list[float], tmp_path: Path
) -> None:
    listed, other = two_lines_of_one_capture(fake)
    # an entry as the cache wrote it before: keyed by timestamp and URL only
    key = hashlib.sha256(f"{STORY_TS} {STORY_URL}".encode()).hexdigest()
    folder = tmp_path / "fetch" / key[:2]
    folder.mkdir(parents=True)
    (folder / f"{key}.body").write_bytes(STORY_HTML)
    (folder / f"{key}.json").write_text(json.dumps({
        "url": STORY_URL, "timestamp": STORY_TS, "status": 200, "headers": {},
        "digest_ok": True, "length": len(STORY_HTML),
        "sha1": hashlib.sha1(STORY_HTML).hexdigest()}))
    with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
        assert client.fetch(listed).from_cache is True  # its payload matches: still read
        with pytest.raises(WaybackError) as info:
            client.fetch(other)  # it does not match this line's digest: asked again
    assert info.value.kind == "digest_mismatch" and len(fake.fetch_requests) == 2


@pytest.mark.parametrize("digest", ["with", "without"])
def test_an_excluded_site_is_dead_lettered_never_returned(
    fake: FakeWayback, sleeps: list[float], digest: str
) -> None:
    fake.exclude("bbc.co.uk/news/world-europe-1")
    capture = story_capture(fake)
    if digest == "without":
        capture = CdxCapture(capture.urlkey, STORY_TS, STORY_URL, "text/html", "200", "-")
    with make_client(fake.base_url, sleeps, max_retries=5) as client:
        with pytest.raises(WaybackError) as info:
            client.fetch(capture)
    assert info.value.kind == "excluded" and not info.value.retryable
    assert "excluded from the Wayback Machine" in info.value.message
    assert len(fake.fetch_requests) == 1 and sleeps == []


def test_a_blocked_cdx_query_names_the_query_and_the_archives_message(
    fake: FakeWayback, sleeps: list[float]
) -> None:
    fake.exclude("bbc.co.uk/news/")
    with make_client(fake.base_url, sleeps) as client:
        with pytest.raises(WaybackError) as info:
            list(client.iter_cdx("bbc.co.uk/news/", from_="2015"))
    error = info.value
    assert error.kind == "http_403" and "Blocked Site Error" in error.message
    assert "url=bbc.co.uk%2Fnews%2F" in error.url and "from=2015" in error.url
    assert len(fake.cdx_requests) == 1


def test_a_404_after_redirects_names_the_url_that_gave_it(
    fake: FakeWayback, sleeps: list[float]
) -> None:
    elsewhere = f"/web/{STORY_TS}id_/https://www.bbc.co.uk/news/elsewhere"
    fake.fail("id_/https://www.bbc.co.uk/news/world-europe-1", [(302, {"Location": elsewhere})])
    capture = story_capture(fake)
    with make_client(fake.base_url, sleeps) as client:
        with pytest.raises(WaybackError) as info:
            client.fetch(capture)
    assert info.value.kind == "http_404" and info.value.url.endswith(elsewhere)
    assert f"after 1 redirect(s) from {capture.id_url(fake.base_url)}" in info.value.message
    assert "not in archive" in info.value.message


def test_an_article_whose_only_captures_in_range_are_revisits_is_kept(
    sleeps: list[float],
) -> None:
    url = "https://www.bbc.co.uk/news/uk-1"
    original = FakeCapture(url, "20150301000000", html(1))
    revisits = [FakeCapture(url, stamp, html(1), "warc/revisit", "-")
                for stamp in ("20170301000000", "20180301000000")]
    with FakeWayback([original, *revisits]) as fake, make_client(fake.base_url,
                                                                 sleeps) as client:
        listed = list(client.iter_cdx("bbc.co.uk/news/", from_="2016", to="2020"))
        assert [(c.timestamp, c.is_revisit, c.statuscode) for c in listed] == [
            ("20170301000000", True, "-")]
        result = client.fetch(listed[0])
    assert result.content == html(1) and result.digest_ok is True
    assert result.timestamp == "20170301000000"
    assert result.headers["Content-Type"] == "text/html"


@pytest.mark.parametrize("timestamp", ["2018", "20181301000000", "../../../../x",
                                       "20180230000000"])
def test_a_capture_whose_timestamp_is_no_instant_is_never_asked_for(
    fake: FakeWayback, sleeps: list[float], timestamp: str
) -> None:
    capture = CdxCapture("k", timestamp, STORY_URL, "text/html", "200", "-")
    with make_client(fake.base_url, sleeps) as client:
        with pytest.raises(WaybackError) as info:
            client.fetch(capture)
    assert info.value.kind == "bad_timestamp" and fake.requests == []
