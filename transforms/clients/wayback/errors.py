"""Wayback failures: :class:`WaybackError` and how requests exceptions and HTTP statuses map
to its kinds.

Each failure gets a short stable ``kind``. Rate limiting (HTTP 429, and refused connections,
which is how the archive sheds load) and transient failures (5xx, timeouts, a request over
its total deadline, resets, short bodies, digest mismatches, unparsable CDX pages, a JSON
nesting bomb included) are retryable; other 4xx statuses, bodies over the size caps
(``body_too_large``) and redirect chains longer than the cap (``too_many_redirects``) are
permanent. The retry loop itself lives
in :mod:`transforms.clients.retry_policy`.
"""

from __future__ import annotations

import errno
from typing import Any

import requests
import urllib3.exceptions

from transforms.clients.retry_policy import exception_chain, parse_retry_after

RATE_LIMIT_KINDS = frozenset({"rate_limited", "connection_refused"})
RETRYABLE_KINDS = frozenset(
    {
        "server_error",
        "timeout",
        "deadline_exceeded",
        "connection_error",
        "truncated",
        "digest_mismatch",
        "bad_cdx_response",
    }
)


class WaybackError(Exception):
    """A Wayback request that failed for good.

    ``kind`` is a short stable reason ("http_404", "http_410", "http_403", "rate_limited",
    "connection_refused", "server_error", "timeout", "deadline_exceeded", "connection_error",
    "truncated", "digest_mismatch", "bad_cdx_response", "body_too_large",
    "too_many_redirects", ...); ``url`` is the request URL.
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


def raise_for_status(resp: requests.Response, url: str) -> None:
    """Map HTTP error statuses to :class:`WaybackError` kinds (closing the response)."""
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


def classify_request_exception(
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
