"""Bounded HTTP exchanges shared by every client: time, size and redirect limits.

A hostile or broken server must not hang a worker or fill its memory, so each request of
:class:`transforms.clients.http_json.PoliteHttp` and
:class:`transforms.clients.wayback.WaybackClient`:

* has a total :class:`Deadline` (``deadline`` seconds from the first byte sent to the last
  byte read, redirects included, rate-limit waits excluded): requests' ``(connect, read)``
  timeouts bound each socket read only, so a server sending one byte every few seconds would
  otherwise keep it alive forever. The socket timeout is lowered to the time left before each
  read; running out is the failure kind ``deadline_exceeded`` (retried like ``timeout``);
* reads its body streamed, raw, at most ``max_body_bytes`` (:func:`read_body`), and undoes
  gzip/deflate ``Content-Encoding`` incrementally with :class:`BoundedDecoder`, at most
  ``max_decoded_bytes`` (a 1 MB gzip bomb stops at the cap instead of inflating to 1 GB).
  Either cap is the failure kind ``body_too_large``, never retried and never cached;
* compares the raw length with ``Content-Length`` (which counts the compressed bytes of an
  encoded body) and reports an encoded body whose compressed stream stops early: both are
  ``truncated`` (retried, never cached);
* follows redirects itself (:func:`redirect_url`), so each hop goes through the client's rate
  limiter and request count; more than ``max_redirects`` hops is ``too_many_redirects``.

Errors here are :class:`BoundedHttpError` with a ``kind``; each client turns them into its own
error type. No Beam dependency.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar
from urllib.parse import urljoin

import requests
import urllib3.exceptions
from requests.utils import requote_uri

MIB = 1 << 20
CHUNK_BYTES = 64 * 1024
BODY_TOO_LARGE = "body_too_large"
DEADLINE_EXCEEDED = "deadline_exceeded"
TOO_MANY_REDIRECTS = "too_many_redirects"
TRUNCATED = "truncated"
_GZIP = 16 + zlib.MAX_WBITS
S = TypeVar("S")


@dataclass(frozen=True)
class RequestLimits:
    """Per-request limits: requests' ``(connect, read)`` socket timeout, total seconds per
    attempt, retries after the first attempt, redirect hops, raw and decoded body bytes.

    Each client kind owns its defaults once (``http_json.DEFAULT_LIMITS``,
    ``wayback.policy.DEFAULT_LIMITS``); a single number as ``timeout`` is both.
    """

    timeout: tuple[float, float]
    deadline: float
    max_retries: int
    max_redirects: int
    max_body_bytes: int
    max_decoded_bytes: int

    def __post_init__(self) -> None:
        pair = self.timeout
        pair = (pair, pair) if isinstance(pair, int | float) else tuple(pair)
        object.__setattr__(self, "timeout", pair)
        if self.deadline <= 0 or self.max_body_bytes <= 0 or self.max_decoded_bytes <= 0:
            raise ValueError(f"HTTP limits must be positive: {self}")
        if self.max_redirects < 0:
            raise ValueError(f"max_redirects must be >= 0, got {self.max_redirects}")


_LIMIT_FIELDS = frozenset(f.name for f in fields(RequestLimits))


def with_overrides(settings: S, **changes: Any) -> S:
    """Frozen ``settings`` (a policy with a ``limits`` field) with fields replaced by name;
    names of :class:`RequestLimits` fields replace those of ``settings.limits``. An unknown
    name is a TypeError, as an unexpected keyword argument was."""
    limits = {name: changes.pop(name) for name in list(changes) if name in _LIMIT_FIELDS}
    if limits:
        changes["limits"] = replace(settings.limits, **limits)  # type: ignore[attr-defined]
    return replace(settings, **changes) if changes else settings


class BoundedHttpError(Exception):
    """A limit was hit or the body is bad: ``kind`` is "body_too_large",
    "deadline_exceeded", "too_many_redirects", "truncated", "timeout", "connection_error"
    or "bad_encoding"."""

    def __init__(self, kind: str, message: str = "", status: int | None = None) -> None:
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind = kind
        self.message = message
        self.status = status

    def __reduce__(self) -> tuple[Any, ...]:
        """Keep the attributes across pickling."""
        return (self.__class__, (self.kind, self.message, self.status))


class Deadline:
    """A point in time ``seconds`` from now on a monotonic clock (injectable for tests)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._end = clock() + seconds

    def remaining(self) -> float:
        """Seconds left (negative once passed)."""
        return self._end - self._clock()

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return self.remaining() <= 0

    def extend(self, seconds: float) -> None:
        """Push the deadline back (time spent waiting for the rate limiter is not counted)."""
        self._end += max(0.0, seconds)

    def check(self, what: str) -> None:
        """Raise ``deadline_exceeded`` when the deadline has passed."""
        if self.expired():
            raise BoundedHttpError(DEADLINE_EXCEEDED, f"{what} after {self.seconds:g}s")

    def timeout(self, timeout: tuple[float, float]) -> tuple[float, float]:
        """requests' ``(connect, read)`` timeout, each no longer than the time left."""
        self.check("no time left to send the request")
        left = self.remaining()
        return (min(timeout[0], left), min(timeout[1], left))


def timeout_pair(timeout: float | tuple[float, float]) -> tuple[float, float]:
    """requests' timeout as ``(connect, read)`` (a single number is both)."""
    return timeout if isinstance(timeout, tuple) else (timeout, timeout)


def redirect_url(session: requests.Session, resp: requests.Response) -> str | None:
    """The absolute URL a redirect response points to (as requests resolves it), else None."""
    location = session.get_redirect_target(resp)
    if location is None:
        return None
    return requote_uri(urljoin(resp.url, location))


def get_following_redirects(
    session: requests.Session,
    url: str,
    *,
    params: Any,
    headers: Mapping[str, str] | None,
    timeout: float | tuple[float, float],
    deadline: Deadline,
    max_redirects: int,
    follow: bool,
    count_request: Callable[[], None],
    wait_for_slot: Callable[[], float],
) -> requests.Response:
    """A streamed GET whose redirects (when ``follow``) are followed here, not by requests:
    every request is counted, every hop after the first waits ``wait_for_slot()`` (the rate
    limiter; its wait does not eat the deadline) and at most ``max_redirects`` hops are taken
    (``too_many_redirects``, with the last redirect's status). requests' own exceptions
    propagate for the client to classify."""
    target, hops = url, 0
    while True:
        count_request()
        resp = session.get(target, params=params, headers=dict(headers or {}), stream=True,
                           allow_redirects=False, timeout=deadline.timeout(timeout_pair(timeout)))
        next_url = redirect_url(session, resp) if follow else None
        if next_url is None:
            return resp
        resp.close()
        if hops >= max_redirects:
            raise BoundedHttpError(TOO_MANY_REDIRECTS, f"more than {max_redirects} redirects",
                                   resp.status_code)
        hops += 1
        deadline.extend(wait_for_slot())
        target, params = next_url, None


def declared_length(resp: requests.Response) -> int | None:
    """The response's ``Content-Length`` as an int, None when absent or malformed."""
    value = resp.headers.get("Content-Length", "").strip()
    return int(value) if value.isdigit() else None


def read_body(
    resp: requests.Response,
    limits: RequestLimits,
    deadline: Deadline,
    read_timeout: float,
    decoder: BoundedDecoder | None = None,
) -> bytes:
    """The raw (undecoded) body of a streamed response, fed to ``decoder`` as it arrives.

    Stops at ``limits.max_body_bytes`` (``body_too_large``; also raised at once when
    ``Content-Length`` announces more) and at the deadline (``deadline_exceeded``); a body
    shorter than its ``Content-Length`` is ``truncated``. The response is closed.
    """
    expected = declared_length(resp)
    try:
        if expected is not None and expected > limits.max_body_bytes:
            raise BoundedHttpError(BODY_TOO_LARGE, f"Content-Length {expected} exceeds the "
                                                   f"{limits.max_body_bytes}-byte cap")
        chunks: list[bytes] = []
        size = 0
        while True:
            deadline.check(f"body still arriving ({size} bytes read)")
            _limit_socket_wait(resp, min(read_timeout, deadline.remaining()))
            chunk = _read_chunk(resp, deadline, size)
            if not chunk:
                break
            size += len(chunk)
            if size > limits.max_body_bytes:
                raise BoundedHttpError(BODY_TOO_LARGE, f"body exceeds the "
                                                       f"{limits.max_body_bytes}-byte cap")
            chunks.append(chunk)
            if decoder is not None:
                decoder.feed(chunk)
    finally:
        resp.close()
    if expected is not None and size < expected:
        raise BoundedHttpError(TRUNCATED, f"received {size} of {expected} bytes")
    return b"".join(chunks)


def _read_chunk(resp: requests.Response, deadline: Deadline, size: int) -> bytes:
    """One socket read's worth of raw bytes (``read1``: returns what one read brings)."""
    try:
        return resp.raw.read1(CHUNK_BYTES, decode_content=False) or b""
    except urllib3.exceptions.ReadTimeoutError as exc:
        kind = DEADLINE_EXCEEDED if deadline.expired() else "timeout"
        raise BoundedHttpError(kind, f"{exc} ({size} bytes read)") from exc
    except urllib3.exceptions.ProtocolError as exc:
        raise BoundedHttpError(TRUNCATED, str(exc)) from exc
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise BoundedHttpError("connection_error", str(exc)) from exc


def _limit_socket_wait(resp: requests.Response, seconds: float) -> None:
    """Make the next socket read give up after ``seconds`` (best effort)."""
    sock = getattr(getattr(resp.raw, "connection", None), "sock", None)
    if sock is not None:
        sock.settimeout(max(seconds, 0.001))


class BoundedDecoder:
    """Undoes a gzip or deflate ``Content-Encoding`` chunk by chunk, with an output cap.

    Other encodings (and none) are left as they are. Output beyond ``max_bytes`` raises
    ``body_too_large`` as soon as it is produced. Gzip follows :func:`gzip.decompress`:
    several members, zero padding between them, CRC and length checked. Deflate tries a
    zlib stream, then a raw one. ``trailing_garbage_ok`` follows urllib3 instead (what
    requests decoded before): anything after a complete member that is not a valid member
    ends the body. After :meth:`finish`, ``state`` is "plain" (nothing
    to decode), "ok", "invalid" (not decodable) or "incomplete" (the compressed stream stops
    before its end).
    """

    def __init__(self, content_encoding: str, max_bytes: int,
                 trailing_garbage_ok: bool = False) -> None:
        encoding = content_encoding.strip().lower()
        self.encoding = ("gzip" if encoding in ("gzip", "x-gzip")
                         else "deflate" if encoding == "deflate" else None)
        self.max_bytes = max_bytes
        self.trailing_garbage_ok = trailing_garbage_ok
        self.state = "plain" if self.encoding is None else "ok"
        self._wbits = _GZIP if self.encoding == "gzip" else zlib.MAX_WBITS
        self._raw: list[bytes] = []
        self._reset()

    def _reset(self) -> None:
        self._out: list[bytes] = []
        self._size = 0
        self._obj: Any = None
        self._members = 0
        self._done = False

    def feed(self, data: bytes) -> None:
        """Decode the next raw bytes (raises ``body_too_large`` past the cap)."""
        if self.encoding is None or self.state != "ok" or not data:
            return
        if self.encoding == "deflate":
            self._raw.append(data)
        try:
            self._inflate(data)
        except zlib.error:
            self._on_error()

    def finish(self) -> bytes | None:
        """The decoded body, or None when ``state`` is "invalid" or "incomplete"."""
        if self.encoding is None:
            return None
        if self.state == "ok" and self._obj is not None:
            self._flush_pending()
        if self.state == "ok" and self._obj is not None and not self._obj.eof:
            if self.encoding == "deflate" and self._wbits > 0:
                self._retry_raw_deflate()
                out = self.finish()
                self.state = "incomplete" if self.state == "invalid" else self.state
                return out
            self.state = "incomplete"
        return b"".join(self._out) if self.state == "ok" else None

    def _flush_pending(self) -> None:
        try:
            self._emit(self._obj.flush())
        except zlib.error:
            self._on_error()

    def _on_error(self) -> None:
        """Deflate falls back to a raw stream once; gzip may stop after a full member."""
        if self.encoding == "deflate" and self._wbits > 0:
            self._retry_raw_deflate()
        elif self.trailing_garbage_ok and self._members:
            self._done = True
            self._obj = None
        else:
            self.state = "invalid"

    def _retry_raw_deflate(self) -> None:
        self._wbits = -zlib.MAX_WBITS
        self._reset()
        try:
            self._inflate(b"".join(self._raw))
        except zlib.error:
            self.state = "invalid"

    def _inflate(self, data: bytes) -> None:
        while data and not self._done:
            if self._obj is None:
                if self._members and self.encoding == "gzip" and not self.trailing_garbage_ok:
                    data = data.lstrip(b"\0")  # padding, as gzip.decompress allows
                    if not data:
                        return
                elif self._members and self.encoding == "deflate":
                    self._done = True  # bytes after a deflate stream are ignored
                    return
                self._obj = zlib.decompressobj(self._wbits)
            self._emit(self._obj.decompress(data, self._room()))
            while self._obj.unconsumed_tail:
                self._emit(self._obj.decompress(self._obj.unconsumed_tail, self._room()))
            if not self._obj.eof:
                return
            data = self._obj.unused_data
            self._obj = None
            self._members += 1

    def _room(self) -> int:
        """At most one byte past the cap (0 would mean "unlimited" to zlib)."""
        return self.max_bytes - self._size + 1

    def _emit(self, out: bytes) -> None:
        if not out:
            return
        self._size += len(out)
        if self._size > self.max_bytes:
            raise BoundedHttpError(BODY_TOO_LARGE,
                                   f"decoded body exceeds the {self.max_bytes}-byte cap")
        self._out.append(out)
