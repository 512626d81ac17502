"""Polite, resumable client for the Internet Archive Wayback Machine.

Covers the two endpoints the dataset builders need:

* the CDX server (``/cdx/search/cdx``), documented at
  https://github.com/internetarchive/wayback/tree/master/wayback-cdx-server ;
* raw capture replay (``/web/<timestamp>id_/<original>``), which returns the archived payload
  without the Wayback banner or URL rewriting.

Everything that reaches the network goes through one retry loop with per-endpoint rate limits,
exponential backoff, long pauses on rate limiting (HTTP 429 or refused connections) and no retry
on permanent errors. CDX pages and fetched payloads are cached on disk with atomic writes so a
re-run after a crash never asks the archive twice for the same thing.

This module deliberately has no Apache Beam dependency: Beam DoFns build a client in
``DoFn.setup()`` and export :attr:`WaybackClient.stats` as metrics.
"""

from __future__ import annotations

import base64
import errno
import gzip
import hashlib
import json
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode

import requests
import urllib3.exceptions

from transforms.clients.cache_store import CacheStore
from transforms.clients.retry_policy import PoliteClientBase, exception_chain, parse_retry_after

T = TypeVar("T")

DEFAULT_BASE_URL = "https://web.archive.org"
DEFAULT_USER_AGENT = "qa-dataset-toolkit/0.1 (+https://github.com/; dataset research)"
CDX_FIELDS: tuple[str, ...] = (
    "urlkey",
    "timestamp",
    "original",
    "mimetype",
    "statuscode",
    "digest",
)
BBC_NEWS_PREFIXES: tuple[str, ...] = ("bbc.co.uk/news/", "bbc.com/news/")
VERIFY_MODES: tuple[str, ...] = ("strict", "warn", "off")
RATE_LIMIT_KINDS = frozenset({"rate_limited", "connection_refused"})
RETRYABLE_KINDS = frozenset(
    {
        "server_error",
        "timeout",
        "connection_error",
        "truncated",
        "digest_mismatch",
        "bad_cdx_response",
    }
)
STAT_KEYS: tuple[str, ...] = (
    "requests",
    "retries",
    "rate_limited",
    "cache_hits",
    "bytes",
    "failures",
)


@dataclass(frozen=True)
class CdxCapture:
    """One CDX index line: a single capture of ``original`` at ``timestamp``."""

    urlkey: str
    timestamp: str
    original: str
    mimetype: str
    statuscode: str
    digest: str

    def id_url(self, base_url: str) -> str:
        """URL of the raw capture (``id_`` replay: original bytes, no Wayback banner)."""
        return f"{base_url.rstrip('/')}/web/{self.timestamp}id_/{self.original}"

    def to_dict(self) -> dict[str, str]:
        """Plain dict, suitable for JSON and Beam coders."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CdxCapture:
        """Build from a mapping holding at least the six CDX fields (extra keys are ignored)."""
        return cls(**{name: str(data[name]) for name in CDX_FIELDS})


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


class WaybackError(Exception):
    """A Wayback request that failed for good.

    ``kind`` is a short stable reason ("http_404", "http_410", "http_403", "rate_limited",
    "connection_refused", "server_error", "timeout", "connection_error", "truncated",
    "digest_mismatch", "bad_cdx_response", ...); ``url`` is the request URL.
    """

    def __init__(
        self,
        kind: str,
        url: str,
        message: str = "",
        *,
        status: int | None = None,
        retry_after: float | None = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(f"{kind}: {url}" + (f" ({message})" if message else ""))
        self.kind = kind
        self.url = url
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.attempts = attempts

    def __reduce__(self) -> tuple[Any, ...]:
        """Keep ``kind``/``url`` across pickling (Beam ships errors between workers)."""
        state = {"status": self.status, "retry_after": self.retry_after, "attempts": self.attempts}
        return (self.__class__, (self.kind, self.url, self.message), state)

    @property
    def retryable(self) -> bool:
        """Whether the client retries this kind of failure."""
        return self.kind in RETRYABLE_KINDS or self.kind in RATE_LIMIT_KINDS


class RateLimiter:
    """Enforces a minimum interval between calls; thread-safe.

    Each caller reserves the next free slot under a lock and sleeps outside it, so concurrent
    callers are spaced ``60 / per_minute`` seconds apart. ``per_minute <= 0`` disables limiting.
    """

    def __init__(
        self,
        per_minute: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Any] = time.sleep,
    ) -> None:
        self.interval = 60.0 / per_minute if per_minute > 0 else 0.0
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next_slot: float | None = None

    def acquire(self) -> float:
        """Wait for the next slot; returns the number of seconds waited."""
        if self.interval <= 0:
            return 0.0
        with self._lock:
            now = self._clock()
            slot = now if self._next_slot is None else max(now, self._next_slot)
            self._next_slot = slot + self.interval
        wait = slot - now
        if wait > 0:
            self._sleep(wait)
        return wait


class WaybackClient(PoliteClientBase):
    """requests-based Wayback client with retries, rate limits and an on-disk cache.

    ``cdx_per_minute`` / ``fetch_per_minute`` of 0 disable the corresponding rate limit.
    ``max_retries`` counts retries after the first attempt. ``verify_digest`` is "strict"
    (mismatch is an error), "warn" (accept, ``digest_ok=False``) or "off". The cache is keyed
    without the host, so use one ``cache_dir`` per archive.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        cache_dir: str | None = None,
        cdx_per_minute: float = 20,
        fetch_per_minute: float = 240,
        max_retries: int = 5,
        backoff_base: float = 2.0,
        backoff_max: float = 120.0,
        rate_limit_pause: float = 60.0,
        timeout: tuple[float, float] = (10.0, 60.0),
        user_agent: str = DEFAULT_USER_AGENT,
        verify_digest: str = "strict",
        sleep: Callable[[float], Any] = time.sleep,
    ) -> None:
        if verify_digest not in VERIFY_MODES:
            raise ValueError(f"verify_digest must be one of {VERIFY_MODES}, got {verify_digest!r}")
        self.base_url = base_url.rstrip("/")
        self.cache_dir = cache_dir
        self._cache = CacheStore(cache_dir) if cache_dir else None
        self.timeout = timeout
        self.verify_digest = verify_digest
        self._sleep = sleep
        self._cdx_limiter = RateLimiter(cdx_per_minute, sleep=sleep)
        self._fetch_limiter = RateLimiter(fetch_per_minute, sleep=sleep)
        self._open_session(user_agent, "gzip, deflate")
        self._init_retry_policy(max_retries=max_retries, backoff_base=backoff_base,
                                backoff_max=backoff_max, rate_limit_pause=rate_limit_pause,
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
        """Yield every capture matching a CDX query, paging with resume keys.

        ``limit`` is the page size: each request asks for ``limit`` lines with
        ``showResumeKey=true`` and the next page is requested with the returned ``resumeKey``
        (see "Resumption Key" in the CDX server docs). Collapsing is applied by the server per
        page; adjacent duplicates across a page boundary are dropped here.
        """
        params = _cdx_params(url, match_type, from_, to, filters, collapse, limit)
        collapse_key = _collapse_key_fn(collapse)
        previous: str | None = None
        resume_key: str | None = None
        while True:
            captures, next_key = self._cdx_page(params, resume_key)
            for capture in captures:
                key = collapse_key(capture) if collapse_key else None
                if key is not None and key == previous:
                    continue
                previous = key
                yield capture
            if not next_key:
                return
            if next_key == resume_key:
                raise WaybackError("bad_cdx_response", url, "resume key did not advance")
            resume_key = next_key

    def _cdx_page(
        self, params: list[tuple[str, str]], resume_key: str | None
    ) -> tuple[list[CdxCapture], str | None]:
        """One CDX page, from the cache when available."""
        query = params + ([("resumeKey", resume_key)] if resume_key else [])
        cache_path = self._cdx_cache_path(query)
        cached = _read_json(self._cache, cache_path) if cache_path else None
        if cached is not None:
            self._count("cache_hits")
            captures = [CdxCapture.from_dict(item) for item in cached["captures"]]
            return captures, cached["next_resume_key"]
        endpoint = f"{self.base_url}/cdx/search/cdx"
        error_url = f"{endpoint}?{urlencode(query)}"
        captures, next_key = self._with_retries(
            error_url, self._cdx_limiter, lambda _attempt: self._cdx_attempt(endpoint, query)
        )
        if cache_path:
            record = {
                "query": query,
                "captures": [capture.to_dict() for capture in captures],
                "next_resume_key": next_key,
            }
            self._cache.write(cache_path, json.dumps(record).encode("utf-8"))
        return captures, next_key

    def _cdx_attempt(
        self, endpoint: str, query: list[tuple[str, str]]
    ) -> tuple[list[CdxCapture], str | None]:
        """Single CDX request; malformed bodies become ``bad_cdx_response``."""
        resp = self._get(endpoint, params=query)
        self._count("bytes", len(resp.content))
        try:
            return parse_cdx_json(resp.text)
        except ValueError as exc:
            raise WaybackError("bad_cdx_response", resp.url, str(exc)) from exc

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
        """Single GET of the id_ URL, with length and digest checks."""
        resp = self._get(url, stream=True)
        try:
            raw = _read_raw_body(resp, url)
            headers = dict(resp.headers)
            status = resp.status_code
        finally:
            resp.close()
        self._count("bytes", len(raw))
        content = _decode_body(raw, headers.get("Content-Encoding", ""))
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
        expected = _normalise_digest(capture.digest)
        if expected is None:
            return None
        if expected in (_digest_like(expected, raw), _digest_like(expected, content)):
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
        self, url: str, params: list[tuple[str, str]] | None = None, stream: bool = False
    ) -> requests.Response:
        """One GET; transport failures and error statuses become :class:`WaybackError`."""
        self._count("requests")
        try:
            resp = self._session.get(url, params=params, timeout=self.timeout, stream=stream)
        except requests.exceptions.RequestException as exc:
            raise _classify_request_exception(exc, url) from exc
        _raise_for_status(resp, url)
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


def bbc_cdx_queries(from_year: int, to_year: int) -> list[dict]:
    """CDX queries enumerating BBC News article captures between two years (inclusive).

    Each dict holds keyword arguments for :meth:`WaybackClient.iter_cdx`. The CDX server
    canonicalises hosts (SURT), so ``bbc.co.uk/news/`` also matches ``www.bbc.co.uk``.
    """
    if from_year > to_year:
        raise ValueError(f"from_year {from_year} is after to_year {to_year}")
    return [
        {"url": prefix, "match_type": "prefix", "from_": str(from_year), "to": str(to_year)}
        for prefix in BBC_NEWS_PREFIXES
    ]


def parse_cdx_json(text: str) -> tuple[list[CdxCapture], str | None]:
    """Parse a CDX ``output=json`` body into captures and the resume key (or None).

    The first row names the fields; columns are looked up by name. With ``showResumeKey=true``
    the data rows may be followed by an empty row and a one-element row holding the resume key.
    Raises ValueError on malformed input.
    """
    if not text.strip():
        return [], None
    rows = json.loads(text)
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise ValueError("CDX JSON must be a list of lists")
    if not rows:
        return [], None
    header, body = rows[0], rows[1:]
    missing = [name for name in CDX_FIELDS if name not in header]
    if missing:
        raise ValueError(f"CDX header {header!r} lacks fields {missing}")
    resume_key = None
    if len(body) >= 2 and body[-2] == [] and len(body[-1]) == 1:
        resume_key = str(body[-1][0])
        body = body[:-2]
    index = {name: header.index(name) for name in CDX_FIELDS}
    captures = []
    for row in body:
        if len(row) != len(header):
            raise ValueError(f"CDX row {row!r} does not match header {header!r}")
        captures.append(CdxCapture(**{name: str(row[i]) for name, i in index.items()}))
    return captures, resume_key


def _cdx_params(
    url: str,
    match_type: str,
    from_: str | None,
    to: str | None,
    filters: Sequence[str],
    collapse: str | None,
    limit: int,
) -> list[tuple[str, str]]:
    """Query parameters for a CDX search, in a stable order (also the cache key)."""
    params = [("url", url), ("matchType", match_type)]
    if from_:
        params.append(("from", str(from_)))
    if to:
        params.append(("to", str(to)))
    params += [("output", "json"), ("fl", ",".join(CDX_FIELDS))]
    params += [("filter", item) for item in filters]
    if collapse:
        params.append(("collapse", collapse))
    params += [("limit", str(limit)), ("showResumeKey", "true")]
    return params


def _collapse_key_fn(collapse: str | None) -> Callable[[CdxCapture], str] | None:
    """Key used to drop duplicates the server could not collapse across pages."""
    if not collapse:
        return None
    name, _, width = collapse.partition(":")
    if name not in CDX_FIELDS:
        return None
    size = int(width) if width.isdigit() else None
    return lambda capture: getattr(capture, name)[:size]


def _raise_for_status(resp: requests.Response, url: str) -> None:
    """Map HTTP error statuses to :class:`WaybackError` kinds."""
    code = resp.status_code
    if code < 400:
        return
    retry_after = parse_retry_after(resp.headers.get("Retry-After"))
    resp.close()
    if code == 429:
        kind = "rate_limited"
    elif code >= 500:
        kind = "server_error"
    else:
        kind = f"http_{code}"
    raise WaybackError(kind, url, f"HTTP {code}", status=code, retry_after=retry_after)


def _classify_request_exception(
    exc: requests.exceptions.RequestException, url: str
) -> WaybackError:
    """Map a requests exception to a :class:`WaybackError` kind."""
    if isinstance(exc, requests.exceptions.Timeout):
        kind = "timeout"
    elif isinstance(
        exc, requests.exceptions.ChunkedEncodingError | requests.exceptions.ContentDecodingError
    ):
        kind = "truncated"
    elif isinstance(exc, requests.exceptions.ConnectionError):
        kind = _connection_error_kind(exc)
    elif isinstance(exc, requests.exceptions.TooManyRedirects):
        kind = "too_many_redirects"
    else:
        kind = "request_error"
    return WaybackError(kind, url, str(exc))


def _connection_error_kind(exc: BaseException) -> str:
    """Kind "connection_refused", "timeout" or "connection_error" from the exception chain."""
    chain = list(exception_chain(exc))
    if any(_is_refusal(item) for item in chain):
        return "connection_refused"
    if any(isinstance(item, urllib3.exceptions.ReadTimeoutError | TimeoutError) for item in chain):
        return "timeout"
    return "connection_error"


def _is_refusal(exc: BaseException) -> bool:
    """True for a refused TCP connection (how the archive sheds load)."""
    if isinstance(exc, ConnectionRefusedError):
        return True
    return getattr(exc, "errno", None) == errno.ECONNREFUSED


def _read_raw_body(resp: requests.Response, url: str) -> bytes:
    """Read the undecoded body of a streamed response, detecting short transfers."""
    try:
        raw = resp.raw.read(decode_content=False)
    except urllib3.exceptions.ReadTimeoutError as exc:
        raise WaybackError("timeout", url, str(exc)) from exc
    except urllib3.exceptions.ProtocolError as exc:
        raise WaybackError("truncated", url, str(exc)) from exc
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise WaybackError("connection_error", url, str(exc)) from exc
    expected = resp.headers.get("Content-Length", "").strip()
    if expected.isdigit() and len(raw) < int(expected):
        raise WaybackError("truncated", url, f"received {len(raw)} of {expected} bytes")
    return raw


def _decode_body(raw: bytes, content_encoding: str) -> bytes:
    """Undo gzip/deflate Content-Encoding; returns ``raw`` when not encoded or undecodable."""
    encoding = content_encoding.strip().lower()
    try:
        if encoding in ("gzip", "x-gzip"):
            return gzip.decompress(raw)
        if encoding == "deflate":
            try:
                return zlib.decompress(raw)
            except zlib.error:
                return zlib.decompress(raw, -zlib.MAX_WBITS)
    except (OSError, EOFError, zlib.error):
        return raw
    return raw


def sha1_base32(data: bytes) -> str:
    """The CDX digest format: base32-encoded SHA-1 of the payload."""
    return base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def _normalise_digest(digest: str) -> str | None:
    """Upper-case digest without a ``sha1:`` prefix; None when it cannot be checked."""
    value = digest.strip()
    if value.lower().startswith("sha1:"):
        value = value[5:]
    value = value.upper()
    return value if len(value) in (32, 40) else None


def _digest_like(expected: str, data: bytes) -> str:
    """SHA-1 of ``data`` in the same encoding as ``expected`` (base32, or hex for 40 chars)."""
    if len(expected) == 40:
        return hashlib.sha1(data).hexdigest().upper()
    return sha1_base32(data)


def _read_json(cache: CacheStore | None, path: str | None) -> dict | None:
    """Load a JSON cache file; missing or corrupt files read as None."""
    raw = cache.read(path) if cache is not None and path else None
    try:
        data = json.loads(raw) if raw is not None else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
