"""The record every page source emits: one captured web page."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CapturedPage:
    """Raw bytes of one capture with where and when it was captured.

    ``timestamp`` is the Wayback form ``YYYYMMDDhhmmss`` (empty when unknown); ``source``
    names the input (``sample:<file>``, a file path, ``warc:<file>#<offset>``, ``wayback``).
    """

    url: str
    timestamp: str
    content: bytes
    source: str
    content_type: str = ""

    def describe(self) -> dict[str, str]:
        """Identifying fields for dead letters and rejects (no payload)."""
        return {"url": self.url, "timestamp": self.timestamp, "source": self.source}
