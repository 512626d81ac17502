"""Check a published release against its manifest, and list the releases under a root.

``verify_release`` re-hashes every file the manifest lists (size and sha256), re-counts the
rows of every Parquet file from its footer, compares each split's row count and each split
file's schema with the manifest, and reports files the manifest does not list. A single
flipped bit changes a sha256, so a damaged file is always named, also when Parquet would
read it back with silently changed values. ``list_releases`` gives, per dataset and version,
its status (``complete``, ``damaged`` or ``staging``), whether ``LATEST`` points at it, its
creation time and rows per split; ``deep=False`` checks sizes only (no hashing).

The manifest is the one file no checksum covers: one that is unreadable, nested too deeply
or of the wrong shape (``manifest.read_manifest``) makes its release damaged, never a
traceback, and costs ``list_releases`` only that entry. A listed file that is a link or
not a regular file (a FIFO would block) is a problem, never followed nor opened.
``SHA256SUMS`` (``transforms.release.checksums``), when present, must list every file of the
version but itself with the hash the manifest records (the manifest's own hash, and that of
an object store's ``_SUCCESS``, are checked against the file); it is what ``sha256sum -c``
reads. A release written before ``SHA256SUMS`` existed has none and is checked against its
manifest alone (``Verification.sha256sums`` is then ``"absent"``).
``LATEST`` is input too: ``list_releases`` reads it through ``resolve.latest_version``
(list status ``invalid_latest`` for one naming no sibling version).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any

import pyarrow.parquet as pq

from transforms.core.files import FileSystems
from transforms.release.checksums import MAX_SUMS_BYTES, SHA256SUMS, parse_sums
from transforms.release.manifest import ManifestError, read_manifest
from transforms.release.resolve import InvalidLatestError, latest_version
from transforms.release.storage import RAW, is_local, list_files, read_bytes, sha256_of
from transforms.release.target import MANIFEST, STAGING, SUCCESS_MARKER

INVALID_LATEST = "invalid_latest"  # list status: LATEST names no sibling version


class DamagedReleaseError(RuntimeError):
    """A release does not match its manifest; the message names each bad file."""


def require_intact(path: str, deep: bool = True) -> None:
    """Raise ``DamagedReleaseError`` naming every bad file unless the release at ``path``
    matches its manifest: what a consumer calls before it reads a release (``deep=False``:
    sizes and Parquet footers only)."""
    report = verify_release(path, deep=deep)
    if not report.ok:
        problems = "; ".join(f"{f}: {p}" for f, p in report.problems[:10])
        raise DamagedReleaseError(f"release {path} does not match its manifest ({problems}); "
                                  "python -m pipelines.release verify lists every problem")


@dataclass
class Verification:
    """What ``verify_release`` found: ``problems`` as ``(file, what is wrong)``."""

    path: str
    dataset: str = ""
    version: str = ""
    files: int = 0
    sha256sums: str = "absent"  # "checked" when the version has a SHA256SUMS
    problems: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "dataset": self.dataset, "version": self.version,
                "files": self.files, "ok": self.ok, "sha256sums": self.sha256sums,
                "problems": [{"file": f, "problem": p} for f, p in self.problems]}


def _type(text: str) -> str:
    """A type's text without list item names (Parquet stores ``list<item>`` as
    ``list<element>``) or nullability marks."""
    return re.sub(r"list<(item|element): ", "list<", text.replace(" not null", ""))


def _parquet_facts(path: str) -> tuple[int, list[tuple[str, str]]]:
    with FileSystems.open(path, compression_type=RAW) as handle:
        parquet = pq.ParquetFile(handle)
        schema = parquet.schema_arrow
        return parquet.metadata.num_rows, [(f.name, _type(str(f.type))) for f in schema]


def verify_release(path: str, deep: bool = True) -> Verification:
    """Check every file of the release at ``path`` against its ``dataset_info.json``."""
    return _verified(path, deep)[0]


def _verified(path: str, deep: bool) -> tuple[Verification, dict[str, Any]]:
    """The verification and the manifest (``{}`` when it is unreadable or of the wrong
    shape)."""
    report = Verification(path=path)
    try:
        manifest = read_manifest(path)
    except ManifestError as error:  # a bad manifest is a damaged release
        report.problems.append((MANIFEST, str(error)))
        return report, {}
    _check_files(path, manifest, report, deep)
    return report, manifest


def _check_files(path: str, manifest: dict[str, Any], report: Verification,
                 deep: bool) -> None:
    report.dataset, report.version = manifest.get("dataset", ""), manifest.get("version", "")
    listed: dict[str, dict[str, Any]] = manifest.get("files", {})
    present = set(list_files(path))
    for extra in sorted(present - set(listed) - {MANIFEST, SUCCESS_MARKER, SHA256SUMS}):
        report.problems.append((extra, "not in the manifest"))
    expected_schema = [(f["name"], _type(f["type"])) for f in manifest.get("schema", [])]
    splits = set(manifest.get("splits", []))
    rows: dict[str, int] = {}
    first_schema: dict[str, list[tuple[str, str]]] = {}  # tables the manifest does not describe
    for name, entry in sorted(listed.items()):
        report.files += 1
        full = FileSystems.join(path, *name.split("/"))
        split = name.split("/")[0]
        if split in splits and name.endswith(".parquet"):  # a bad file is named once, below
            rows[split] = rows.get(split, 0) + entry.get("rows", 0)
        if name not in present:
            report.problems.append((name, "missing"))
            continue
        strange = _not_a_plain_file(full)
        if strange:  # never followed nor opened: a link may leave the release, a FIFO blocks
            report.problems.append((name, strange))
            continue
        try:
            if deep:
                digest, size = sha256_of(full)
            else:
                size = FileSystems.match([full])[0].metadata_list[0].size_in_bytes
        except OSError as error:  # one unreadable file is one problem, not a failed run
            report.problems.append((name, f"unreadable: {error}"))
            continue
        if deep and digest != entry.get("sha256"):
            report.problems.append((name, f"sha256 {digest[:12]}… differs from the "
                                          f"manifest's {str(entry.get('sha256'))[:12]}…"))
            continue
        if size != entry.get("bytes"):
            report.problems.append((name, f"{size} bytes, the manifest says {entry.get('bytes')}"))
            continue
        if not name.endswith(".parquet"):
            continue
        try:
            count, schema = _parquet_facts(full)
        except Exception as error:  # noqa: BLE001 - pyarrow raises several types
            report.problems.append((name, f"not readable as Parquet: {error}"))
            continue
        if "rows" in entry and count != entry["rows"]:
            report.problems.append((name, f"{count} rows, the manifest says {entry['rows']}"))
        if split in splits:
            same_table = {n for n, _ in schema} == {n for n, _ in expected_schema}
            wanted = expected_schema if same_table else first_schema.setdefault(split, schema)
            if schema != wanted:
                report.problems.append((name, "schema differs from the manifest's"
                                        if same_table else "schema differs from the split's "
                                        "other files"))
    for split, expected in sorted(manifest.get("rows_per_split", {}).items()):
        if rows.get(split, 0) != expected:
            report.problems.append((f"{split}/", f"{rows.get(split, 0)} rows, the manifest "
                                                 f"says {expected}"))
    if SHA256SUMS in present:
        report.sha256sums = "checked"
        named = {name for name, _ in report.problems}  # each bad file is named once
        report.problems += [(name, problem) for name, problem
                            in _sums_problems(path, listed, present, deep) if name not in named]


def _sums_problems(path: str, listed: dict[str, dict[str, Any]], present: set[str],
                   deep: bool) -> list[tuple[str, str]]:
    """Where ``SHA256SUMS`` disagrees with the version: a file it leaves out or lists but
    the version lacks, a hash other than the manifest's (or, for the manifest and
    ``_SUCCESS``, the file's when ``deep``)."""
    full = FileSystems.join(path, SHA256SUMS)
    strange = _not_a_plain_file(full)
    if strange:
        return [(SHA256SUMS, strange)]
    try:
        sums = parse_sums(read_bytes(full, MAX_SUMS_BYTES))
    except (OSError, ValueError) as error:  # ChecksumsError and an oversized file
        return [(SHA256SUMS, f"unreadable: {error}")]
    problems = [(name, f"not in {SHA256SUMS}")
                for name in sorted(present - set(sums) - {SHA256SUMS})]
    for name, digest in sorted(sums.items()):
        if name not in present:
            problems.append((name, f"listed in {SHA256SUMS} but missing"))
        elif name in listed:
            if digest != listed[name].get("sha256"):
                problems.append((name, f"{SHA256SUMS} says sha256 {digest[:12]}…, the "
                                       f"manifest {str(listed[name].get('sha256'))[:12]}…"))
        elif deep and not _not_a_plain_file(FileSystems.join(path, *name.split("/"))):
            actual = sha256_of(FileSystems.join(path, *name.split("/")))[0]
            if actual != digest:
                problems.append((name, f"sha256 {actual[:12]}… differs from {SHA256SUMS}'s "
                                       f"{digest[:12]}…"))
    return problems


def _not_a_plain_file(path: str) -> str | None:
    """Why a local file of a release is not one, without following links."""
    if not is_local(path):
        return None
    try:
        mode = os.lstat(path).st_mode
    except OSError as error:
        return f"unreadable: {error}"
    if stat.S_ISLNK(mode):
        return "a symbolic link, not a file of the release"
    if not stat.S_ISREG(mode):
        return "not a regular file (a FIFO, socket or device)"
    return None


def _previous_version(manifest: dict[str, Any]) -> str | None:
    """The version a release was built on (its manifest's ``previous``), if any."""
    previous = manifest.get("previous")
    return previous.get("version") if isinstance(previous, dict) else None


def list_releases(root: str, deep: bool = False) -> list[dict[str, Any]]:
    """One entry per dataset version (and staging directory) under a release root; a version
    whose manifest is unreadable or of the wrong shape is ``damaged``, a ``LATEST`` naming a
    version that is not there ``missing``, one that names no sibling version
    ``invalid_latest`` (``latest_version``)."""
    entries: list[dict[str, Any]] = []
    names = list_files(root)
    datasets = sorted({n.split("/")[0] for n in names if "/" in n})
    for dataset in datasets:
        dataset_dir = FileSystems.join(root, dataset)
        try:
            latest, bad_latest = latest_version(dataset_dir), None
        except InvalidLatestError as error:
            latest, bad_latest = None, error
        versions = sorted({n.split("/")[1] for n in names
                           if n.startswith(f"{dataset}/") and n.count("/") >= 2})
        for version in versions:
            if version == STAGING:
                staged = sorted({n.split("/")[2] for n in names
                                 if n.startswith(f"{dataset}/{STAGING}/") and n.count("/") >= 3})
                entries += [{"dataset": dataset, "version": s, "status": "staging",
                             "latest": False, "created": None, "rows_per_split": {}}
                            for s in staged]
                continue
            path = FileSystems.join(dataset_dir, version)
            report, manifest = _verified(path, deep)
            entries.append({"dataset": dataset, "version": version,
                            "status": "complete" if report.ok else "damaged",
                            "latest": version == latest, "created": manifest.get("created"),
                            "rows_per_split": manifest.get("rows_per_split", {}),
                            "previous": _previous_version(manifest),
                            "problems": len(report.problems)})
        if latest and latest not in versions:
            entries.append({"dataset": dataset, "version": latest, "status": "missing",
                            "latest": True, "created": None, "rows_per_split": {},
                            "problems": 1})
        if bad_latest is not None:
            entries.append({"dataset": dataset, "version": bad_latest.named,
                            "status": INVALID_LATEST, "latest": True, "created": None,
                            "rows_per_split": {}, "problems": 1, "problem": str(bad_latest)})
    return entries
