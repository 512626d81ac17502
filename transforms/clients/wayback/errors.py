"""Wayback failures: :class:`WaybackError`, its kinds, and how requests exceptions and HTTP
statuses map to them.

Each failure gets a short stable ``kind``. Rate limiting (HTTP 429, and refused connections,
which is how the archive sheds load) and transient failures (5xx, timeouts, a request over
its total deadline, resets, short bodies, a digest mismatch seen once, unparsable CDX pages,
a JSON nesting bomb included) are retryable; other 4xx statuses, bodies over the size caps
(``body_too_large``) and redirect chains longer than the cap (``too_many_redirects``) are
permanent. So is everything the archive answers deterministically: a status the capture
itself recorded (``archived_error``), another capture than the one asked for
(``capture_redirected``), the archive's own page instead of a capture (``excluded``), the
same wrong payload twice (``digest_mismatch``, ``final``), a CDX listing that goes round in
circles (``resume_key_cycle``, ``cdx_no_progress``, ``too_many_cdx_pages``) and a capture
whose timestamp is no instant (``bad_timestamp``). A retry the wait budgets do not allow
ends as ``retry_budget_exhausted`` or ``run_retry_budget_exhausted``. The retry loop itself
lives in :mod:`transforms.clients.retry_policy`.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Mapping
from typing import Any

import requests
import urllib3.exceptions

from transforms.clients.retry_policy import exception_chain, parse_retry_after

ARCHIVED_ERROR = "archived_error"
CAPTURE_REDIRECTED = "capture_redirected"
EXCLUDED = "excluded"
DIGEST_MISMATCH = "digest_mismatch"
RESUME_KEY_CYCLE = "resume_key_cycle"
CDX_NO_PROGRESS = "cdx_no_progress"
TOO_MANY_CDX_PAGES = "too_many_cdx_pages"
BAD_TIMESTAMP = "bad_timestamp"
RETRY_BUDGET_EXHAUSTED = "retry_budget_exhausted"
RUN_RETRY_BUDGET_EXHAUSTED = "run_retry_budget_exhausted"
MAX_EXCERPT_CHARS = 300

_SCRIPT = re.compile(r"<(script|style)[^>]*>.*?</\1>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")

RATE_LIMIT_KINDS = frozenset({"rate_limited", "connection_refused"})
RETRYABLE_KINDS = frozenset(
    {
        "server_error",
        "timeout",
        "deadline_exceeded",
        "connection_error",
        "truncated",
        DIGEST_MISMATCH,
        "bad_cdx_response",
    }
)


class WaybackError(Exception):
    """A Wayback request that failed for good.

    ``kind`` is a short stable reason ("http_404", "http_410", "http_403", "rate_limited",
    "connection_refused", "server_error", "timeout", "deadline_exceeded", "connection_error",
    "truncated", "digest_mismatch", "bad_cdx_response", "body_too_large",
    "too_many_redirects", "archived_error", "capture_redirected", "excluded", ...); ``url``
    is the URL that gave the failure (the last hop of a redirect chain, the whole CDX query).
    ``final`` marks a failure of a retryable kind that would only repeat (the same wrong
    payload twice).
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
        final: bool = False,
    ) -> None:
        super().__init__(f"{kind}: {url}" + (f" ({message})" if message else ""))
        self.kind = kind
        self.url = url
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.attempts = attempts
        self.final = final

    def __reduce__(self) -> tuple[Any, ...]:
        """Keep ``kind``/``url`` across pickling (Beam ships errors between workers)."""
        state = {"status": self.status, "retry_after": self.retry_after,
                 "attempts": self.attempts, "final": self.final}
        return (self.__class__, (self.kind, self.url, self.message), state)

    @property
    def retryable(self) -> bool:
        """Whether the client retries this kind of failure."""
        if self.final:
            return False
        return self.kind in RETRYABLE_KINDS or self.kind in RATE_LIMIT_KINDS


def status_error(status: int, headers: Mapping[str, str], url: str,
                 detail: str = "") -> WaybackError:
    """The :class:`WaybackError` of an error status the archive itself gave (429:
    ``rate_limited``, 5xx: ``server_error``, else ``http_<status>``), its ``detail`` (what
    the body said, where it came from) in the message."""
    retry_after = parse_retry_after(headers.get("Retry-After"))
    if status == 429:
        kind = "rate_limited"
    elif status >= 500:
        kind = "server_error"
    else:
        kind = f"http_{status}"
    message = f"HTTP {status}" + (f": {detail}" if detail else "")
    return WaybackError(kind, url, message, status=status, retry_after=retry_after)


def archived_status_error(status: int, url: str, captured: str | None) -> WaybackError:
    """The page's own recorded error status, replayed with Memento headers: the capture
    holds an error page, so it is ``archived_error``, never retried nor taken for
    throttling."""
    when = f" of {captured}" if captured else ""
    return WaybackError(ARCHIVED_ERROR, url, f"the capture{when} recorded HTTP {status}",
                        status=status)


def excerpt(body: bytes) -> str:
    """What an error body says, for a message: its text without scripts, styles and tags,
    whitespace collapsed, control characters escaped, at most ``MAX_EXCERPT_CHARS``."""
    text = _TAG.sub(" ", _SCRIPT.sub(" ", body.decode("utf-8", errors="replace")))
    text = " ".join(text.split())
    text = "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)
    return text if len(text) <= MAX_EXCERPT_CHARS else text[: MAX_EXCERPT_CHARS - 3] + "..."


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
