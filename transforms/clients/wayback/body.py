"""Payload bytes off the wire: reading a streamed ``id_`` response and undoing its encoding.

The body is read undecoded, so its length can be checked against ``Content-Length`` (a short
transfer is a retryable ``truncated`` failure) and its digest compared both before and after
removing gzip/deflate ``Content-Encoding``. Read failures become :class:`WaybackError` kinds.
"""

from __future__ import annotations

import gzip
import zlib

import requests
import urllib3.exceptions

from transforms.clients.wayback.errors import WaybackError


def read_raw_body(resp: requests.Response, url: str) -> bytes:
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


def decode_body(raw: bytes, content_encoding: str) -> bytes:
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
