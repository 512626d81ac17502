"""The Wayback client: CDX listing and raw ``id_`` fetching behind one retry loop and a cache.

:class:`WaybackClient` pages through CDX queries with resume keys (bounded by
:class:`~.paging.PagingGuard`) and fetches capture payloads, each endpoint under its own
:class:`~transforms.clients.rate_limit.RateLimiter`, retrying as
:class:`~transforms.clients.retry_policy.PoliteClientBase` decides within the wait budgets.
Every request is bounded (:mod:`transforms.clients.bounded_http`): a total deadline, raw and
decoded body caps, and redirects followed here, each hop rate-limited and counted. A replay
is judged by its Memento headers and the CDX digest (:mod:`.replay`): another capture, a
status the page recorded and the archive's own page are told from the capture asked for.
CDX pages and fetched payloads are cached (a :class:`~transforms.clients.cache_store.
CacheStore`, local or in an injected object storage; captures by :class:`~.fetch_cache.
FetchCache`), so a re-run after a crash never asks the archive twice for the same thing.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

import requests

from filters.text import safe_json
from transforms.clients.bounded_http import (
    BoundedHttpError,
    Deadline,
    get_following_redirects,
    timeout_pair,
)
from transforms.clients.cache_store import CacheStore, ObjectStorage
from transforms.clients.rate_limit import RateLimiter
from transforms.clients.retry_policy import REQUEST_BUDGET, WAIT_STAT_KEYS, PoliteClientBase
from transforms.clients.wayback.body import (
    read_capture_body,
    read_error_excerpt,
    read_text_body,
)
from transforms.clients.wayback.cdx import (
    CdxBadRow,
    CdxCapture,
    CdxDuplicate,
    CdxPage,
    capture_from_fields,
    cdx_params,
    collapse_key_fn,
    is_timestamp,
    parse_cdx_json,
)
from transforms.clients.wayback.errors import (
    BAD_TIMESTAMP,
    RATE_LIMIT_KINDS,
    RETRY_BUDGET_EXHAUSTED,
    RUN_RETRY_BUDGET_EXHAUSTED,
    WaybackError,
    archived_status_error,
    classify_request_exception,
    status_error,
)
from transforms.clients.wayback.fetch_cache import FetchCache
from transforms.clients.wayback.memento import memento_of
from transforms.clients.wayback.paging import PagingGuard
from transforms.clients.wayback.policy import WaybackPolicy
from transforms.clients.wayback.replay import FetchResult, judge_replay

T = TypeVar("T")

DEFAULT_BASE_URL = "https://web.archive.org"
DEFAULT_USER_AGENT = "qa-dataset-toolkit/0.1 (+https://github.com/; dataset research)"
VERIFY_MODES: tuple[str, ...] = ("strict", "warn", "off")
STAT_KEYS: tuple[str, ...] = (
    "requests",
    "retries",
    "rate_limited",
    "cache_hits",
    "bytes",
    "failures",
    *WAIT_STAT_KEYS,
)
ARTICLE_FILTERS: tuple[str, ...] = ("statuscode:200|-", "mimetype:text/html|warc/revisit")


class WaybackClient(PoliteClientBase):
    """requests-based Wayback client with retries, rate limits and an on-disk cache.

    ``policy`` (a :class:`WaybackPolicy`; ``overrides`` replace its fields, or those of its
    ``limits``, by name) sets the rates, pauses, budgets, cache and request limits: the CDX
    limiter runs at ``cdx_per_minute`` and the fetch limiter at ``fetches_per_minute`` (0
    disables either; give a fetcher its :meth:`WaybackPolicy.per_fetcher` share);
    ``max_retries`` counts retries after the first attempt, within the wait budgets;
    ``timeout`` is requests' ``(connect, read)``, per socket operation; ``deadline`` bounds
    each attempt in total (seconds, redirects included); ``max_body_bytes`` /
    ``max_decoded_bytes`` cap a body as sent and once decoded; ``max_redirects`` caps the hops
    followed (each one rate-limited and counted in ``stats["requests"]``). ``verify_digest``
    is "strict" (mismatch is an error), "warn" (accept, ``digest_ok=False``) or "off".
    ``sleep`` waits and ``clock`` (monotonic seconds) tells the time for the rate limiters and
    each attempt's deadline (tests inject both). The cache is keyed
    without the host, so use one ``cache_dir`` per archive; a remote ``cache_dir``
    (``gs://...``) needs ``cache_storage`` (see :class:`CacheStore`).
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        policy: WaybackPolicy | None = None,
        *,
        user_agent: str = DEFAULT_USER_AGENT,
        verify_digest: str = "strict",
        sleep: Callable[[float], Any] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        cache_storage: ObjectStorage | None = None,
        **overrides: Any,
    ) -> None:
        if verify_digest not in VERIFY_MODES:
            raise ValueError(f"verify_digest must be one of {VERIFY_MODES}, got {verify_digest!r}")
        policy = (policy or WaybackPolicy()).override(**overrides)
        self.policy = policy
        self.base_url = base_url.rstrip("/")
        self.cache_dir = policy.cache_dir
        self._cache = CacheStore(policy.cache_dir, cache_storage) if policy.cache_dir else None
        self._fetch_cache = FetchCache(self._cache) if self._cache is not None else None
        self.timeout = policy.limits.timeout
        self.limits = policy.limits
        self.verify_digest = verify_digest
        self._sleep = sleep
        self._clock = clock
        self._cdx_limiter = RateLimiter(policy.cdx_per_minute, clock=clock, sleep=sleep)
        self._fetch_limiter = RateLimiter(policy.fetches_per_minute, clock=clock, sleep=sleep)
        self._open_session(user_agent, "gzip, deflate")
        self._init_retry_policy(max_retries=policy.limits.max_retries,
                                backoff_base=policy.backoff_base,
                                backoff_max=policy.backoff_max,
                                rate_limit_pause=policy.rate_limit_pause,
                                rate_limit_kinds=RATE_LIMIT_KINDS, stat_keys=STAT_KEYS,
                                max_retry_after=policy.max_retry_after,
                                request_wait_budget=policy.request_wait_budget or None,
                                run_wait_budget=policy.run_wait_budget or None)

    # CDX -----------------------------------------------------------------------------------

    def iter_cdx(
        self,
        url: str,
        match_type: str = "prefix",
        from_: str | None = None,
        to: str | None = None,
        filters: Sequence[str] = ARTICLE_FILTERS,
        collapse: str | None = "urlkey",
        limit: int = 5000,
    ) -> Iterator[CdxCapture]:
        """Yield every capture matching a CDX query (the captures of :meth:`iter_cdx_entries`;
        use that to account for the rows refused or dropped as duplicates)."""
        for entry in self.iter_cdx_entries(url, match_type, from_, to, filters, collapse, limit):
            if isinstance(entry, CdxCapture):
                yield entry

    def iter_cdx_entries(
        self,
        url: str,
        match_type: str = "prefix",
        from_: str | None = None,
        to: str | None = None,
        filters: Sequence[str] = ARTICLE_FILTERS,
        collapse: str | None = "urlkey",
        limit: int = 5000,
    ) -> Iterator[CdxCapture | CdxDuplicate | CdxBadRow]:
        """Every row of a CDX query, paging with resume keys: a :class:`CdxCapture`, a
        :class:`CdxDuplicate` or a :class:`CdxBadRow` (a malformed row, which costs only itself:
        the page and the following pages are read on).

        The default ``filters`` list HTML captures answered 200 and revisit records (a
        capture whose payload was stored at an earlier capture, ``warc/revisit`` with status
        ``-``: the archive replays that payload at the revisit's time). ``limit`` is the page
        size: each request asks for ``limit`` lines with ``showResumeKey=true`` and the next
        page is requested with the returned ``resumeKey`` (see "Resumption Key" in the CDX
        server docs), for at most ``max_cdx_pages`` pages, each of which must list something
        new (:class:`PagingGuard`). Collapsing is applied by the server per page; adjacent
        duplicates across a page boundary come back as :class:`CdxDuplicate`. A page that
        cannot be read at all raises :class:`WaybackError` (``bad_cdx_response``), so does a
        listing that stops moving forward.
        """
        params = cdx_params(url, match_type, from_, to, filters, collapse, limit)
        guard = PagingGuard(self._cdx_url(params), self.policy.max_cdx_pages)
        collapse_key = collapse_key_fn(collapse)
        previous: str | None = None
        resume_key: str | None = None
        while True:
            page = self._cdx_page(params, resume_key)
            guard.admit(page, resume_key)
            for capture in page.captures:
                key = collapse_key(capture) if collapse_key else None
                if key is not None and key == previous:
                    yield CdxDuplicate(capture)
                    continue
                previous = key
                yield capture
            yield from page.bad_rows
            resume_key = guard.next_key(page)
            if resume_key is None:
                return

    def _cdx_url(self, query: list[tuple[str, str]]) -> str:
        """The whole URL of a CDX query (what its errors name)."""
        return f"{self.base_url}/cdx/search/cdx?{urlencode(query)}"

    def _cdx_page(self, params: list[tuple[str, str]], resume_key: str | None) -> CdxPage:
        """One CDX page, from the cache when a sound entry is there."""
        query = params + ([("resumeKey", resume_key)] if resume_key else [])
        cache_path = self._cdx_cache_path(query)
        cached = _cached_cdx_page(_read_json(self._cache, cache_path)) if cache_path else None
        if cached is not None:
            self._count("cache_hits")
            return cached
        endpoint = f"{self.base_url}/cdx/search/cdx"
        page = self._with_retries(
            self._cdx_url(query), self._cdx_limiter,
            lambda _attempt: self._cdx_attempt(endpoint, query, resume_key or ""))
        if cache_path:
            record = {
                "query": query,
                "captures": [capture.to_dict() for capture in page.captures],
                "bad_rows": [bad_row.to_dict() for bad_row in page.bad_rows],
                "next_resume_key": page.resume_key,
            }
            self._cache.write(cache_path, json.dumps(record).encode("utf-8"))
        return page

    def _cdx_attempt(self, endpoint: str, query: list[tuple[str, str]], page: str) -> CdxPage:
        """Single CDX request; a body that cannot be read as a page is ``bad_cdx_response``;
        an error status names the query and what its body said (``Blocked Site Error``)."""
        deadline = Deadline(self.limits.deadline, self._clock)
        url = self._cdx_url(query)
        resp, hops = self._get(endpoint, self._cdx_limiter, deadline, params=query)
        if resp.status_code >= 400:
            raise self._status_failure(resp, url, hops, deadline)
        body = read_text_body(resp, resp.url, self.limits, deadline, _read_timeout(self.timeout))
        self._count("bytes", len(body))
        try:
            return parse_cdx_json(_response_text(resp, body), page=page)
        except ValueError as exc:
            reason = getattr(exc, "reason", "")
            message = f"{reason}: {exc}" if reason else str(exc)
            raise WaybackError("bad_cdx_response", resp.url, message[:500]) from exc

    def _cdx_cache_path(self, query: list[tuple[str, str]]) -> str | None:
        if self._cache is None:
            return None
        key = hashlib.sha256(json.dumps(query).encode("utf-8")).hexdigest()
        return self._cache.path("cdx", f"{key}.json")

    # Fetch ---------------------------------------------------------------------------------

    def fetch(self, capture: CdxCapture) -> FetchResult:
        """Fetch the raw (``id_``) payload of a capture, verified and cached.

        Raises :class:`WaybackError` on permanent errors (404/410/403, a status the capture
        recorded, another capture than this one, the archive's own page, a timestamp that
        is no instant: immediately) or when retries or their wait budget are exhausted.
        """
        if not is_timestamp(capture.timestamp):
            self._count(f"error_{BAD_TIMESTAMP}")
            self._count("failures")
            raise WaybackError(BAD_TIMESTAMP, capture.original, f"timestamp "
                               f"{capture.timestamp[:40]!a} is not an instant written "
                               "YYYYMMDDhhmmss; nothing was asked")
        cached = self._fetch_cache.load(capture) if self._fetch_cache else None
        if cached is not None:
            self._count("cache_hits")
            return cached
        url = capture.id_url(self.base_url)
        mismatches: set[str] = set()
        result = self._with_retries(
            url, self._fetch_limiter,
            lambda attempt: self._fetch_attempt(capture, url, attempt, mismatches))
        if self._fetch_cache is not None:
            self._fetch_cache.store_result(capture, result)
        return result

    def _fetch_attempt(self, capture: CdxCapture, url: str, attempt: int,
                       mismatches: set[str]) -> FetchResult:
        """Single GET of the id_ URL (redirects followed), judged by its Memento headers,
        length and digest."""
        deadline = Deadline(self.limits.deadline, self._clock)
        resp, hops = self._get(url, self._fetch_limiter, deadline)
        served_url = resp.url if hops else url
        memento = memento_of(resp.headers)
        if resp.status_code >= 400:
            if memento is not None:
                resp.close()
                raise archived_status_error(resp.status_code, served_url, memento.timestamp)
            raise self._status_failure(resp, url, hops, deadline)
        headers = dict(resp.headers)
        status = resp.status_code
        raw, content = read_capture_body(resp, served_url, self.limits, deadline,
                                         _read_timeout(self.timeout))
        self._count("bytes", len(raw))
        verdict = judge_replay(capture, memento, raw, content, served_url,
                               verify=self.verify_digest,
                               accept_redirects=self.policy.capture_redirects == "accept",
                               final=attempt >= self.max_retries, mismatches=mismatches)
        return FetchResult(
            url=capture.original,
            timestamp=verdict.timestamp,
            status=status,
            content=content,
            headers=headers,
            from_cache=False,
            attempts=attempt + 1,
            digest_ok=verdict.digest_ok,
            requested_timestamp=capture.timestamp,
        )

    # HTTP and retries ----------------------------------------------------------------------

    def _get(
        self,
        url: str,
        limiter: RateLimiter,
        deadline: Deadline,
        params: list[tuple[str, str]] | None = None,
    ) -> tuple[requests.Response, int]:
        """A streamed GET whose redirects are followed here: every hop waits for ``limiter``
        (the first one already has) and counts as a request; at most ``max_redirects`` hops.
        Returns the last answer, whatever its status, and the hops taken. Transport failures
        and limits become :class:`WaybackError`."""
        sent = 0

        def count_request() -> None:
            nonlocal sent
            sent += 1
            self._count("requests")

        try:
            resp = get_following_redirects(
                self._session, url, params=params, headers=None, timeout=self.timeout,
                deadline=deadline, max_redirects=self.limits.max_redirects, follow=True,
                count_request=count_request,
                wait_for_slot=lambda: self._throttled(limiter.acquire()))
        except BoundedHttpError as exc:
            raise WaybackError(exc.kind, url, exc.message) from exc
        except requests.exceptions.RequestException as exc:
            error = classify_request_exception(exc, url)
            if error.kind == "timeout" and deadline.expired():
                error = WaybackError("deadline_exceeded", url, str(exc))
            raise error from exc
        return resp, sent - 1

    def _status_failure(self, resp: requests.Response, url: str, hops: int,
                        deadline: Deadline) -> WaybackError:
        """The error of an archive's own error status: it names the URL that gave it (the
        last hop, and where the redirects started) and what its body said."""
        said = read_error_excerpt(resp, self.limits, deadline, _read_timeout(self.timeout))
        where = f"after {hops} redirect(s) from {url}" if hops else ""
        detail = "; ".join(part for part in (said, where) if part)
        return status_error(resp.status_code, resp.headers, resp.url if hops else url, detail)

    def _with_retries(self, url: str, limiter: RateLimiter, attempt_fn: Callable[[int], T]) -> T:
        """Run ``attempt_fn(attempt)`` under ``limiter`` until success or a final failure;
        a retry whose wait would overrun a budget is not made."""
        attempt, waited = 0, 0.0
        while True:
            self._throttled(limiter.acquire())
            try:
                return attempt_fn(attempt)
            except WaybackError as err:
                err.attempts = attempt + 1
                delay, budget = self._plan_retry(err, attempt, url, waited)
                if delay is None:
                    raise
                if budget:
                    raise _budget_error(err, budget, delay, waited, self.policy) from err
                self._sleep(delay)
                waited += delay
            attempt += 1


def _budget_error(err: WaybackError, budget: str, delay: float, waited: float,
                  policy: WaybackPolicy) -> WaybackError:
    """The failure of a request whose next wait would overrun a budget; it keeps the cause."""
    if budget == REQUEST_BUDGET:
        kind, limit = RETRY_BUDGET_EXHAUSTED, policy.request_wait_budget
        what = f"this request waited {waited:g} s"
    else:
        kind, limit = RUN_RETRY_BUDGET_EXHAUSTED, policy.run_wait_budget
        what = "the run's waits are used up"
    cause = err.kind + (f" ({err.message})" if err.message else "")
    return WaybackError(kind, err.url, f"{cause} after {err.attempts} attempt(s); {what}, "
                                       f"{delay:g} s more would exceed the {limit:g} s budget",
                        status=err.status, attempts=err.attempts)


def _read_timeout(timeout: float | tuple[float, float]) -> float:
    return timeout_pair(timeout)[1]


def _response_text(resp: requests.Response, body: bytes) -> str:
    """``body`` as text, decoded exactly as ``resp.text`` decodes a body requests read."""
    resp._content = body
    resp._content_consumed = True
    return resp.text


def _read_json(cache: CacheStore | None, path: str | None) -> dict | None:
    """Load a JSON cache file; missing or corrupt files (a nesting bomb included) read as None."""
    raw = cache.read(path) if cache is not None and path else None
    try:
        data = safe_json.loads(raw) if raw is not None else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _cached_cdx_page(record: dict | None) -> CdxPage | None:
    """The page a CDX cache entry holds, checked as a fresh page is; None when it is absent or
    unsound (then the page is asked again)."""
    if record is None:
        return None
    captures, bad_rows = record.get("captures"), record.get("bad_rows", [])
    resume_key = record.get("next_resume_key")
    if not isinstance(captures, list) or not isinstance(bad_rows, list) or not (
            resume_key is None or isinstance(resume_key, str)):
        return None
    try:
        return CdxPage(
            tuple(capture_from_fields(item) for item in _mappings(captures)),
            tuple(CdxBadRow.from_dict(item) for item in bad_rows),
            resume_key or None,
        )
    except ValueError:
        return None


def _mappings(items: list) -> list[dict]:
    """``items`` when every one is a dict; raises ValueError otherwise."""
    if not all(isinstance(item, dict) for item in items):
        raise ValueError("cached captures must be objects")
    return items
