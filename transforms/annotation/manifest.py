"""Which release is being annotated: its fingerprint, and the export manifest tasks point to.

A release is identified by the first 16 hex digits of the sha256 of its ``dataset_info.json``:
any rebuild, even of the same version, gets another fingerprint. Every exported task and
every simulated vote carries it (``release``), and the import refuses votes that name another
release. ``annotation_export.json`` records what an export wrote (tool, stages, ways, splits,
tasks per stage) next to its tasks.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any

from apache_beam.io.filesystems import FileSystems

from transforms.release import MANIFEST, RAW, NotAReleaseError, read_json, resolve_release

__all__ = ["EXPORT_MANIFEST", "NotAReleaseError", "ReleaseRef", "base_dataset", "read_release",
           "resolve_release"]

EXPORT_MANIFEST = "annotation_export.json"
ANNOTATABLE = {"nq": "nq", "jnq": "jnq", "jboolq": "jboolq"}


@dataclass(frozen=True)
class ReleaseRef:
    """A published release: where it is, what it is, and its fingerprint."""

    path: str
    dataset: str
    version: str
    fingerprint: str
    splits: tuple[str, ...]
    manifest: dict

    def describe(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "version": self.version,
                "fingerprint": self.fingerprint, "path": self.path}


def _read_bytes(path: str) -> bytes:
    with FileSystems.open(path, compression_type=RAW) as handle:
        return handle.read()


def read_release(path: str) -> ReleaseRef:
    """The release at ``path`` (a version directory or a dataset root with ``LATEST``);
    ``NotAReleaseError`` for anything else, a local file included."""
    if "://" not in path and os.path.exists(path) and not os.path.isdir(path):
        raise NotAReleaseError(f"{path} is a file, not a release directory")
    directory = resolve_release(path)
    data = _read_bytes(FileSystems.join(directory, MANIFEST))
    manifest = read_json(FileSystems.join(directory, MANIFEST))
    return ReleaseRef(path=directory, dataset=manifest["dataset"], version=manifest["version"],
                      fingerprint=hashlib.sha256(data).hexdigest()[:16],
                      splits=tuple(manifest.get("splits", ())), manifest=manifest)


def base_dataset(release: ReleaseRef) -> str:
    """nq, jnq or jboolq: what kind of examples the release holds (annotated ones too)."""
    annotates = release.manifest.get("source", {}).get("annotates", {})
    return annotates.get("base_dataset") or release.dataset
