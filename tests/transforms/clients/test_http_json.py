"""Tests for transforms.clients.http_json.PoliteHttp against the in-process fake wiki server."""

from __future__ import annotations

import pickle
import socket
from collections.abc import Iterator
from email.utils import formatdate
from pathlib import Path

import pytest

from tests.fakes.wiki_server import FakeWiki
from transforms.clients.http_json import (
    HttpError,
    HttpResult,
    PoliteHttp,
    build_http,
    parse_retry_after,
    toolkit_user_agent,
)

PAGES = [("Trade winds", "The trade winds are the prevailing winds.", 817251427, 1)]
API = "/w/api.php"
SEARCH = {"action": "query", "list": "search", "srsearch": "trade winds", "format": "json"}


@pytest.fixture
def fake() -> Iterator[FakeWiki]:
    with FakeWiki(PAGES, hang_seconds=3.0) as server:
        yield server


@pytest.fixture
def sleeps() -> list[float]:
    return []


class FakeClock:
    """The client's time: it passes only when the client sleeps (recorded in ``sleeps``,
    never slept) and, with ``tick``, by that much each time the clock is read. Rate-limiter
    waits and deadlines are computed from it, so no result depends on the machine's speed."""

    def __init__(self, sleeps: list[float], tick: float = 0.0) -> None:
        self.sleeps, self.tick, self.now = sleeps, tick, 0.0

    def time(self) -> float:
        self.now += self.tick
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def make_http(sleeps: list[float], *, tick: float = 0.0, **overrides: object) -> PoliteHttp:
    """No rate limit, a fake clock (sleeps recorded, not slept), short timeouts."""
    clock = FakeClock(sleeps, tick)
    options: dict = {
        "user_agent": "qa-dataset-toolkit/test (tests@example.org)",
        "per_minute": 0,
        "max_retries": 3,
        "rate_limit_pause": 30.0,
        "timeout": (2.0, 2.0),
        "sleep": clock.sleep,
        "clock": clock.time,
    }
    options.update(overrides)
    return PoliteHttp(**options)


def test_get_returns_body_headers_and_sends_user_agent(fake: FakeWiki, sleeps: list[float]) -> None:
    with make_http(sleeps) as http:
        result = http.get(fake.api_url, SEARCH)
    assert isinstance(result, HttpResult)
    assert result.status == 200 and not result.from_cache
    assert result.json()["query"]["search"][0]["title"] == "Trade winds"
    assert result.header("content-type").startswith("application/json")
    assert fake.user_agents == ["qa-dataset-toolkit/test (tests@example.org)"]
    assert http.stats["requests"] == 1 and http.stats["retries"] == 0


def test_429_pauses_rate_limit_pause_then_succeeds(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail(API, [429])
    http = make_http(sleeps)
    result = http.get(fake.api_url, SEARCH)
    assert result.status == 200
    assert sleeps == [30.0]
    assert http.stats["rate_limited"] == 1 and http.stats["retries"] == 1
    assert http.stats["requests"] == 2


def test_429_retry_after_longer_than_pause_wins(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail(API, [(429, {"Retry-After": "120"}), (429, {"Retry-After": "0"})])
    make_http(sleeps).get(fake.api_url, SEARCH)
    assert sleeps == [120.0, 30.0]


def test_maxlag_error_is_paused_and_retried(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail(API, ["maxlag"])
    http = make_http(sleeps, rate_limit_pause=2.0)
    result = http.get(fake.api_url, SEARCH)
    assert "query" in result.json()
    assert sleeps == [5.0]  # Retry-After: 5 beats rate_limit_pause=2
    assert http.stats["rate_limited"] == 1 and http.stats["error_maxlag"] == 1


def test_maxlag_exhausted_raises_and_is_not_cached(
    fake: FakeWiki, sleeps: list[float], tmp_path: Path
) -> None:
    fake.fail(API, ["maxlag"])
    with pytest.raises(HttpError) as info:
        make_http(sleeps, max_retries=0, cache_dir=tmp_path).get(fake.api_url, SEARCH)
    assert info.value.kind == "maxlag" and info.value.status == 200
    result = make_http(sleeps, cache_dir=tmp_path).get(fake.api_url, SEARCH)
    assert not result.from_cache and len(fake.requests) == 2


def test_other_api_errors_are_permanent(fake: FakeWiki, sleeps: list[float]) -> None:
    http = make_http(sleeps)
    with pytest.raises(HttpError) as info:
        http.get(fake.api_url, {"action": "query", "list": "search"})
    assert info.value.kind == "api_nosrsearch" and not info.value.retryable
    assert len(fake.requests) == 1 and sleeps == []


def test_503_is_retried_with_exponential_backoff(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail(API, [503, 503])
    http = make_http(sleeps, backoff_base=1.0)
    assert http.get(fake.api_url, SEARCH).status == 200
    assert len(sleeps) == 2
    assert 1.0 <= sleeps[0] <= 1.1 and 2.0 <= sleeps[1] <= 2.2
    assert http.stats["retries"] == 2 and http.stats["error_server_error"] == 2


def test_backoff_is_capped(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail(API, [500, 502, 503])
    make_http(sleeps, backoff_base=10.0, backoff_max=15.0).get(fake.api_url, SEARCH)
    assert sleeps[1:] == [15.0, 15.0]


def test_retries_exhausted_raise_last_kind(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail(API, [503] * 10)
    http = make_http(sleeps, max_retries=2)
    with pytest.raises(HttpError) as info:
        http.get(fake.api_url, SEARCH)
    assert info.value.kind == "server_error" and info.value.status == 503
    assert info.value.attempts == 3 and len(fake.requests) == 3
    assert http.stats["failures"] == 1


def test_hang_times_out_then_retries(fake: FakeWiki, sleeps: list[float]) -> None:
    # The read timeout is far longer than the retry's answer takes even on a loaded machine
    # (with 0.3 s, a busy machine timed the retry out too), the hang longer still (a client
    # without the timeout would get its answer after 10 s, and fail the test)
    fake.hang_seconds = 10.0
    fake.fail(API, ["hang"])
    http = make_http(sleeps, timeout=(2.0, 2.0))
    assert http.get(fake.api_url, SEARCH).status == 200  # the 2 s read timeout cut the hang
    assert http.stats["error_timeout"] == 1 and http.stats["retries"] == 1


def test_connection_reset_and_truncation_are_retried(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail(API, ["reset", "truncate"])
    http = make_http(sleeps)
    assert http.get(fake.api_url, SEARCH).status == 200
    assert http.stats["error_connection_error"] == 1
    assert http.stats["error_truncated"] == 1
    assert len(fake.requests) == 3


def test_permanent_404_is_not_retried_and_is_cached(
    fake: FakeWiki, sleeps: list[float], tmp_path: Path
) -> None:
    url = f"{fake.rest_url}/page/html/Nowhere"
    with pytest.raises(HttpError) as first:
        make_http(sleeps, cache_dir=tmp_path).get(url)
    assert first.value.kind == "http_404" and first.value.status == 404
    assert not first.value.from_cache and sleeps == []
    with pytest.raises(HttpError) as second:
        make_http(sleeps, cache_dir=tmp_path).get(url)
    assert second.value.kind == "http_404" and second.value.from_cache
    assert len(fake.requests) == 1


def test_other_4xx_raise_without_retry_or_cache(
    fake: FakeWiki, sleeps: list[float], tmp_path: Path
) -> None:
    fake.fail(API, [403])
    with pytest.raises(HttpError) as info:
        make_http(sleeps, cache_dir=tmp_path).get(fake.api_url, SEARCH)
    assert info.value.kind == "http_403" and len(fake.requests) == 1
    assert list(tmp_path.rglob("*.http")) == []


def test_rerun_is_served_from_cache(fake: FakeWiki, sleeps: list[float], tmp_path: Path) -> None:
    first = make_http(sleeps, cache_dir=tmp_path).get(fake.api_url, SEARCH)
    again = make_http(sleeps, cache_dir=tmp_path)
    reordered = dict(reversed(list(SEARCH.items())))
    second = again.get(fake.api_url, reordered)
    assert second.from_cache and second.body == first.body and second.status == 200
    assert second.header("Content-Type") == first.header("Content-Type")
    assert again.stats["cache_hits"] == 1 and again.stats["requests"] == 0
    assert len(fake.requests) == 1


def test_rate_limit_and_server_errors_are_never_cached(
    fake: FakeWiki, sleeps: list[float], tmp_path: Path
) -> None:
    fake.fail(API, [429, 503])
    with pytest.raises(HttpError) as info:
        make_http(sleeps, cache_dir=tmp_path, max_retries=1).get(fake.api_url, SEARCH)
    assert info.value.kind == "server_error"
    assert list(tmp_path.rglob("*.http")) == []


def test_corrupt_cache_entry_is_refetched(
    fake: FakeWiki, sleeps: list[float], tmp_path: Path
) -> None:
    make_http(sleeps, cache_dir=tmp_path).get(fake.api_url, SEARCH)
    (entry,) = tmp_path.rglob("*.http")
    entry.write_bytes(entry.read_bytes()[:-3])
    result = make_http(sleeps, cache_dir=tmp_path).get(fake.api_url, SEARCH)
    assert not result.from_cache and len(fake.requests) == 2


def test_secret_params_are_redacted_and_left_out_of_the_cache(
    fake: FakeWiki, sleeps: list[float], tmp_path: Path
) -> None:
    url = f"{fake.base_url}/customsearch/v1"
    params = {"key": "s3cr3t-value", "cx": "engine", "q": "trade winds"}
    fake.fail("/customsearch/", ["reset"])
    with pytest.raises(HttpError) as info:
        make_http(sleeps, cache_dir=tmp_path, max_retries=0).get(url, params)
    assert "s3cr3t-value" not in str(info.value) and "key=%2A%2A%2A" in info.value.url
    assert info.value.__cause__ is None
    make_http(sleeps, cache_dir=tmp_path).get(url, {**params, "key": fake.api_key})
    rotated = make_http(sleeps, cache_dir=tmp_path).get(url, {**params, "key": "other"})
    assert rotated.from_cache
    for path in tmp_path.rglob("*"):
        assert fake.api_key not in path.name
        assert not path.is_file() or fake.api_key.encode() not in path.read_bytes()


def test_refused_connection_message_is_redacted(sleeps: list[float]) -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    with pytest.raises(HttpError) as info:
        make_http(sleeps, max_retries=1).get(
            f"http://127.0.0.1:{port}/customsearch/v1", {"key": "s3cr3t/+value", "q": "x"})
    assert info.value.kind == "connection_error" and info.value.attempts == 2
    assert "Max retries exceeded" in info.value.message and "key=***" in info.value.message
    assert "s3cr3t" not in str(info.value)


def test_unfollowed_redirect_is_returned_and_cached(tmp_path: Path, sleeps: list[float]) -> None:
    with FakeWiki(PAGES, redirects={"Tradewinds": "Trade winds"}) as fake:
        url = f"{fake.rest_url}/page/html/Tradewinds"
        result = make_http(sleeps, cache_dir=tmp_path).get(url, allow_redirects=False)
        again = make_http(sleeps, cache_dir=tmp_path).get(url, allow_redirects=False)
        followed = make_http(sleeps, cache_dir=tmp_path).get(url)
    assert result.status == 302 and result.header("Location") == "Trade_winds"
    assert again.from_cache and again.status == 302
    assert followed.status == 200 and not followed.from_cache


def test_rate_limiter_spaces_requests(fake: FakeWiki, sleeps: list[float]) -> None:
    http = make_http(sleeps, per_minute=600)
    http.get(fake.api_url, SEARCH)
    http.get(fake.api_url, {**SEARCH, "srsearch": "winds"})
    assert sleeps == [0.1]  # 60 s / 600, however long the first request took


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("99999") == 3600.0
    assert parse_retry_after(formatdate(1_000_060, usegmt=True), now=lambda: 1_000_000.0) == 60


def test_http_error_pickles() -> None:
    err = HttpError("rate_limited", "http://x/api", 429, "HTTP 429", retry_after=5.0, attempts=3)
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.kind, copy.url, copy.status, copy.retry_after, copy.attempts) == (
        "rate_limited", "http://x/api", 429, 5.0, 3)
    assert copy.retryable and not HttpError("http_404", "u", 404).retryable


def test_user_agent_names_tool_version_and_contact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QA_TOOLKIT_CONTACT", "https://example.org/toolkit; ops@example.org")
    agent = toolkit_user_agent()
    assert agent.startswith("qa-dataset-toolkit/")
    assert "(https://example.org/toolkit; ops@example.org)" in agent
    assert "python-requests/" in agent
    assert "(me@example.org)" in toolkit_user_agent("me@example.org")
    http = build_http(30, sleep=lambda s: None)
    assert http.user_agent == agent and http._limiter.interval == 2.0


# Hostile servers: bounded in time and memory, never cached ------------------------------------

SMALL = {"max_body_bytes": 256 * 1024, "max_decoded_bytes": 1 << 20, "deadline": 0.5}
ENDPOINTS = {"json": (API, SEARCH), "html": ("/page/html/", {"redirect": "false"})}


def _url(fake: FakeWiki, endpoint: str) -> str:
    return fake.api_url if endpoint == "json" else f"{fake.rest_url}/page/html/Trade_winds"


def _get_fails(fake: FakeWiki, sleeps: list[float], endpoint: str, cache: Path,
               **overrides: object) -> tuple[HttpError, dict[str, int]]:
    path, params = ENDPOINTS[endpoint]
    http = make_http(sleeps, cache_dir=cache, **{**SMALL, **overrides})
    with pytest.raises(HttpError) as info:
        http.get(_url(fake, endpoint), params)
    return info.value, http.stats


@pytest.mark.parametrize("endpoint", ["json", "html"])
@pytest.mark.parametrize("fault", ["gzip_bomb", "endless"])
def test_oversized_body_fails_once_and_is_not_cached(
    fake: FakeWiki, sleeps: list[float], tmp_path: Path, endpoint: str, fault: str
) -> None:
    fake.bomb_bytes = 8 << 20
    fake.fail(ENDPOINTS[endpoint][0], [fault] * 5)
    error, stats = _get_fails(fake, sleeps, endpoint, tmp_path)
    assert error.kind == "body_too_large" and not error.retryable
    assert len(fake.requests) == 1 and stats["error_body_too_large"] == 1
    assert sleeps == [] and not list(tmp_path.rglob("*.http"))


@pytest.mark.parametrize("endpoint", ["json", "html"])
def test_slow_body_hits_the_total_deadline(
    fake: FakeWiki, sleeps: list[float], tmp_path: Path, endpoint: str
) -> None:
    # Time is the fake clock, 0.5 s each time it is read: a request and four body reads
    # fit in the 5 s deadline, however fast the machine (a normal answer needs two).
    path, params = ENDPOINTS[endpoint]
    slow = {"max_retries": 1, "deadline": 5.0, "tick": 0.5}
    assert make_http(sleeps, **{**SMALL, **slow}).get(_url(fake, endpoint), params).status == 200
    fake.slow_interval = 0.05  # each byte well inside the 2 s read timeout
    fake.fail(path, ["slowloris"] * 5)
    error, stats = _get_fails(fake, sleeps, endpoint, tmp_path, **slow)
    assert error.kind == "deadline_exceeded" and error.retryable and error.attempts == 2
    assert stats["error_deadline_exceeded"] == 2
    assert not list(tmp_path.rglob("*.http"))


@pytest.mark.parametrize("endpoint", ["json", "html"])
def test_redirect_loop_is_capped_and_every_hop_counted(
    fake: FakeWiki, sleeps: list[float], tmp_path: Path, endpoint: str
) -> None:
    fake.fail(ENDPOINTS[endpoint][0], ["redirect_loop"])
    error, stats = _get_fails(fake, sleeps, endpoint, tmp_path, max_redirects=3,
                              per_minute=6000)
    assert error.kind == "too_many_redirects" and not error.retryable
    assert len(fake.requests) == 4 and stats["requests"] == 4
    assert sleeps == pytest.approx([0.01] * 3)  # every hop waited for its own slot


@pytest.mark.parametrize("endpoint", ["json", "html"])
@pytest.mark.parametrize("fault", ["truncate", "short_gzip", "cut_gzip"])
def test_short_bodies_are_retried_then_fail_uncached(
    fake: FakeWiki, sleeps: list[float], tmp_path: Path, endpoint: str, fault: str
) -> None:
    path, params = ENDPOINTS[endpoint]
    fake.fail(path, [fault])
    good = make_http(sleeps, cache_dir=tmp_path / "ok", **SMALL).get(_url(fake, endpoint), params)
    assert good.status == 200 and b"Trade winds" in good.body
    fake.fail(path, [fault] * 5)
    error, stats = _get_fails(fake, sleeps, endpoint, tmp_path / "bad", max_retries=1)
    assert error.kind == "truncated" and error.attempts == 2 and stats["error_truncated"] == 2
    assert not list((tmp_path / "bad").rglob("*.http"))


def test_followed_redirect_counts_each_hop(tmp_path: Path, sleeps: list[float]) -> None:
    with FakeWiki(PAGES, redirects={"Tradewinds": "Trade winds"}) as fake:
        http = make_http(sleeps, per_minute=6000)
        result = http.get(f"{fake.rest_url}/page/html/Tradewinds")
    assert result.status == 200 and b"Trade winds" in result.body
    assert http.stats["requests"] == 2 and len(fake.requests) == 2
    assert sleeps == pytest.approx([0.01])  # the hop waited for its own slot
