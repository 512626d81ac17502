"""Payload bytes off the wire: reading a streamed response within limits and undoing its
encoding.

The body is read raw (undecoded) and bounded (:mod:`transforms.clients.bounded_http`), so its
length can be checked against ``Content-Length`` (a short transfer is a retryable
``truncated`` failure) and its digest compared both before and after removing gzip/deflate
``Content-Encoding``, which is undone as the bytes arrive with a cap on the output. A payload
whose compression cannot be undone is kept as it is (the CDX digest decides); one whose
compressed stream stops early is ``truncated`` when no ``Content-Length`` showed the transfer
complete. Limit and read failures become :class:`WaybackError` kinds. An error answer's
body is read only as far as :data:`MAX_ERROR_BODY_BYTES`, for what it says
(:func:`read_error_excerpt`).
"""

from __future__ import annotations

from dataclasses import replace

import requests

from transforms.clients.bounded_http import (
    MIB,
    TRUNCATED,
    BoundedDecoder,
    BoundedHttpError,
    Deadline,
    RequestLimits,
    declared_length,
    read_body,
)
from transforms.clients.wayback.errors import WaybackError, excerpt

MAX_ERROR_BODY_BYTES = 64 * 1024


def read_capture_body(
    resp: requests.Response, url: str, limits: RequestLimits, deadline: Deadline,
    read_timeout: float,
) -> tuple[bytes, bytes]:
    """``(raw, content)`` of a streamed ``id_`` response: the bytes as sent and the payload
    with any Content-Encoding removed (``raw`` itself when it cannot be decoded)."""
    decoder = BoundedDecoder(resp.headers.get("Content-Encoding", ""), limits.max_decoded_bytes)
    try:
        raw = read_body(resp, limits, deadline, read_timeout, decoder)
        decoded = decoder.finish()
    except BoundedHttpError as exc:
        raise WaybackError(exc.kind, url, exc.message) from exc
    if decoder.state == "incomplete" and declared_length(resp) is None:
        raise WaybackError(TRUNCATED, url, "the compressed stream ends early")
    return raw, raw if decoded is None else decoded


def read_text_body(
    resp: requests.Response, url: str, limits: RequestLimits, deadline: Deadline,
    read_timeout: float,
) -> bytes:
    """The decoded body of a streamed API (CDX) response, decoded as requests would; a body
    that cannot be decoded or stops early is ``truncated``."""
    decoder = BoundedDecoder(resp.headers.get("Content-Encoding", ""), limits.max_decoded_bytes,
                             trailing_garbage_ok=True)
    try:
        raw = read_body(resp, limits, deadline, read_timeout, decoder)
        decoded = decoder.finish()
    except BoundedHttpError as exc:
        raise WaybackError(exc.kind, url, exc.message) from exc
    if decoder.state in ("invalid", "incomplete"):
        raise WaybackError(TRUNCATED, url, f"{decoder.encoding} body is {decoder.state}")
    return raw if decoded is None else decoded


def read_error_excerpt(
    resp: requests.Response, limits: RequestLimits, deadline: Deadline, read_timeout: float,
) -> str:
    """What the body of an error answer says (:func:`~.errors.excerpt`), read within the
    deadline and at most :data:`MAX_ERROR_BODY_BYTES`; "" when it cannot be read so (the
    error itself is what matters). The response is closed."""
    small = replace(limits, max_body_bytes=min(limits.max_body_bytes, MAX_ERROR_BODY_BYTES),
                    max_decoded_bytes=min(limits.max_decoded_bytes, MAX_ERROR_BODY_BYTES))
    decoder = BoundedDecoder(resp.headers.get("Content-Encoding", ""), small.max_decoded_bytes,
                             trailing_garbage_ok=True)
    try:
        raw = read_body(resp, small, deadline, read_timeout, decoder)
        decoded = decoder.finish()
    except (BoundedHttpError, requests.exceptions.RequestException, OSError):
        resp.close()
        return ""
    return excerpt(raw if decoded is None else decoded)


def decode_body(raw: bytes, content_encoding: str, max_bytes: int = 256 * MIB) -> bytes:
    """Undo gzip/deflate Content-Encoding; returns ``raw`` when not encoded or undecodable.

    Raises :class:`transforms.clients.bounded_http.BoundedHttpError` ``body_too_large`` when
    the decoded payload would exceed ``max_bytes``.
    """
    decoder = BoundedDecoder(content_encoding, max_bytes)
    decoder.feed(raw)
    decoded = decoder.finish()
    return raw if decoded is None else decoded
