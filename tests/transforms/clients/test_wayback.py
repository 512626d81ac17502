"""Tests for transforms.clients.wayback against the in-process fake Wayback server."""

from __future__ import annotations

import json
import pickle
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fakes.wayback_server import FakeWayback, sha1_base32
from transforms.clients.wayback import (
    CdxCapture,
    RateLimiter,
    WaybackClient,
    WaybackError,
    bbc_cdx_queries,
    parse_cdx_json,
)

STORY_URL = "https://www.bbc.co.uk/news/world-europe-1"
STORY_TS = "20150601120000"
STORY_HTML = b"<html><head><title>Story</title></head><body><p>Body</p></body></html>"


def html(n: int) -> bytes:
    return f"<html><body><p>story {n}</p></body></html>".encode()


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep requests to 127.0.0.1 away from any proxy configured in the environment."""
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def fake() -> Iterator[FakeWayback]:
    with FakeWayback([(STORY_URL, STORY_TS, STORY_HTML)], hang_seconds=3.0) as server:
        yield server


def make_client(base_url: str, sleeps: list[float], **overrides: object) -> WaybackClient:
    """Client with no rate limiting, recorded (not real) sleeps and short timeouts."""
    options: dict = {
        "cdx_per_minute": 0,
        "fetch_per_minute": 0,
        "max_retries": 3,
        "rate_limit_pause": 30.0,
        "timeout": (2.0, 2.0),
        "sleep": sleeps.append,
    }
    options.update(overrides)
    return WaybackClient(base_url, **options)


def story_capture(fake: FakeWayback) -> CdxCapture:
    return CdxCapture.from_dict(fake.capture(STORY_URL, STORY_TS).row())


def query_of(path: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(path).query)


# CdxCapture / parsing -------------------------------------------------------------------------


def test_capture_round_trip_and_id_url() -> None:
    capture = CdxCapture("uk,co,bbc)/news/a", STORY_TS, STORY_URL, "text/html", "200", "X" * 32)
    assert CdxCapture.from_dict(capture.to_dict()) == capture
    assert CdxCapture.from_dict({**capture.to_dict(), "length": "12"}) == capture
    assert capture.id_url("https://web.archive.org/") == (
        f"https://web.archive.org/web/{STORY_TS}id_/{STORY_URL}"
    )


def test_parse_cdx_json_reads_columns_by_header_name() -> None:
    body = json.dumps(
        [
            ["timestamp", "length", "digest", "original", "urlkey", "statuscode", "mimetype"],
            [
                "20150101000000",
                "99",
                "D1",
                "http://bbc.co.uk/news/a",
                "uk,co,bbc)/news/a",
                "200",
                "text/html",
            ],
            [],
            ["uk%2Cco%2Cbbc%29%2Fnews%2Fa+20150101000000%21"],
        ]
    )
    captures, resume_key = parse_cdx_json(body)
    assert captures == [
        CdxCapture(
            "uk,co,bbc)/news/a",
            "20150101000000",
            "http://bbc.co.uk/news/a",
            "text/html",
            "200",
            "D1",
        )
    ]
    assert resume_key == "uk%2Cco%2Cbbc%29%2Fnews%2Fa+20150101000000%21"


@pytest.mark.parametrize("body", ['{"not": "a table"}', '[["timestamp", "original"]]', "<html>"])
def test_parse_cdx_json_rejects_malformed_bodies(body: str) -> None:
    with pytest.raises(ValueError):
        parse_cdx_json(body)


def test_parse_cdx_json_empty_result() -> None:
    assert parse_cdx_json("") == ([], None)
    assert parse_cdx_json("[]") == ([], None)


# CDX queries --------------------------------------------------------------------------------


def test_iter_cdx_pages_through_three_pages_with_resume_keys(sleeps: list[float]) -> None:
    captures = [
        (f"https://www.bbc.co.uk/news/story-{i}", "20160101000000", html(i)) for i in range(7)
    ]
    with FakeWayback(captures) as fake, make_client(fake.base_url, sleeps) as client:
        got = list(client.iter_cdx("bbc.co.uk/news/", limit=3))
    assert [c.original for c in got] == sorted(c[0] for c in captures)
    assert len(fake.cdx_requests) == 3
    first, second, third = (query_of(path) for path in fake.cdx_requests)
    assert "resumeKey" not in first
    assert second["resumeKey"] != third["resumeKey"]
    assert first["filter"] == ["statuscode:200", "mimetype:text/html"]
    assert first["output"] == ["json"] and first["showResumeKey"] == ["true"]
    assert first["collapse"] == ["urlkey"] and first["limit"] == ["3"]
    assert first["fl"] == ["urlkey,timestamp,original,mimetype,statuscode,digest"]
    assert all(c.digest == sha1_base32(html(int(c.original[-1]))) for c in got)


def test_iter_cdx_applies_filters_and_collapse(sleeps: list[float]) -> None:
    captures = [
        ("https://www.bbc.co.uk/news/a", "20160101000000", html(1)),
        ("https://www.bbc.co.uk/news/a", "20160202000000", html(2)),
        ("https://www.bbc.co.uk/news/a", "20160303000000", html(3)),
        ("https://www.bbc.co.uk/news/b", "20160101000000", html(4), "text/html", "404"),
        ("https://www.bbc.co.uk/news/c.jpg", "20160101000000", b"\xff\xd8", "image/jpeg"),
        ("https://www.bbc.co.uk/news/d", "20160101000000", html(5)),
    ]
    with FakeWayback(captures) as fake, make_client(fake.base_url, sleeps) as client:
        collapsed = list(client.iter_cdx("bbc.co.uk/news/"))
        # limit=1 forces the server to re-send "a" on later pages; the client drops them.
        paged = list(client.iter_cdx("bbc.co.uk/news/", limit=1))
        everything = list(client.iter_cdx("bbc.co.uk/news/", filters=(), collapse=None))
    expected = [
        ("https://www.bbc.co.uk/news/a", "20160101000000"),
        ("https://www.bbc.co.uk/news/d", "20160101000000"),
    ]
    assert [(c.original, c.timestamp) for c in collapsed] == expected
    assert [(c.original, c.timestamp) for c in paged] == expected
    assert len(everything) == 6
    assert {c.statuscode for c in everything} == {"200", "404"}


def test_iter_cdx_from_to_restricts_years(sleeps: list[float]) -> None:
    captures = [
        (f"https://www.bbc.co.uk/news/y{year}", f"{year}0615000000", html(year))
        for year in range(2013, 2019)
    ]
    with FakeWayback(captures) as fake, make_client(fake.base_url, sleeps) as client:
        got = list(client.iter_cdx("bbc.co.uk/news/", from_="2015", to="2016"))
    assert sorted(c.timestamp[:4] for c in got) == ["2015", "2016"]
    assert query_of(fake.cdx_requests[0])["from"] == ["2015"]
    assert query_of(fake.cdx_requests[0])["to"] == ["2016"]


def test_bbc_cdx_queries_enumerate_both_hosts(sleeps: list[float]) -> None:
    queries = bbc_cdx_queries(2014, 2016)
    assert queries == [
        {"url": "bbc.co.uk/news/", "match_type": "prefix", "from_": "2014", "to": "2016"},
        {"url": "bbc.com/news/", "match_type": "prefix", "from_": "2014", "to": "2016"},
    ]
    captures = [
        ("https://www.bbc.co.uk/news/uk-1", "20150101000000", html(1)),
        ("http://bbc.co.uk/news/uk-2", "20160101000000", html(2)),
        ("https://www.bbc.com/news/world-3", "20140101000000", html(3)),
        ("https://www.bbc.com/news/world-4", "20190101000000", html(4)),
        ("https://www.bbc.co.uk/sport/football-5", "20150101000000", html(5)),
    ]
    with FakeWayback(captures) as fake, make_client(fake.base_url, sleeps) as client:
        got = [c.original for q in queries for c in client.iter_cdx(**q)]
    assert sorted(got) == sorted(c[0] for c in captures[:3])
    with pytest.raises(ValueError):
        bbc_cdx_queries(2017, 2016)


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


# fetch --------------------------------------------------------------------------------------


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


def test_fetch_gzip_encoded_payload_matches_decoded_digest(
    fake: FakeWayback, sleeps: list[float]
) -> None:
    fake.fail("id_/", ["gzip"])
    with make_client(fake.base_url, sleeps) as client:
        result = client.fetch(story_capture(fake))
    assert result.content == STORY_HTML
    assert result.headers["Content-Encoding"] == "gzip"
    assert result.digest_ok is True and result.attempts == 1


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


def test_fetch_hung_connection_times_out_and_retries(
    fake: FakeWayback, sleeps: list[float]
) -> None:
    fake.fail("id_/", ["hang"])
    started = time.monotonic()
    with make_client(fake.base_url, sleeps, timeout=(1.0, 0.3)) as client:
        result = client.fetch(story_capture(fake))
        assert client.stats["error_timeout"] == 1
    assert time.monotonic() - started < 2.5
    assert result.content == STORY_HTML and result.attempts == 2
    assert len(sleeps) == 1


def test_fetch_truncated_body_is_retried(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", ["truncate"])
    with make_client(fake.base_url, sleeps) as client:
        result = client.fetch(story_capture(fake))
        assert client.stats["error_truncated"] == 1
    assert result.content == STORY_HTML and result.attempts == 2


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


def test_fetch_retries_exhausted(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", [503] * 10)
    with (
        make_client(fake.base_url, sleeps, max_retries=2) as client,
        pytest.raises(WaybackError) as info,
    ):
        client.fetch(story_capture(fake))
    assert info.value.kind == "server_error" and info.value.attempts == 3
    assert len(fake.fetch_requests) == 3 and len(sleeps) == 2


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


def test_digest_mismatch_strict_raises_and_caches_nothing(
    fake: FakeWayback, sleeps: list[float], tmp_path: Path
) -> None:
    fake.fail("id_/", ["corrupt"] * 3)
    with make_client(fake.base_url, sleeps, max_retries=2, cache_dir=str(tmp_path)) as client:
        with pytest.raises(WaybackError) as info:
            client.fetch(story_capture(fake))
        assert info.value.kind == "digest_mismatch" and len(fake.fetch_requests) == 3
        assert not list(tmp_path.rglob("*.body"))
        assert client.fetch(story_capture(fake)).from_cache is False  # refetched, now clean
    assert len(fake.fetch_requests) == 4


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
    assert result.digest_ok is False and result.attempts == 3
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


def test_wayback_error_survives_pickling() -> None:
    error = WaybackError("http_410", "http://x/web/1id_/y", "HTTP 410", status=410, attempts=1)
    clone = pickle.loads(pickle.dumps(error))
    assert (clone.kind, clone.url, clone.status, str(clone)) == (
        "http_410",
        error.url,
        410,
        str(error),
    )


# rate limiter -------------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_rate_limiter_spaces_calls_with_fake_clock() -> None:
    clock = FakeClock()
    limiter = RateLimiter(20, clock=clock.time, sleep=clock.sleep)  # one call every 3 s
    starts = []
    for pause in (0.0, 0.0, 5.0, 1.0):
        clock.now += pause
        limiter.acquire()
        starts.append(clock.now)
    assert clock.sleeps == [3.0, 2.0]  # the 5 s idle gap already covered the third call
    assert starts == [100.0, 103.0, 108.0, 111.0]


def test_rate_limiter_is_thread_safe() -> None:
    clock = FakeClock()
    recorded: list[float] = []
    lock = threading.Lock()

    def sleep(seconds: float) -> None:
        with lock:
            recorded.append(seconds)

    limiter = RateLimiter(60, clock=clock.time, sleep=sleep)
    threads = [threading.Thread(target=limiter.acquire) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(recorded) == [float(i) for i in range(1, 10)]  # every caller got its own slot


def test_unlimited_rate_limiter_never_sleeps() -> None:
    clock = FakeClock()
    limiter = RateLimiter(0, clock=clock.time, sleep=clock.sleep)
    assert [limiter.acquire() for _ in range(5)] == [0.0] * 5 and clock.sleeps == []
