"""Which release is being annotated: its fingerprint, and the export manifest tasks point to.

A release is identified by its fingerprint (``transforms.release.lineage.release_fingerprint``:
the first 16 hex digits of the sha256 of its ``dataset_info.json``): any rebuild, even of the
same version, gets another one. Every exported task and every simulated vote carries it
(``release``), and the import refuses votes that name another release.
``annotation_export.json`` records what an export wrote (tool, stages, ways, splits, tasks per
stage) next to its tasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transforms.core.files import FileSystems
from transforms.release import (
    MANIFEST,
    DamagedReleaseError,
    InvalidLatestError,
    NotAReleaseError,
    resolve_release,
)
from transforms.release.lineage import release_fingerprint
from transforms.release.manifest import ManifestError, parse_manifest
from transforms.release.storage import read_bytes

__all__ = ["EXPORT_MANIFEST", "InvalidLatestError", "NotAReleaseError", "ReleaseRef",
           "base_dataset", "read_release", "resolve_release"]

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


def read_release(path: str) -> ReleaseRef:
    """The release at ``path`` (a version directory or a dataset root with ``LATEST``:
    ``resolve_release``); ``NotAReleaseError`` for anything else, a local file included,
    ``InvalidLatestError`` for a ``LATEST`` naming no sibling release, and
    ``DamagedReleaseError`` for a manifest that is unreadable, too deep or of the wrong shape
    (``read_manifest``)."""
    directory = resolve_release(path)
    try:
        data = read_bytes(FileSystems.join(directory, MANIFEST))
        manifest = parse_manifest(data)
    except (OSError, ValueError) as error:  # ManifestError, JsonTooLarge
        message = error if isinstance(error, ManifestError) else f"unreadable: {error}"
        raise DamagedReleaseError(f"{directory}: {MANIFEST} {message}") from error
    return ReleaseRef(path=directory, dataset=manifest.get("dataset", ""),
                      version=manifest.get("version", ""),
                      fingerprint=release_fingerprint(data),
                      splits=tuple(manifest.get("splits", ())), manifest=manifest)


def base_dataset(release: ReleaseRef) -> str:
    """nq, jnq or jboolq: what kind of examples the release holds (annotated ones too)."""
    annotates = release.manifest.get("source", {}).get("annotates", {})
    return annotates.get("base_dataset") or release.dataset
