"""A small polite HTTP client for JSON and HTML APIs (MediaWiki, Wikimedia REST, web search).

One retry loop shared by the search backends and the Wikipedia page fetcher:

* a per-client rate limit (:class:`transforms.clients.rate_limit.RateLimiter`);
* exponential backoff with deterministic jitter on 5xx, timeouts, resets and short bodies;
* a long pause, ``max(rate_limit_pause, Retry-After)``, on HTTP 429 and on MediaWiki's
  ``maxlag`` / ``ratelimited`` errors, which the Action API sends as HTTP 200 JSON
  ``{"error": {"code": "maxlag", ...}}`` with ``Retry-After`` (see
  https://www.mediawiki.org/wiki/Manual:Maxlag_parameter);
* no retry on permanent 4xx: :class:`HttpError` with kind ``"http_<status>"``;
* bounded requests (:mod:`transforms.clients.bounded_http`): a total ``deadline`` per attempt
  (``deadline_exceeded``, retried), raw and decoded body caps (``body_too_large``, never
  retried or cached), short or cut bodies (``truncated``, retried, never cached), and
  redirects followed here, each hop rate-limited and counted, at most ``max_redirects``
  (``too_many_redirects``);
* an on-disk cache of successful (2xx), unfollowed redirect (3xx) and 404/410 answers, written
  atomically, so a re-run never asks twice. 429 and 5xx answers are never cached. A remote
  ``cache_dir`` (``gs://...``) needs a ``cache_storage`` (see
  :class:`transforms.clients.cache_store.CacheStore`).

Secrets (API keys passed as query parameters) are redacted from error messages and logs and
left out of the cache key. Like :mod:`transforms.clients.wayback`, no Beam dependency: build a
client in ``DoFn.setup()``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, quote_plus, urlencode

import requests
import urllib3.exceptions

from transforms.clients.bounded_http import (
    BODY_TOO_LARGE,
    MIB,
    TRUNCATED,
    BoundedDecoder,
    BoundedHttpError,
    Deadline,
    RequestLimits,
    get_following_redirects,
    read_body,
    timeout_pair,
    with_overrides,
)
from transforms.clients.cache_store import CacheStore, ObjectStorage
from transforms.clients.rate_limit import RateLimiter
from transforms.clients.retry_policy import (
    PoliteClientBase,
    exception_chain,
    parse_retry_after,
)

log = logging.getLogger(__name__)

STAT_KEYS: tuple[str, ...] = ("requests", "retries", "rate_limited", "cache_hits", "failures")
RATE_LIMIT_KINDS = frozenset({"rate_limited", "maxlag"})
RETRYABLE_KINDS = frozenset({"server_error", "timeout", "deadline_exceeded", "connection_error",
                             "truncated"})
CACHED_ERROR_STATUSES = frozenset({404, 410})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
DEFAULT_REDACT = ("key", "api_key", "apikey", "access_token", "subscription-key")
DEFAULT_LIMITS = RequestLimits(timeout=(10.0, 30.0), deadline=120.0, max_retries=4,
                               max_redirects=5, max_body_bytes=16 * MIB,
                               max_decoded_bytes=64 * MIB)
_RATE_LIMIT_API_CODES = frozenset({"maxlag", "ratelimited"})
_SERVER_API_CODES = frozenset({"readonly", "internal_api_error"})
_DROPPED_HEADERS = frozenset({"set-cookie", "content-encoding", "transfer-encoding"})

CONTACT_ENV = "QA_TOOLKIT_CONTACT"
TOOL_NAME = "qa-dataset-toolkit"

Params = Mapping[str, Any] | Sequence[tuple[str, Any]] | None


def toolkit_user_agent(contact: str | None = None) -> str:
    """A descriptive User-Agent, ``qa-dataset-toolkit/<version> (<contact>) python-requests/<v>``.

    The Wikimedia User-Agent policy (https://meta.wikimedia.org/wiki/User-Agent_policy) asks
    for the tool's name and version and a way to reach its operator (URL or e-mail): pass
    ``contact`` or set the ``QA_TOOLKIT_CONTACT`` environment variable.
    """
    contact = contact or os.environ.get(CONTACT_ENV, "").strip()
    if not contact:
        log.warning("no contact for the User-Agent: set %s to a URL or e-mail", CONTACT_ENV)
        contact = f"contact unset: {CONTACT_ENV}"
    return f"{TOOL_NAME}/{_tool_version()} ({contact}) python-requests/{requests.__version__}"


@dataclass(frozen=True)
class HttpPolicy:
    """How a :class:`PoliteHttp` treats its server (frozen, picklable: DoFns hold it).

    ``per_minute`` is the rate limit (``<= 0``: none; None: the client kind's own default,
    see :func:`build_http`); ``cache_dir`` the on-disk cache (None: none; ``gs://...`` needs
    a ``cache_storage``); a rate-limited answer pauses ``max(rate_limit_pause,
    Retry-After)``, other retryable failures back off from ``backoff_base`` up to
    ``backoff_max``; ``limits`` bound every request.
    """

    per_minute: float | None = None
    cache_dir: str | os.PathLike[str] | None = None
    rate_limit_pause: float = 60.0
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    limits: RequestLimits = DEFAULT_LIMITS

    def override(self, **changes: Any) -> HttpPolicy:
        """This policy with fields (or fields of ``limits``) replaced by name."""
        return with_overrides(self, **changes)


def build_http(default_per_minute: float, /, **options: Any) -> PoliteHttp:
    """A :class:`PoliteHttp` from ``options`` (its keywords: ``policy`` and overrides of its
    fields), with the toolkit User-Agent and ``default_per_minute`` unless they are given (the
    User-Agent is only built, and a missing contact only logged, when needed)."""
    if "user_agent" not in options:
        options["user_agent"] = toolkit_user_agent()
    policy = options.get("policy") or HttpPolicy()
    if policy.per_minute is None:
        options.setdefault("per_minute", default_per_minute)
    return PoliteHttp(**options)


def _tool_version() -> str:
    try:
        return importlib.metadata.version(TOOL_NAME)
    except importlib.metadata.PackageNotFoundError:
        return "0.1.0"


@dataclass(frozen=True)
class HttpResult:
    """One HTTP answer: status, headers, decoded body bytes and whether it came from the cache."""

    status: int
    headers: dict[str, str]
    body: bytes
    from_cache: bool

    def header(self, name: str, default: str = "") -> str:
        """Case-insensitive header lookup."""
        wanted = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == wanted), default)

    @property
    def text(self) -> str:
        """Body decoded as UTF-8 (invalid bytes replaced)."""
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """Body parsed as JSON (raises ValueError on malformed bodies)."""
        return json.loads(self.body)


class HttpError(Exception):
    """A request that failed for good.

    ``kind`` is a short stable reason: "http_<status>" for permanent 4xx, "rate_limited",
    "maxlag", "server_error", "timeout", "deadline_exceeded", "connection_error",
    "truncated", "body_too_large", "too_many_redirects", "request_error", "api_<code>" for a
    MediaWiki API error answer, or "bad_response" (raised by callers for unparsable bodies).
    ``url`` never holds a secret.
    """

    def __init__(
        self,
        kind: str,
        url: str,
        status: int | None = None,
        message: str = "",
        *,
        retry_after: float | None = None,
        attempts: int = 1,
        from_cache: bool = False,
    ) -> None:
        super().__init__(f"{kind}: {url}" + (f" ({message})" if message else ""))
        self.kind = kind
        self.url = url
        self.status = status
        self.message = message
        self.retry_after = retry_after
        self.attempts = attempts
        self.from_cache = from_cache

    def __reduce__(self) -> tuple[Any, ...]:
        """Keep the attributes across pickling (Beam ships errors between workers)."""
        state = {"retry_after": self.retry_after, "attempts": self.attempts,
                 "from_cache": self.from_cache}
        return (self.__class__, (self.kind, self.url, self.status, self.message), state)

    @property
    def retryable(self) -> bool:
        """Whether :class:`PoliteHttp` retries this kind of failure."""
        return self.kind in RETRYABLE_KINDS or self.kind in RATE_LIMIT_KINDS


class PoliteHttp(PoliteClientBase):
    """requests-based GET client with a rate limit, retries, backoff and an on-disk cache.

    ``policy`` (an :class:`HttpPolicy`; ``overrides`` replace its fields, or those of its
    ``limits``, by name) sets the rate limit, cache, retries and request limits: ``timeout``
    is requests' ``(connect, read)``, per socket operation; ``deadline`` bounds each attempt
    in total (seconds, redirects included); ``max_body_bytes`` / ``max_decoded_bytes`` cap a
    body as sent and once decoded; ``max_redirects`` caps the hops followed (each one
    rate-limited and counted). ``redact_params`` name query parameters holding secrets.
    ``cache_storage`` stores a remote ``cache_dir`` (``gs://...``); a local one is a
    directory. ``sleep`` waits and ``clock`` (monotonic seconds) tells the time, for the
    rate limiter and each request's deadline: tests inject both, so that no result depends on
    the machine's speed. ``stats`` counts requests, retries, rate_limited, cache_hits,
    failures and ``error_<kind>``.
    """

    def __init__(
        self,
        user_agent: str,
        *,
        policy: HttpPolicy | None = None,
        sleep: Callable[[float], Any] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        redact_params: Iterable[str] = DEFAULT_REDACT,
        cache_storage: ObjectStorage | None = None,
        **overrides: Any,
    ) -> None:
        policy = (policy or HttpPolicy()).override(**overrides)
        if policy.per_minute is None:
            raise ValueError("PoliteHttp needs a per_minute rate (0 = no limit)")
        self.user_agent = user_agent
        self.policy = policy
        self.timeout = policy.limits.timeout
        self.limits = policy.limits
        self.cache_dir = policy.cache_dir
        self._cache = CacheStore(policy.cache_dir, cache_storage) if policy.cache_dir else None
        self.redact_params = frozenset(name.lower() for name in redact_params)
        self._sleep = sleep
        self._clock = clock
        self._limiter = RateLimiter(policy.per_minute, clock=clock, sleep=sleep)
        self._open_session(user_agent, "gzip")
        self._init_retry_policy(max_retries=policy.limits.max_retries,
                                backoff_base=policy.backoff_base,
                                backoff_max=policy.backoff_max,
                                rate_limit_pause=policy.rate_limit_pause,
                                rate_limit_kinds=RATE_LIMIT_KINDS, stat_keys=STAT_KEYS)

    def get(
        self,
        url: str,
        params: Params = None,
        *,
        headers: Mapping[str, str] | None = None,
        allow_redirects: bool = True,
        max_bytes: int | None = None,
    ) -> HttpResult:
        """GET ``url`` with ``params``: from the cache, or from the network with retries.

        Returns 2xx answers, and 3xx answers when ``allow_redirects`` is False. Raises
        :class:`HttpError` for 404/410 (cached), other 4xx, and failures left after retries.
        ``headers`` are sent but are not part of the cache key (they may hold secrets).
        ``max_bytes`` lowers both body caps for this request (an answer that needs little,
        such as a search's top hits): reading stops there (``body_too_large``), and a cached
        body longer than that is refused the same way.
        """
        limits = self.limits if max_bytes is None else replace(
            self.limits, max_body_bytes=min(self.limits.max_body_bytes, max_bytes),
            max_decoded_bytes=min(self.limits.max_decoded_bytes, max_bytes))
        pairs = _param_pairs(params)
        safe_url = self._display_url(url, pairs)
        cache_path = self._cache_path(url, pairs, allow_redirects)
        cached = _read_cache(self._cache, cache_path)
        if cached is not None:
            self._count("cache_hits")
            if len(cached.body) > limits.max_decoded_bytes:
                raise HttpError(BODY_TOO_LARGE, safe_url, cached.status,
                                f"cached body exceeds the {limits.max_decoded_bytes}-byte cap",
                                from_cache=True)
            return _result_or_error(cached, safe_url)
        result = self._with_retries(
            safe_url,
            lambda: self._attempt(url, pairs, headers, allow_redirects, safe_url, limits))
        if cache_path is not None and _cacheable(result.status):
            _write_cache(self._cache, cache_path, result)
        if result.status in CACHED_ERROR_STATUSES:
            self._count(f"error_http_{result.status}")
        return _result_or_error(result, safe_url)

    def _attempt(
        self,
        url: str,
        pairs: list[tuple[str, str]],
        headers: Mapping[str, str] | None,
        allow_redirects: bool,
        safe_url: str,
        limits: RequestLimits,
    ) -> HttpResult:
        """One GET (redirects followed), its body read within ``limits``; transport failures,
        limits, 429/5xx and MediaWiki API errors become HttpError."""
        deadline = Deadline(limits.deadline, self._clock)
        try:
            resp = self._open(url, pairs, headers, allow_redirects, safe_url, deadline)
            status = resp.status_code
            kept = _kept_headers(resp.headers)
            if _is_error_status(status):
                resp.close()
                _raise_for_status(HttpResult(status, kept, b"", False), safe_url)
            decoder = BoundedDecoder(resp.headers.get("Content-Encoding", ""),
                                     limits.max_decoded_bytes, trailing_garbage_ok=True)
            raw = read_body(resp, limits, deadline, timeout_pair(self.timeout)[1], decoder)
            decoded = decoder.finish()
        except BoundedHttpError as exc:
            raise HttpError(exc.kind, safe_url, exc.status,
                            self._redact(exc.message, pairs)) from None
        if decoder.state == "incomplete":
            raise HttpError(TRUNCATED, safe_url, status, f"{decoder.encoding} stream ends early")
        if decoder.state == "invalid":
            raise HttpError("request_error", safe_url, status, f"undecodable {decoder.encoding}")
        result = HttpResult(status, kept, raw if decoded is None else decoded, False)
        _raise_for_api_error(result, safe_url)
        return result

    def _open(
        self,
        url: str,
        pairs: list[tuple[str, str]],
        headers: Mapping[str, str] | None,
        allow_redirects: bool,
        safe_url: str,
        deadline: Deadline,
    ) -> requests.Response:
        """A streamed GET; redirects (when allowed) are followed here, each hop waiting for
        the rate limiter (the first one already has) and counted as a request."""
        try:
            return get_following_redirects(
                self._session, url, params=pairs, headers=headers, timeout=self.timeout,
                deadline=deadline, max_redirects=self.limits.max_redirects,
                follow=allow_redirects, count_request=lambda: self._count("requests"),
                wait_for_slot=self._limiter.acquire)
        except requests.exceptions.RequestException as exc:
            kind = _exception_kind(exc)
            kind = "deadline_exceeded" if kind == "timeout" and deadline.expired() else kind
            message = self._redact(f"{type(exc).__name__}: {exc}", pairs)
            raise HttpError(kind, safe_url, None, message) from None

    def _with_retries(self, safe_url: str, attempt_fn: Callable[[], HttpResult]) -> HttpResult:
        """Run ``attempt_fn`` under the rate limit until success or a final failure."""
        attempt = 0
        while True:
            self._limiter.acquire()
            try:
                return attempt_fn()
            except HttpError as err:
                err.attempts = attempt + 1
                if not self._should_retry(err, attempt):
                    raise
                delay = self._retry_delay(err, attempt, safe_url)
                log.info("retrying %s in %.1fs after %s", safe_url, delay, err.kind)
                self._sleep(delay)
            attempt += 1

    def _cache_path(
        self, url: str, pairs: list[tuple[str, str]], allow_redirects: bool
    ) -> str | None:
        """``cache_dir/ab/<sha256>.http``; the key leaves out redacted (secret) parameters."""
        if self._cache is None:
            return None
        public = sorted((k, v) for k, v in pairs if k.lower() not in self.redact_params)
        material = url + "?" + urlencode(public) + ("" if allow_redirects else "#no-redirects")
        key = hashlib.sha256(material.encode("utf-8")).hexdigest()
        return self._cache.path(key[:2], f"{key}.http")

    def _display_url(self, url: str, pairs: list[tuple[str, str]]) -> str:
        """The request URL with secret parameter values replaced by ``***``."""
        shown = [(k, "***" if k.lower() in self.redact_params else v) for k, v in pairs]
        return f"{url}?{urlencode(shown)}" if shown else url

    def _redact(self, text: str, pairs: list[tuple[str, str]]) -> str:
        """``text`` with secret parameter values (raw or URL-encoded) replaced by ``***``.

        requests puts the full request URL, query string included, in its exception messages.
        """
        for name, value in pairs:
            if value and name.lower() in self.redact_params:
                for form in {value, quote_plus(value), quote(value, safe="")}:
                    text = text.replace(form, "***")
        return text


def _param_pairs(params: Params) -> list[tuple[str, str]]:
    """Query parameters as ``(name, str(value))`` pairs, None values dropped, order kept."""
    if params is None:
        return []
    items = params.items() if isinstance(params, Mapping) else params
    return [(str(k), _param_value(v)) for k, v in items if v is not None]


def _param_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _kept_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Response headers worth keeping (no cookies; bodies are stored decoded)."""
    return {k: v for k, v in headers.items() if k.lower() not in _DROPPED_HEADERS}


def _cacheable(status: int) -> bool:
    return 200 <= status < 300 or status in REDIRECT_STATUSES or status in CACHED_ERROR_STATUSES


def _result_or_error(result: HttpResult, safe_url: str) -> HttpResult:
    """Return ``result``, or raise the permanent (cacheable) error it records."""
    if result.status in CACHED_ERROR_STATUSES:
        raise HttpError(f"http_{result.status}", safe_url, result.status,
                        from_cache=result.from_cache)
    return result


def _is_error_status(status: int) -> bool:
    """Statuses that fail at once, body unread: 4xx (but the cached 404/410) and 5xx."""
    return status >= 400 and status not in CACHED_ERROR_STATUSES


def _raise_for_status(result: HttpResult, safe_url: str) -> None:
    """429 -> rate_limited, 5xx -> server_error, other 4xx (but 404/410) -> http_<status>."""
    status = result.status
    if not _is_error_status(status):
        return
    retry_after = parse_retry_after(result.header("Retry-After"))
    if status == 429:
        kind = "rate_limited"
    elif status >= 500:
        kind = "server_error"
    else:
        kind = f"http_{status}"
    raise HttpError(kind, safe_url, status, f"HTTP {status}", retry_after=retry_after)


def _raise_for_api_error(result: HttpResult, safe_url: str) -> None:
    """MediaWiki Action API errors arrive as HTTP 200 ``{"error": {"code": ...}}``.

    maxlag/ratelimited are rate limits, readonly/internal_api_error_* are server errors and
    anything else is permanent (``api_<code>``); none of them is cached.
    See https://www.mediawiki.org/wiki/API:Errors_and_warnings .
    """
    code, lag = _api_error(result)
    if code is None:
        return
    retry_after = parse_retry_after(result.header("Retry-After"))
    if code in _RATE_LIMIT_API_CODES:
        kind = "maxlag" if code == "maxlag" else "rate_limited"
        retry_after = retry_after if retry_after is not None else lag
    elif code in _SERVER_API_CODES or code.startswith("internal_api_error"):
        kind = "server_error"
    else:
        kind = f"api_{code}"
    raise HttpError(kind, safe_url, result.status, f"API error {code}", retry_after=retry_after)


def _api_error(result: HttpResult) -> tuple[str | None, float | None]:
    """``(code, lag)`` of a JSON ``{"error": {"code": "<string>"}}`` 2xx body, else None."""
    head = result.body[:512].lstrip()
    if not (200 <= result.status < 300 and head.startswith(b"{") and b'"error"' in head):
        return None, None
    try:
        error = json.loads(result.body).get("error")
    except (ValueError, AttributeError):
        return None, None
    code = error.get("code") if isinstance(error, dict) else None
    if not isinstance(code, str):
        return None, None
    lag = error.get("lag")
    return code, float(lag) if isinstance(lag, int | float) else None


def _exception_kind(exc: requests.exceptions.RequestException) -> str:
    """timeout / truncated / connection_error / request_error for a requests exception."""
    if isinstance(exc, requests.exceptions.Timeout):
        return "timeout"
    if isinstance(exc, requests.exceptions.ChunkedEncodingError):
        return "truncated"
    if isinstance(exc, requests.exceptions.ConnectionError):
        timeouts = (urllib3.exceptions.ReadTimeoutError, TimeoutError)
        chained = exception_chain(exc)
        return "timeout" if any(isinstance(e, timeouts) for e in chained) else "connection_error"
    return "request_error"


def _read_cache(cache: CacheStore | None, path: str | None) -> HttpResult | None:
    """A cached answer; missing, partial or corrupt entries read as None."""
    raw = cache.read(path) if cache is not None and path else None
    if raw is None:
        return None
    try:
        header, _, body = raw.partition(b"\n")
        meta = json.loads(header)
    except ValueError:
        return None
    if len(body) != meta.get("length") or hashlib.sha256(body).hexdigest() != meta.get("sha256"):
        return None
    return HttpResult(int(meta["status"]), dict(meta["headers"]), body, True)


def _write_cache(cache: CacheStore, path: str, result: HttpResult) -> None:
    """One file: a JSON header line (status, headers, length, sha256) then the body."""
    meta = {
        "status": result.status,
        "headers": result.headers,
        "length": len(result.body),
        "sha256": hashlib.sha256(result.body).hexdigest(),
    }
    cache.write(path, json.dumps(meta).encode("utf-8") + b"\n" + result.body)
