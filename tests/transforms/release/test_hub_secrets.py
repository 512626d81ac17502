"""``hub_secrets.redact``: what publish prints keeps no credential, and reads as before."""

from __future__ import annotations

import pytest

from tests.transforms.release.token_spellings import REAL, recoverable, spellings
from transforms.release.hub_secrets import FRAGMENT, MASK, redact

TOKEN = "hf_test_secret_token"
SHAPED = "hf_" + "Zy9" * 12  # 36 letters and digits after hf_, as a real token


@pytest.mark.parametrize("text, expected", [
    (f"Invalid header 'Authorization: Bearer {TOKEN}'",
     "Invalid header 'Authorization: Bearer ***'"),
    (f"echo: {SHAPED}.", "echo: hf_***."),
    ("authorization=abc123 and token=xyz", "authorization=*** and token=***"),
    ("PUT https://s3.example/obj?X-Amz-Signature=abc&a=b failed",
     "PUT https://s3.example/obj?... failed"),
    ("Basic dXNlcjpwYXNz", "Basic ***"),
])
def test_credentials_are_masked(text, expected):
    assert redact(text, [TOKEN]) == expected


def test_ordinary_messages_are_left_as_they_are():
    text = ("403 Forbidden: Make sure your token has the correct permissions for "
            "qa-org/hf_datasets (hf_short is no token)")
    assert redact(text, [TOKEN]) == text


@pytest.mark.parametrize("name", list(spellings(REAL)))
def test_the_known_token_is_masked_in_any_spelling(name):
    text = f"rejected ({spellings(REAL)[name]}) by the Hub"
    shown = redact(text, [REAL])
    assert shown.startswith("rejected (") and shown.endswith(") by the Hub")
    assert MASK in shown and not recoverable(shown, REAL), shown


@pytest.mark.parametrize("name", ["literal", "underscore percent-encoded",
                                  "every character percent-encoded, lower case",
                                  "JSON-escaped", "HTML character references"])
def test_an_unknown_token_shaped_string_is_masked_in_any_encoding(name):
    other = "hf_" + "Ab1" * 12
    shown = redact(f"echo {spellings(other)[name]} end", [REAL])
    assert shown == "echo hf_*** end"


def test_every_fragment_of_eight_characters_is_masked():
    for start in range(len(REAL) - FRAGMENT + 1):
        piece = REAL[start:start + FRAGMENT]
        assert redact(f"a {piece} b", [REAL]) == f"a {MASK} b", piece
    assert redact(f"a {REAL[:FRAGMENT - 1]} b", [REAL]) == f"a {REAL[:FRAGMENT - 1]} b"


def test_prose_around_token_like_words_is_left_alone():
    text = ("hf_transfer is not installed so the upload is slow; see %s, C:\\new and "
            "&amp; in the page")
    assert redact(text, [REAL]) == text
