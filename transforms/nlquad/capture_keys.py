"""What "the same capture" is for a refresh of NLQuAD (``--previous``), and the keys it uses.

One input of NLQuAD is a capture: a page at a URL, archived at a timestamp, whose payload has
a digest (base32 SHA-1, the Wayback CDX's ``digest``; the file sources compute it the same
way, ``CapturedPage.payload_digest``). A capture is unchanged when the previous release has
one with the same URL, timestamp and digest; its rows are then carried as they are.

A published row names its capture (``capture_url``, ``capture_timestamp``) but not its
digest, and a new column would change the schema of every release. The digest is in the
release's refresh sidecar instead (``transforms.nlquad.sidecar``: one record per document,
checksummed by the manifest like every file), and the keys are:

* a row's key is its capture id, ``<capture_url> TAB <capture_timestamp>`` (``row_key``).
  Within one release the id names one document: capture deduplication keeps a single
  capture per article, and the article (asset key) is a function of the URL;
* a unit's key (``unit_key``) is that same id when the previous sidecar records the id with
  the same digest, and the id followed by the digest otherwise (a new capture, or the same
  URL and timestamp with other bytes). No previous row has such a key, so its rows are never
  carried: the capture is processed, and its rows count as new or, when the previous release
  had rows of the same id, as recomputed.

Reading the digest from the previous release's own, verified sidecar rather than from the
rows keeps the check exact without refetching anything; a previous release without a
sidecar cannot say which captures are unchanged, so a refresh on it is refused
(``--recompute-all`` rebuilds every row instead).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SEPARATOR = "\t"


def capture_id(url: str, timestamp: str) -> str:
    """The id of a capture by URL and timestamp (a row's key)."""
    return f"{url}{SEPARATOR}{timestamp}"


KEY_COLUMNS = ("capture_url", "capture_timestamp")  # what row_key reads


def row_key(row: Mapping[str, Any]) -> str:
    """The key of a published row: the id of the capture its text comes from."""
    return capture_id(row["capture_url"], row["capture_timestamp"])


def unit_key(url: str, timestamp: str, digest: str, previous_digest: str | None) -> str:
    """The key of a capture this run has: its id when ``previous_digest`` (the previous
    sidecar's digest of that id, None when it has none) is the same digest, else the id and
    the digest, a key no previous row has (see the module docstring)."""
    key = capture_id(url, timestamp)
    return key if previous_digest == digest else f"{key}{SEPARATOR}{digest}"
