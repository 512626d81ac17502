"""CDX payload digests: base32 SHA-1 and the forms the CDX server writes them in.

The CDX ``digest`` column is the base32-encoded SHA-1 of the capture's payload, sometimes with
a ``sha1:`` prefix, lower-cased, or as 40 hex digits. :func:`normalise_digest` brings it to one
comparable form (or None when it cannot be checked, e.g. ``-``) and :func:`digest_like` hashes
a payload in that same form.
"""

from __future__ import annotations

import base64
import hashlib


def sha1_base32(data: bytes) -> str:
    """The CDX digest format: base32-encoded SHA-1 of the payload."""
    return base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def normalise_digest(digest: str) -> str | None:
    """Upper-case digest without a ``sha1:`` prefix; None when it cannot be checked."""
    value = digest.strip()
    if value.lower().startswith("sha1:"):
        value = value[5:]
    value = value.upper()
    return value if len(value) in (32, 40) else None


def digest_like(expected: str, data: bytes) -> str:
    """SHA-1 of ``data`` in the same encoding as ``expected`` (base32, or hex for 40 chars)."""
    if len(expected) == 40:
        return hashlib.sha1(data).hexdigest().upper()
    return sha1_base32(data)
