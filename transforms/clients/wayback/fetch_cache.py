"""The cache of fetched captures: one entry per CDX line (URL, timestamp and digest).

Two CDX lines may share a URL and a timestamp and differ in digest; each has its own entry,
keyed by all three, so one is never served the other's payload as verified. Each entry is a
body file and a metadata file (written last: it marks the entry complete) holding the
body's length and SHA-1. Entries written before the digest was part of the key (keyed by
URL and timestamp only) are still read, but only when their payload matches the CDX digest
of the capture asked for (or the capture has none); otherwise the capture is fetched again.
"""

from __future__ import annotations

import hashlib
import json

from filters.text import safe_json
from transforms.clients.cache_store import CacheStore
from transforms.clients.wayback.cdx import CdxCapture
from transforms.clients.wayback.digest import digest_like, normalise_digest
from transforms.clients.wayback.replay import FetchResult


class FetchCache:
    """Fetched captures in a :class:`CacheStore`."""

    def __init__(self, store: CacheStore) -> None:
        self.store = store

    def load(self, capture: CdxCapture) -> FetchResult | None:
        """The cached result of ``capture``, or None when absent, incomplete or not this
        capture's."""
        digest = normalise_digest(capture.digest)
        entry = self._read(self._paths(capture, digest), capture)
        if entry is not None and entry[1] == digest:
            return entry[0]
        if digest is None:
            return None
        legacy = self._read(self._paths(capture, None), capture)
        if legacy is None or digest_like(digest, legacy[0].content) != digest:
            return None
        legacy[0].digest_ok = True  # verified now, for this capture's digest
        return legacy[0]

    def store_result(self, capture: CdxCapture, result: FetchResult) -> None:
        """Write body then metadata; the metadata file marks a complete entry."""
        digest = normalise_digest(capture.digest)
        body, meta_path = self._paths(capture, digest)
        meta = {
            "url": result.url,
            "timestamp": result.timestamp,
            "requested_timestamp": result.requested_timestamp,
            "digest": digest,
            "status": result.status,
            "headers": result.headers,
            "digest_ok": result.digest_ok,
            "length": len(result.content),
            "sha1": hashlib.sha1(result.content).hexdigest(),
        }
        self.store.write(body, result.content)
        self.store.write(meta_path, json.dumps(meta).encode("utf-8"))

    def _paths(self, capture: CdxCapture, digest: str | None) -> tuple[str, str]:
        """Body and metadata paths of a capture's entry (``digest`` None: the key of entries
        written before digests were part of it)."""
        material = f"{capture.timestamp} {capture.original}"
        if digest is not None:
            material += f" {digest}"
        key = hashlib.sha256(material.encode()).hexdigest()
        return (self.store.path("fetch", key[:2], f"{key}.body"),
                self.store.path("fetch", key[:2], f"{key}.json"))

    def _read(self, paths: tuple[str, str],
              capture: CdxCapture) -> tuple[FetchResult, str | None] | None:
        """The entry at ``paths`` and the digest it was stored for (None: none, or an entry
        older than digests in keys), or None when absent or inconsistent."""
        meta = _read_json(self.store, paths[1])
        if meta is None:
            return None
        content = self.store.read(paths[0])
        if content is None:
            return None
        if len(content) != meta.get("length") or hashlib.sha1(content).hexdigest() != meta.get(
                "sha1"):
            return None
        try:
            result = FetchResult(
                url=str(meta["url"]),
                timestamp=str(meta["timestamp"]),
                status=int(meta["status"]),
                content=content,
                headers=dict(meta["headers"]),
                from_cache=True,
                attempts=0,
                digest_ok=meta.get("digest_ok"),
                requested_timestamp=capture.timestamp,
            )
        except (KeyError, TypeError, ValueError):
            return None
        stored_for = meta.get("digest")
        return result, stored_for if isinstance(stored_for, str) else None


def _read_json(cache: CacheStore, path: str) -> dict | None:
    """A JSON cache file; missing or corrupt files (a nesting bomb included) read as None."""
    raw = cache.read(path)
    try:
        data = safe_json.loads(raw) if raw is not None else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
