"""Which release a version was built on: fingerprints and the ``previous`` chain.

A release is identified by its *fingerprint*, the first 16 hex digits of the sha256 of its
``dataset_info.json``: any rebuild, even of the same version, gets another one. A version
built with ``--previous`` records the release it carried rows from in its manifest::

    "previous": {"dataset": "nq", "version": "2026.11.23", "fingerprint": "3f0c..."}

``ancestors`` walks that chain through the sibling version directories of the same dataset
directory, checking each fingerprint, so a reader can tell whether a release descends from
another (``annotate import --previous`` refuses annotations of a release that is not an
ancestor). A link of the chain whose directory is gone or rebuilt (another fingerprint) ends
the walk: what cannot be checked is not claimed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from transforms.core.files import FileSystems
from transforms.release.manifest import parse_manifest
from transforms.release.storage import read_bytes
from transforms.release.target import MANIFEST, InvalidReleaseName, check_name

PREVIOUS = "previous"  # the manifest key
MAX_ANCESTORS = 10_000  # a chain longer than this is a loop


def release_fingerprint(manifest_bytes: bytes) -> str:
    """The fingerprint of a release from the bytes of its ``dataset_info.json``."""
    return hashlib.sha256(manifest_bytes).hexdigest()[:16]


@dataclass(frozen=True)
class Lineage:
    """One release of a chain: dataset, version and fingerprint."""

    dataset: str
    version: str
    fingerprint: str

    def to_dict(self) -> dict[str, str]:
        """The manifest's ``previous`` value."""
        return {"dataset": self.dataset, "version": self.version,
                "fingerprint": self.fingerprint}

    @classmethod
    def from_dict(cls, value: Any) -> Lineage | None:
        """A manifest's ``previous`` value, or ``None`` when it is absent or malformed."""
        if not isinstance(value, dict):
            return None
        parts = [value.get(key) for key in ("dataset", "version", "fingerprint")]
        if not all(isinstance(part, str) and part for part in parts):
            return None
        return cls(*parts)


def read_lineage(version_dir: str) -> tuple[Lineage, dict[str, Any]]:
    """The release at ``version_dir`` as a ``Lineage``, with its parsed manifest
    (``ManifestError``/``OSError`` when it cannot be read)."""
    data = read_bytes(FileSystems.join(version_dir, MANIFEST))
    manifest = parse_manifest(data)
    return (Lineage(str(manifest.get("dataset", "")), str(manifest.get("version", "")),
                    release_fingerprint(data)), manifest)


def ancestors(version_dir: str) -> Iterator[Lineage]:
    """The releases ``version_dir`` descends from, nearest first, as far as they can be
    checked: each ``previous`` must name a plain version name whose sibling directory holds
    a manifest of that dataset with that fingerprint."""
    dataset_dir = FileSystems.split(version_dir.rstrip("/"))[0]
    _, manifest = read_lineage(version_dir)
    seen: set[str] = set()
    for _ in range(MAX_ANCESTORS):
        link = Lineage.from_dict(manifest.get(PREVIOUS))
        if link is None or link.fingerprint in seen:
            return
        seen.add(link.fingerprint)
        try:
            check_name(link.version, "version")
            found, manifest = read_lineage(FileSystems.join(dataset_dir, link.version))
        except (InvalidReleaseName, OSError, ValueError):
            yield link  # recorded, but its directory cannot be checked: the chain ends here
            return
        if found != link:
            yield link
            return
        yield link
