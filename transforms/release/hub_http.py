"""The HTTP client ``huggingface_hub`` uses while a publish runs: origin-scoped and bounded.

``huggingface_hub`` sends every request of a publish through one shared client
(``set_client_factory``), and builds the headers of each request itself: the LFS ``verify``
action gets the token whatever host its URL names. The client installed here therefore:

* sends ``Authorization`` to the Hub endpoint's own origin only (scheme, host and port): the
  header is removed from any request to another origin (LFS upload, part, completion or
  verify URLs, a redirect's target), whoever set it, and the request is recorded
  (``HubDeadlines.withheld``) so that its refusal can say the token was withheld;
* refuses a redirect to another origin than the request's (``redirect_refused``) and follows
  at most ``MAX_REDIRECTS`` hops on the same origin (``too_many_redirects``);
* bounds every request by a total deadline (``--http-request-deadline``, plus 1 s per MiB of
  a request body) and the whole publish by ``--publish-deadline``: the socket timeout of each
  connect, read and write is lowered to the time left (``HubDeadlines``, with an injectable
  clock), so an answer dripping one byte a second ends at the deadline, not a read timeout
  per byte (``deadline_exceeded``, ``publish_deadline_exceeded``; never retried);
* reads every answer whole but capped (``--http-max-answer-mib``, raw and once gzip/deflate is
  undone; ``answer_too_large``), asking for no compression.

Uploads through ``hf_xet`` use xet's own client, which none of this reaches.
"""

from __future__ import annotations

import importlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urljoin, urlsplit

from transforms.clients.bounded_http import (
    DEADLINE_EXCEEDED,
    MIB,
    TOO_MANY_REDIRECTS,
    BoundedDecoder,
    BoundedHttpError,
)
from transforms.release.hub_errors import (
    ANSWER_TOO_LARGE,
    CONNECTION_FAILED,
    MALFORMED_ANSWER,
    PUBLISH_DEADLINE_EXCEEDED,
    REDIRECT_REFUSED,
    UPLOAD_REFUSED,
    HubAnswerError,
    HubDeadlineError,
    HubPublishError,
)
from transforms.release.hub_options import UPLOAD_SECONDS_PER_MIB, HubOptions
from transforms.release.hub_secrets import known_tokens, redact, redacting_logs

MAX_REDIRECTS = 5
_DEFAULT_PORTS = {"http": 80, "https": 443}
_DECODABLE = ("gzip", "x-gzip", "deflate")


def origin_text(url: str) -> str:
    """``scheme://host[:port]`` of ``url``: its origin as a user writes it."""
    scheme, host, port = origin(url)
    return f"{scheme}://{host}" + ("" if port == _DEFAULT_PORTS.get(scheme) else f":{port}")


def origin(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of ``url``, the port made explicit."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme, 0)


class HubDeadlines:
    """The publish's end and, per thread, the end of the request it is sending; ``sent``
    lists every request started (``METHOD URL``, queries cut), in order, and ``withheld``
    those of them whose ``Authorization`` header was removed (another origin than the
    Hub's)."""

    def __init__(self, options: HubOptions, clock: Callable[[], float],
                 endpoint: str = "") -> None:
        self.options, self.clock, self.endpoint = options, clock, endpoint
        self.publish_end = clock() + options.publish_deadline
        self.sent: list[str] = []
        self.withheld: list[str] = []
        self._local = threading.local()

    def check_publish(self) -> None:
        """Raise ``publish_deadline_exceeded`` once the publish's time is up."""
        self._left(self.clock())

    def start_request(self, what: str, body_bytes: int) -> None:
        """The calling thread now sends ``what``: its deadline starts."""
        now = self.clock()
        self._left(now)
        extra = body_bytes / MIB * UPLOAD_SECONDS_PER_MIB
        self._local.request = (now + self.options.http_request_deadline + extra, extra, what)
        self.sent.append(what)

    def remaining(self) -> float:
        """Seconds the next socket operation of this thread may take (raises when none)."""
        now = self.clock()
        left = self._left(now)
        request = getattr(self._local, "request", None)
        if request is None:
            return left
        end, extra, what = request
        if now >= end:
            allowance = (f", plus {extra:.3g} s for the {extra / UPLOAD_SECONDS_PER_MIB:.3g} MiB "
                         "it sends" if extra else "")
            raise HubDeadlineError(DEADLINE_EXCEEDED, f"{what} took longer than its "
                                   f"{_seconds(self.options.http_request_deadline)} s "
                                   f"(--http-request-deadline{allowance})")
        return min(left, end - now)

    def _left(self, now: float) -> float:
        if now >= self.publish_end:
            raise HubDeadlineError(
                PUBLISH_DEADLINE_EXCEEDED, f"the publish took longer than its "
                f"{_seconds(self.options.publish_deadline)} s (--publish-deadline)")
        return self.publish_end - now


def _seconds(value: float) -> str:
    """A number of seconds as the user gave it (``3``, ``0.5``, ``21600``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _bounded(deadlines: HubDeadlines, timeouts: tuple[type, ...],
             operation: Callable[..., Any], *args: Any, timeout: float | None,
             **kwargs: Any) -> Any:
    """``operation`` with its socket timeout lowered to the time the deadlines leave; a
    timeout that is the deadline's raises the deadline's error."""
    left = deadlines.remaining()
    try:
        return operation(*args, timeout=left if timeout is None else min(timeout, left),
                         **kwargs)
    except timeouts:
        deadlines.remaining()
        raise


class _BoundedStream:
    """A network stream whose every operation ends by the deadline."""

    def __init__(self, inner: Any, deadlines: HubDeadlines, timeouts: tuple[type, ...]) -> None:
        self._inner, self._deadlines, self._timeouts = inner, deadlines, timeouts

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return _bounded(self._deadlines, self._timeouts, self._inner.read, max_bytes,
                        timeout=timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        _bounded(self._deadlines, self._timeouts, self._inner.write, buffer, timeout=timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> _BoundedStream:
        stream = _bounded(self._deadlines, self._timeouts, self._inner.start_tls, ssl_context,
                          server_hostname, timeout=timeout)
        return _BoundedStream(stream, self._deadlines, self._timeouts)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _BoundedBackend:
    """httpcore's network backend with every connection a ``_BoundedStream``."""

    def __init__(self, inner: Any, deadlines: HubDeadlines, timeouts: tuple[type, ...]) -> None:
        self._inner, self._deadlines, self._timeouts = inner, deadlines, timeouts

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> Any:
        stream = _bounded(self._deadlines, self._timeouts, self._inner.connect_tcp, host, port,
                          timeout=timeout, local_address=local_address,
                          socket_options=socket_options)
        return _BoundedStream(stream, self._deadlines, self._timeouts)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> Any:
        stream = _bounded(self._deadlines, self._timeouts, self._inner.connect_unix_socket,
                          path, timeout=timeout, socket_options=socket_options)
        return _BoundedStream(stream, self._deadlines, self._timeouts)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _ScopedTransport:
    """Wraps a transport: the token for the Hub's origin only, no redirect off a request's
    origin, every answer read at once within the cap."""

    def __init__(self, inner: Any, hub: tuple[str, str, int], deadlines: HubDeadlines,
                 max_bytes: int, httpx: Any) -> None:
        self._inner, self._hub, self._deadlines = inner, hub, deadlines
        self._max_bytes, self._httpx = max_bytes, httpx

    def handle_request(self, request: Any) -> Any:
        url = str(request.url)
        what = f"{request.method} {redact(url)}"
        if origin(url) != self._hub and request.headers.pop("authorization", None) is not None:
            self._deadlines.withheld.append(what)
        request.headers["accept-encoding"] = "identity"
        length = request.headers.get("content-length", "")
        self._deadlines.start_request(what, int(length) if length.isdigit() else 0)
        response = self._inner.handle_request(request)
        try:
            location = response.headers.get("location")
            if 300 <= response.status_code < 400 and location:
                target = urljoin(url, location)
                if origin(target) != origin(url):
                    raise HubAnswerError(REDIRECT_REFUSED, f"{what} was redirected to "
                                         f"{redact(target)}, another origin; publish follows "
                                         "no redirect off the origin it asked")
            body = self._read(response, what)
        finally:
            response.close()
        dropped = ("content-encoding", "content-length", "transfer-encoding")
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in dropped]
        return self._httpx.Response(response.status_code, headers=headers, content=body,
                                    extensions=response.extensions)

    def _read(self, response: Any, what: str) -> bytes:
        cap = self._max_bytes
        too_large = f"the answer to {what} is over {cap / MIB:g} MiB (--http-max-answer-mib)"
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise HubAnswerError(ANSWER_TOO_LARGE, f"{too_large}: Content-Length {declared}")
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if encoding not in ("", "identity", *_DECODABLE):
            raise HubAnswerError(MALFORMED_ANSWER, f"the answer to {what} has an unsupported "
                                                   f"Content-Encoding {encoding!r}")
        decoder = BoundedDecoder(encoding, cap) if encoding in _DECODABLE else None
        chunks, size = [], 0
        try:
            for chunk in response.stream:
                size += len(chunk)
                if size > cap:
                    raise HubAnswerError(ANSWER_TOO_LARGE, too_large)
                chunks.append(chunk)
                if decoder is not None:
                    decoder.feed(chunk)
            body = b"".join(chunks)
            if decoder is None:
                return body
            decoded = decoder.finish()
        except BoundedHttpError as error:  # the decoder's cap
            raise HubAnswerError(ANSWER_TOO_LARGE, f"{too_large} once decoded") from error
        if decoded is None:
            raise HubAnswerError(MALFORMED_ANSWER, f"the {encoding} answer to {what} is damaged "
                                                   "or cut short")
        return decoded

    def close(self) -> None:
        self._inner.close()

    def __enter__(self) -> _ScopedTransport:
        self._inner.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._inner.__exit__(*exc_info)


def http_modules() -> tuple[Any, Any]:
    """``huggingface_hub``'s HTTP client module and its httpcore: ``httpx2``/``httpcore2``
    (huggingface_hub 2.x) or ``httpx``/``httpcore`` (1.x)."""
    from huggingface_hub.utils import _http

    httpx = getattr(_http, "httpx2", None) or _http.httpx
    core = importlib.import_module("httpcore2" if httpx.__name__ == "httpx2" else "httpcore")
    return httpx, core


def scoped_client_factory(endpoint: str, options: HubOptions,
                          deadlines: HubDeadlines) -> Callable[[], Any]:
    """A ``set_client_factory`` factory: ``huggingface_hub``'s default client, with the
    timeouts of ``options``, its network I/O bounded by ``deadlines`` and every transport
    (direct or through a proxy) wrapped by ``_ScopedTransport`` for ``endpoint``'s origin."""
    from huggingface_hub.utils import _http

    httpx, core = http_modules()
    hub = origin(endpoint)

    def factory() -> Any:
        client = _http.default_client_factory()
        client.timeout = httpx.Timeout(options.http_read_timeout,
                                       connect=options.http_connect_timeout)
        client.max_redirects = MAX_REDIRECTS
        transports = {"": client._transport, **client._mounts}
        for transport in transports.values():
            pool = getattr(transport, "_pool", None)
            backend = getattr(pool, "_network_backend", None)
            if transport is not None and backend is None:
                raise RuntimeError(f"cannot bound {type(transport).__name__} of "
                                   f"{httpx.__name__}: publish needs its connection pool")
            if backend is not None:
                pool._network_backend = _BoundedBackend(backend, deadlines,
                                                        (core.TimeoutException,))
        wrap = lambda t: t and _ScopedTransport(  # noqa: E731
            t, hub, deadlines, options.max_answer_bytes, httpx)
        client._transport = wrap(client._transport)
        client._mounts = {pattern: wrap(t) for pattern, t in client._mounts.items()}
        return client

    return factory


_QUIET = ("httpx", "httpx2")  # their INFO lines are every request's URL, signed ones included


@contextmanager
def bounded_hub_session(endpoint: str, options: HubOptions | None = None,
                        clock: Callable[[], float] = time.monotonic) -> Iterator[HubDeadlines]:
    """``huggingface_hub``'s shared HTTP client scoped to ``endpoint`` and bounded by
    ``options`` while the block runs (``scoped_client_factory``); yields the deadlines.

    The default client has no timeout (``timeout=None``): a Hub that stops answering would
    hang a publish for ever. The client is process-wide (``set_client_factory``): the default
    factory is put back on the way out, so other users of ``huggingface_hub`` in the process
    (``datasets``) are left as they were. Meanwhile the HTTP client's request log (INFO, with
    the signed storage URLs) is silenced and every log record is redacted
    (``hub_secrets.redacting_logs``)."""
    from huggingface_hub.utils import _http

    options = options or HubOptions()
    deadlines = HubDeadlines(options, clock, endpoint)
    loggers = [logging.getLogger(name) for name in _QUIET]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(max(logger.getEffectiveLevel(), logging.WARNING))
    _http.set_client_factory(scoped_client_factory(endpoint, options, deadlines))
    try:
        with redacting_logs(known_tokens()):
            yield deadlines
    finally:
        _http.set_client_factory(_http.default_client_factory)
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def withheld_refusal(error: BaseException, deadlines: HubDeadlines) -> str | None:
    """``METHOD URL`` of the request ``error`` is the 401 or 403 answer to, when that request
    was sent without the token (``HubDeadlines.withheld``); None otherwise."""
    from huggingface_hub.errors import HfHubHTTPError

    current, seen = error, set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        response = getattr(current, "response", None)
        if isinstance(current, HfHubHTTPError) and response is not None and (
                response.status_code in (401, 403)):
            request = f"{response.request.method} {redact(str(response.request.url))}"
            return request if request in deadlines.withheld else None
        current = current.__cause__ or current.__context__
    return None


_MALFORMED_TEXT = ("improperly formatted", "malformed", "invalid server response",
                   "invalid etag")


def failure_kind(error: BaseException) -> str | None:
    """The reason name of an error a Hub request raised (looking through its causes), or
    None for an error no Hub answer explains (a bug, to be raised as it is)."""
    from huggingface_hub.errors import HfHubHTTPError

    httpx, _ = http_modules()
    chain, current = [], error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    for link in chain:
        if isinstance(link, HubPublishError):
            return link.kind
        if isinstance(link, httpx.TooManyRedirects):
            return TOO_MANY_REDIRECTS
        if isinstance(link, HfHubHTTPError):
            return UPLOAD_REFUSED
        if isinstance(link, httpx.TransportError | ConnectionError | TimeoutError):
            return CONNECTION_FAILED
        if isinstance(link, json.JSONDecodeError | KeyError | TypeError) or (
                isinstance(link, ValueError) and any(
                    text in str(link).lower() for text in _MALFORMED_TEXT)):
            return MALFORMED_ANSWER
    if isinstance(error, RuntimeError | ValueError | OSError):
        return UPLOAD_REFUSED
    return None
