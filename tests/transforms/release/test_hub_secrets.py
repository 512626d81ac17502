"""``hub_secrets.redact``: what publish prints keeps no credential, and reads as before."""

from __future__ import annotations

import pytest

from transforms.release.hub_secrets import redact

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
