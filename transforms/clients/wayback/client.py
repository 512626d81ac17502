"""The Wayback client: CDX listing and raw ``id_`` fetching behind one retry loop and a cache.

:class:`WaybackClient` pages through CDX queries with resume keys and fetches capture payloads,
each endpoint under its own :class:`~transforms.clients.rate_limit.RateLimiter`, retrying as
:class:`~transforms.clients.retry_policy.PoliteClientBase` decides. Every request is bounded
(:mod:`transforms.clients.bounded_http`): a total deadline, raw and decoded body caps, and
redirects followed here, each hop rate-limited and counted. Payloads are checked against the
CDX digest. CDX pages and fetched payloads are cached (a
:class:`~transforms.clients.cache_store.CacheStore`, local or in an injected object storage),
so a re-run after a crash never asks the archive twice for the same thing.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
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
from transforms.clients.retry_policy import PoliteClientBase
from transforms.clients.wayback.body import read_capture_body, read_text_body
from transforms.clients.wayback.cdx import (
    CdxBadRow,
    CdxCapture,
    CdxDuplicate,
    CdxPage,
    capture_from_fields,
    cdx_params,
    collapse_key_fn,
    parse_cdx_json,
)
from transforms.clients.wayback.digest import digest_like, normalise_digest
from transforms.clients.wayback.errors import (
    RATE_LIMIT_KINDS,
    WaybackError,
    classify_request_exception,
    raise_for_status,
)
from transforms.clients.wayback.policy import WaybackPolicy

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
)


@dataclass
class FetchResult:
    """A fetched capture.

    ``url`` is the capture's original URL; ``content`` is the payload with any HTTP
    Content-Encoding removed; ``headers`` are the response headers as received; ``attempts`` is
    the number of HTTP attempts made by this call (0 when served from the cache); ``digest_ok``
    is True when the CDX digest matched, False when it did not (``verify_digest="warn"``) and
    None when it was not checked.
    """

    url: str
    timestamp: str
    status: int
    content: bytes
    headers: dict[str, str]
    from_cache: bool
    attempts: int
    digest_ok: bool | None = None


class WaybackClient(PoliteClientBase):
    """requests-based Wayback client with retries, rate limits and an on-disk cache.

    ``policy`` (a :class:`WaybackPolicy`; ``overrides`` replace its fields, or those of its
    ``limits``, by name) sets the rates, pauses, cache and request limits: the CDX limiter
    runs at ``cdx_per_minute`` and the fetch limiter at ``fetches_per_minute`` (0 disables
    either; give a fetcher its :meth:`WaybackPolicy.per_fetcher` share); ``max_retries``
    counts retries after the first attempt; ``timeout`` is requests' ``(connect, read)``, per
    socket operation; ``deadline`` bounds each attempt in total (seconds, redirects included);
    ``max_body_bytes`` / ``max_decoded_bytes`` cap a body as sent and once decoded;
    ``max_redirects`` caps the hops followed (each one rate-limited and counted in
    ``stats["requests"]``). ``verify_digest`` is "strict" (mismatch is an error), "warn"
    (accept, ``digest_ok=False``) or "off". ``sleep`` is the clock of waits and pauses (tests
    inject one). The cache is keyed without the host, so use one ``cache_dir`` per archive;
    a remote ``cache_dir`` (``gs://...``) needs ``cache_storage`` (see :class:`CacheStore`).
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        policy: WaybackPolicy | None = None,
        *,
        user_agent: str = DEFAULT_USER_AGENT,
        verify_digest: str = "strict",
        sleep: Callable[[float], Any] = time.sleep,
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
        self.timeout = policy.limits.timeout
        self.limits = policy.limits
        self.verify_digest = verify_digest
        self._sleep = sleep
        self._cdx_limiter = RateLimiter(policy.cdx_per_minute, sleep=sleep)
        self._fetch_limiter = RateLimiter(policy.fetches_per_minute, sleep=sleep)
        self._open_session(user_agent, "gzip, deflate")
        self._init_retry_policy(max_retries=policy.limits.max_retries,
                                backoff_base=policy.backoff_base,
                                backoff_max=policy.backoff_max,
                                rate_limit_pause=policy.rate_limit_pause,
                                rate_limit_kinds=RATE_LIMIT_KINDS, stat_keys=STAT_KEYS)

    # CDX -----------------------------------------------------------------------------------

    def iter_cdx(
        self,
        url: str,
        match_type: str = "prefix",
        from_: str | None = None,
        to: str | None = None,
        filters: Sequence[str] = ("statuscode:200", "mimetype:text/html"),
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
        filters: Sequence[str] = ("statuscode:200", "mimetype:text/html"),
        collapse: str | None = "urlkey",
        limit: int = 5000,
    ) -> Iterator[CdxCapture | CdxDuplicate | CdxBadRow]:
        """Every row of a CDX query, paging with resume keys: a :class:`CdxCapture`, a
        :class:`CdxDuplicate` or a :class:`CdxBadRow` (a malformed row, which costs only itself:
        the page and the following pages are read on).

        ``limit`` is the page size: each request asks for ``limit`` lines with
        ``showResumeKey=true`` and the next page is requested with the returned ``resumeKey``
        (see "Resumption Key" in the CDX server docs). Collapsing is applied by the server per
        page; adjacent duplicates across a page boundary come back as :class:`CdxDuplicate`.
        A page that cannot be read at all raises :class:`WaybackError` (``bad_cdx_response``).
        """
        params = cdx_params(url, match_type, from_, to, filters, collapse, limit)
        collapse_key = collapse_key_fn(collapse)
        previous: str | None = None
        resume_key: str | None = None
        while True:
            page = self._cdx_page(params, resume_key)
            for capture in page.captures:
                key = collapse_key(capture) if collapse_key else None
                if key is not None and key == previous:
                    yield CdxDuplicate(capture)
                    continue
                previous = key
                yield capture
            yield from page.bad_rows
            if not page.resume_key:
                return
            if page.resume_key == resume_key:
                raise WaybackError("bad_cdx_response", url, "resume key did not advance")
            resume_key = page.resume_key

    def _cdx_page(self, params: list[tuple[str, str]], resume_key: str | None) -> CdxPage:
        """One CDX page, from the cache when a sound entry is there."""
        query = params + ([("resumeKey", resume_key)] if resume_key else [])
        cache_path = self._cdx_cache_path(query)
        cached = _cached_cdx_page(_read_json(self._cache, cache_path)) if cache_path else None
        if cached is not None:
            self._count("cache_hits")
            return cached
        endpoint = f"{self.base_url}/cdx/search/cdx"
        error_url = f"{endpoint}?{urlencode(query)}"
        page = self._with_retries(
            error_url, self._cdx_limiter,
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
        """Single CDX request; a body that cannot be read as a page is ``bad_cdx_response``."""
        deadline = Deadline(self.limits.deadline)
        resp = self._get(endpoint, self._cdx_limiter, deadline, params=query)
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

        Raises :class:`WaybackError` on permanent errors (404/410/403, immediately) or when
        retries are exhausted (with the last failure's kind).
        """
        cached = self._load_cached_fetch(capture)
        if cached is not None:
            self._count("cache_hits")
            return cached
        url = capture.id_url(self.base_url)
        result = self._with_retries(
            url, self._fetch_limiter, lambda attempt: self._fetch_attempt(capture, url, attempt)
        )
        self._store_fetch(capture, result)
        return result

    def _fetch_attempt(self, capture: CdxCapture, url: str, attempt: int) -> FetchResult:
        """Single GET of the id_ URL (redirects followed), with length and digest checks."""
        deadline = Deadline(self.limits.deadline)
        resp = self._get(url, self._fetch_limiter, deadline)
        headers = dict(resp.headers)
        status = resp.status_code
        raw, content = read_capture_body(resp, url, self.limits, deadline,
                                         _read_timeout(self.timeout))
        self._count("bytes", len(raw))
        digest_ok = self._check_digest(capture, raw, content, url, attempt >= self.max_retries)
        return FetchResult(
            url=capture.original,
            timestamp=capture.timestamp,
            status=status,
            content=content,
            headers=headers,
            from_cache=False,
            attempts=attempt + 1,
            digest_ok=digest_ok,
        )

    def _check_digest(
        self, capture: CdxCapture, raw: bytes, content: bytes, url: str, final: bool
    ) -> bool | None:
        """Compare the CDX digest with SHA-1 of the raw and of the decoded body."""
        if self.verify_digest == "off":
            return None
        expected = normalise_digest(capture.digest)
        if expected is None:
            return None
        if expected in (digest_like(expected, raw), digest_like(expected, content)):
            return True
        if self.verify_digest == "warn" and final:
            return False
        raise WaybackError("digest_mismatch", url, f"CDX digest {expected}")

    def _fetch_cache_paths(self, capture: CdxCapture) -> tuple[str, str] | None:
        if self._cache is None:
            return None
        key = hashlib.sha256(f"{capture.timestamp} {capture.original}".encode()).hexdigest()
        return (self._cache.path("fetch", key[:2], f"{key}.body"),
                self._cache.path("fetch", key[:2], f"{key}.json"))

    def _load_cached_fetch(self, capture: CdxCapture) -> FetchResult | None:
        """Cached result, or None when absent or inconsistent."""
        paths = self._fetch_cache_paths(capture)
        meta = _read_json(self._cache, paths[1]) if paths else None
        if paths is None or meta is None:
            return None
        content = self._cache.read(paths[0])
        if content is None:
            return None
        if len(content) != meta.get("length") or hashlib.sha1(content).hexdigest() != meta.get(
            "sha1"
        ):
            return None
        return FetchResult(
            url=meta["url"],
            timestamp=meta["timestamp"],
            status=meta["status"],
            content=content,
            headers=meta["headers"],
            from_cache=True,
            attempts=0,
            digest_ok=meta.get("digest_ok"),
        )

    def _store_fetch(self, capture: CdxCapture, result: FetchResult) -> None:
        """Write body then metadata; the metadata file marks a complete entry."""
        paths = self._fetch_cache_paths(capture)
        if paths is None:
            return
        meta = {
            "url": result.url,
            "timestamp": result.timestamp,
            "status": result.status,
            "headers": result.headers,
            "digest_ok": result.digest_ok,
            "length": len(result.content),
            "sha1": hashlib.sha1(result.content).hexdigest(),
        }
        self._cache.write(paths[0], result.content)
        self._cache.write(paths[1], json.dumps(meta).encode("utf-8"))

    # HTTP and retries ----------------------------------------------------------------------

    def _get(
        self,
        url: str,
        limiter: RateLimiter,
        deadline: Deadline,
        params: list[tuple[str, str]] | None = None,
    ) -> requests.Response:
        """A streamed GET whose redirects are followed here: every hop waits for ``limiter``
        (the first one already has) and counts as a request; at most ``max_redirects`` hops.
        Transport failures, limits and error statuses become :class:`WaybackError`."""
        try:
            resp = get_following_redirects(
                self._session, url, params=params, headers=None, timeout=self.timeout,
                deadline=deadline, max_redirects=self.limits.max_redirects, follow=True,
                count_request=lambda: self._count("requests"), wait_for_slot=limiter.acquire)
        except BoundedHttpError as exc:
            raise WaybackError(exc.kind, url, exc.message) from exc
        except requests.exceptions.RequestException as exc:
            error = classify_request_exception(exc, url)
            if error.kind == "timeout" and deadline.expired():
                error = WaybackError("deadline_exceeded", url, str(exc))
            raise error from exc
        raise_for_status(resp, url)
        return resp

    def _with_retries(self, url: str, limiter: RateLimiter, attempt_fn: Callable[[int], T]) -> T:
        """Run ``attempt_fn(attempt)`` under ``limiter`` until success or a final failure."""
        attempt = 0
        while True:
            limiter.acquire()
            try:
                return attempt_fn(attempt)
            except WaybackError as err:
                err.attempts = attempt + 1
                if not self._should_retry(err, attempt):
                    raise
                self._sleep(self._retry_delay(err, attempt, url))
            attempt += 1


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
