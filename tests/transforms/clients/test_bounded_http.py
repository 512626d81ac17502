"""transforms.clients.bounded_http: the capped incremental decoder, the deadline and limits."""

from __future__ import annotations

import gzip
import zlib

import pytest

from transforms.clients.bounded_http import (
    BoundedDecoder,
    BoundedHttpError,
    Deadline,
    RequestLimits,
    timeout_pair,
)

PAYLOAD = b"<html>" + bytes(range(256)) * 40 + b"abc" * 3000
GZ = gzip.compress(PAYLOAD)


def _stdlib(raw: bytes, encoding: str) -> bytes:
    """What the Wayback client did before: gzip.decompress / zlib, raw when undecodable."""
    try:
        if encoding == "gzip":
            return gzip.decompress(raw)
        try:
            return zlib.decompress(raw)
        except zlib.error:
            return zlib.decompress(raw, -zlib.MAX_WBITS)
    except (OSError, EOFError, zlib.error):
        return raw


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


CASES = [
    ("gzip", GZ), ("gzip", GZ + GZ), ("gzip", GZ + b"\0\0" + GZ), ("gzip", GZ + b"junk"),
    ("gzip", GZ[: len(GZ) // 2]), ("gzip", GZ[:-6] + b"\xff" + GZ[-5:]), ("gzip", b""),
    ("gzip", PAYLOAD), ("deflate", zlib.compress(PAYLOAD)), ("deflate", _raw_deflate(PAYLOAD)),
    ("deflate", zlib.compress(PAYLOAD)[:100]), ("deflate", PAYLOAD),
]


@pytest.mark.parametrize(("encoding", "raw"), CASES)
@pytest.mark.parametrize("chunk", [7, 1 << 20])
def test_decoder_matches_the_stdlib_on_any_chunking(encoding: str, raw: bytes, chunk: int) -> None:
    decoder = BoundedDecoder(encoding, 1 << 30)
    for start in range(0, len(raw), chunk):
        decoder.feed(raw[start:start + chunk])
    decoded = decoder.finish()
    assert (raw if decoded is None else decoded) == _stdlib(raw, encoding)


def test_decoder_reports_an_incomplete_stream() -> None:
    decoder = BoundedDecoder("gzip", 1 << 30)
    decoder.feed(GZ[: len(GZ) // 2])
    assert decoder.finish() is None and decoder.state == "incomplete"
    plain = BoundedDecoder("", 10)
    plain.feed(b"x" * 100)
    assert plain.finish() is None and plain.state == "plain"


def test_gzip_bomb_stops_at_the_cap() -> None:
    bomb = gzip.compress(bytes(64 << 20), compresslevel=9)
    decoder = BoundedDecoder("gzip", 1 << 20)
    with pytest.raises(BoundedHttpError) as info:
        decoder.feed(bomb)
    assert info.value.kind == "body_too_large"
    assert sum(map(len, decoder._out)) <= 1 << 20


def test_body_exactly_at_the_cap_is_accepted() -> None:
    decoder = BoundedDecoder("gzip", len(PAYLOAD))
    decoder.feed(GZ)
    assert decoder.finish() == PAYLOAD


def test_deadline_caps_timeouts_and_extends_on_waits() -> None:
    now = [100.0]
    deadline = Deadline(5.0, clock=lambda: now[0])
    assert deadline.timeout((10.0, 2.0)) == (5.0, 2.0)
    now[0] += 4.0
    assert deadline.timeout((10.0, 2.0)) == (1.0, 1.0)
    deadline.extend(3.0)
    now[0] += 2.0
    assert not deadline.expired() and deadline.remaining() == 2.0
    now[0] += 2.0
    with pytest.raises(BoundedHttpError) as info:
        deadline.check("reading")
    assert info.value.kind == "deadline_exceeded"
    assert timeout_pair(3.0) == (3.0, 3.0)


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError):
        RequestLimits(timeout=1.0, deadline=0, max_retries=0, max_body_bytes=1,
                      max_decoded_bytes=1, max_redirects=0)
    with pytest.raises(ValueError):
        RequestLimits(timeout=1.0, deadline=1, max_retries=0, max_body_bytes=1,
                      max_decoded_bytes=1, max_redirects=-1)
