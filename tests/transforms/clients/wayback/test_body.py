"""transforms.clients.wayback.body: encoded payloads and short transfers."""

from __future__ import annotations

import gzip
import zlib

import pytest

from tests.fakes.wayback_server import FakeWayback
from tests.transforms.clients.wayback.helpers import STORY_HTML, make_client, story_capture
from transforms.clients.wayback.body import decode_body


def test_fetch_gzip_encoded_payload_matches_decoded_digest(
    fake: FakeWayback, sleeps: list[float]
) -> None:
    fake.fail("id_/", ["gzip"])
    with make_client(fake.base_url, sleeps) as client:
        result = client.fetch(story_capture(fake))
    assert result.content == STORY_HTML
    assert result.headers["Content-Encoding"] == "gzip"
    assert result.digest_ok is True and result.attempts == 1


def test_fetch_truncated_body_is_retried(fake: FakeWayback, sleeps: list[float]) -> None:
    fake.fail("id_/", ["truncate"])
    with make_client(fake.base_url, sleeps) as client:
        result = client.fetch(story_capture(fake))
        assert client.stats["error_truncated"] == 1
    assert result.content == STORY_HTML and result.attempts == 2


@pytest.mark.parametrize("wbits", [zlib.MAX_WBITS, -zlib.MAX_WBITS])
def test_decode_body_undoes_deflate_with_or_without_zlib_header(wbits: int) -> None:
    compressor = zlib.compressobj(wbits=wbits)
    raw = compressor.compress(STORY_HTML) + compressor.flush()
    assert decode_body(raw, " Deflate ") == STORY_HTML


def test_decode_body_keeps_undecodable_or_plain_bodies() -> None:
    assert decode_body(b"not gzip", "gzip") == b"not gzip"
    assert decode_body(gzip.compress(STORY_HTML), "") == gzip.compress(STORY_HTML)
