"""transforms.clients.wayback.digest: the CDX digest forms and how payloads are hashed."""

from __future__ import annotations

import hashlib

import pytest

from tests.fakes.wayback_server import sha1_base32 as fake_digest
from transforms.clients.wayback.digest import digest_like, normalise_digest, sha1_base32

PAYLOAD = b"<html><body><p>story</p></body></html>"


def test_sha1_base32_is_the_cdx_digest() -> None:
    assert sha1_base32(PAYLOAD) == fake_digest(PAYLOAD)
    assert len(sha1_base32(PAYLOAD)) == 32


@pytest.mark.parametrize("raw", [f"sha1:{fake_digest(PAYLOAD)}", fake_digest(PAYLOAD).lower()])
def test_normalise_digest_strips_prefix_and_case(raw: str) -> None:
    assert normalise_digest(raw) == fake_digest(PAYLOAD)


def test_unusable_digests_are_not_checked() -> None:
    assert normalise_digest("-") is None and normalise_digest("ABC") is None


def test_digest_like_follows_the_expected_encoding() -> None:
    hex_digest = hashlib.sha1(PAYLOAD).hexdigest().upper()
    assert digest_like(hex_digest, PAYLOAD) == hex_digest
    assert digest_like(fake_digest(PAYLOAD), PAYLOAD) == fake_digest(PAYLOAD)
