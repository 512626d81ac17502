"""The record every page source emits: one captured web page."""

from __future__ import annotations

from dataclasses import dataclass

from transforms.clients.wayback.digest import normalise_digest, sha1_base32


@dataclass(frozen=True)
class CapturedPage:
    """Raw bytes of one capture with where and when it was captured.

    ``timestamp`` is the Wayback form ``YYYYMMDDhhmmss`` (empty when unknown); ``source``
    names the input (``sample:<file>``, a file path, ``warc:<file>#<offset>``, ``wayback``).
    ``digest`` is the payload digest the archive gave (the Wayback CDX's); empty when the
    page came from a file, whose digest ``payload_digest`` computes the same way.
    """

    url: str
    timestamp: str
    content: bytes
    source: str
    content_type: str = ""
    digest: str = ""

    def payload_digest(self) -> str:
        """The capture's digest as the Wayback CDX gives it: base32 SHA-1 of the payload
        (``cdx_digest`` of the archive's when it gave one)."""
        return cdx_digest(self.digest) if self.digest else sha1_base32(self.content)

    def describe(self) -> dict[str, str]:
        """Identifying fields for dead letters and rejects (no payload)."""
        return {"url": self.url, "timestamp": self.timestamp, "source": self.source}


def cdx_digest(digest: str) -> str:
    """A CDX digest in one comparable form: upper-case base32 without ``sha1:`` (as
    ``sha1_base32`` writes it); a value that is no digest (``-``) is kept as it is."""
    return normalise_digest(digest) or digest.strip()
