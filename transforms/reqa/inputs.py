"""What ``--input`` names: the bundled sample of a source, a glob of input files, or a release
(a version directory, or a dataset directory whose ``LATEST`` names one, resolved by
``transforms.release.resolve_release``), and the file glob read for it."""

from __future__ import annotations

import os

from apache_beam.io.filesystems import FileSystems

from transforms.core.samples import sample_path as _sample_path
from transforms.release import (
    InvalidLatestError,
    NotAReleaseError,
    read_json,
    resolve_release,
)
from transforms.release.lineage import read_lineage
from transforms.release.simulated import derived_record

SAMPLES = {"squad": "squad_sample.json", "nq": "nq_sample.jsonl.gz"}


def sample_path(source: str) -> str:
    """The bundled sample of ``source`` (team-written; no sample for nlquad)."""
    return _sample_path("reqa", SAMPLES[source])


def _is_dir(path: str) -> bool:
    if "*" in path or "?" in path or "[" in path:
        return False
    if "://" not in path:
        return os.path.isdir(path)
    return bool(FileSystems.match([path.rstrip("/") + "/*"])[0].metadata_list)


def resolve_input(source: str, path: str | None, split: str = "") -> str:
    """The file glob to read for ``--input`` (see ``--help``)."""
    if not path:
        if source not in SAMPLES:
            raise ValueError(f"--source {source} needs --input (a release directory or glob)")
        return sample_path(source)
    if not _is_dir(path):
        return path
    root = _release_dir(path) or path.rstrip("/")  # else a directory of input files
    part = split or "*"
    if source == "nq":
        if FileSystems.exists(FileSystems.join(root, "nq_original")):
            return FileSystems.join(root, "nq_original", part, "*.jsonl*")
        return FileSystems.join(root, "*.jsonl*")
    if source == "nlquad":
        return FileSystems.join(root, part, "*.parquet")
    return FileSystems.join(root, "*.json")


def release_of(path: str | None) -> str | None:
    """The release version directory ``--input`` names, if it names one."""
    if not path or not _is_dir(path):
        return None
    return _release_dir(path)


def _release_dir(path: str) -> str | None:
    """The version directory a directory means (itself, or its ``LATEST``'s version:
    ``resolve_release``), ``None`` when it is no release; a ``LATEST`` naming no sibling
    version raises ``InvalidLatestError`` (a usage error, exit 2)."""
    try:
        return resolve_release(path)
    except InvalidLatestError:
        raise
    except NotAReleaseError:
        return None


def input_simulated(version_dir: str) -> dict | None:
    """The simulated-annotations record a release built from the release at ``version_dir``
    carries (``transforms.release.simulated``), ``None`` when its annotations are not
    simulated. An unreadable ``stats.json`` only loses the check for releases that predate
    the manifest's ``simulated`` key."""
    lineage, manifest = read_lineage(version_dir)
    try:
        stats = read_json(FileSystems.join(version_dir, "stats.json"))
    except (OSError, ValueError):
        stats = None
    return derived_record(manifest, stats if isinstance(stats, dict) else None,
                          lineage.fingerprint)
