"""The release a refresh builds on (``--previous``), checked before any work.

``open_previous`` resolves ``--previous`` (``resolve_release``: a version directory, a dataset
directory meaning its ``LATEST``, or ``auto``), verifies it in full (every checksum: a damaged
previous release is ``DamagedReleaseError``, exit 5, because carried rows are published
again as they are) and refuses, with ``RefreshRefused`` (exit 2), a release of another
dataset, one whose schema differs from the one this code writes, the very version being
written, and a previous release whose row-changing options (``transforms.core.options``,
``rows=True``) differ from this run's, unless ``--recompute-all``. A schema that differs only
in holding the names of this schema's class labels as strings (a release written before those
columns were class labels, ``features.names_schema``) is the same: the writer encodes the
carried names (``features.encode_row``).

Its data files are read before any work only for what their rows say
(``previous_rows.scan_previous``): a class-label value that is no label is exit 5, naming the
file and rows; the ``dataset`` the files' footers record must be the one this code writes;
and the label names a row option's own column holds (JNQ's ``variant``) are what
``changed_row_options`` compares, whatever the manifest says (a JNQ release whose manifest
was edited to say ``jboolq`` is refused). ``PreviousRelease.pinned`` holds the sha256 of
every file as verified: the job reads through it (``checked_read``), so a file changed since
the check fails the run (exit 5) instead of being carried. The very version being written is
recognised through links: paths are compared resolved.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from apache_beam.io.filesystems import FileSystems

from transforms.core.errors import UsageError
from transforms.release.features import names_schema
from transforms.release.lineage import Lineage, read_lineage
from transforms.release.manifest import schema_description
from transforms.release.refresh.checked_read import ChangedSinceVerified, PinnedFiles
from transforms.release.refresh.previous_rows import PreviousRows, scan_previous
from transforms.release.resolve import AUTO, resolve_release
from transforms.release.storage import is_local
from transforms.release.verify import require_intact


class RefreshRefused(UsageError):
    """A ``--previous`` release this run cannot build on (exit 2, before any work)."""


@dataclass(frozen=True)
class PreviousRelease:
    """A verified earlier release of the dataset being built: where it is, what it is."""

    path: str  # the version directory
    lineage: Lineage
    splits: tuple[str, ...]
    files: tuple[str, ...]  # release-relative names of its Parquet files of ``splits``
    options: Mapping[str, Any]  # the options its manifest records
    all_files: tuple[str, ...] = ()  # every file its manifest lists (other formats too)
    pinned: PinnedFiles = field(default_factory=lambda: PinnedFiles(""))  # as verified
    rows: PreviousRows = field(default_factory=PreviousRows)  # what its rows say

    @property
    def label(self) -> str:
        """``nq 2026.11.23`` (for summaries and cards)."""
        return f"{self.lineage.dataset} {self.lineage.version}"

    def split_files(self) -> list[tuple[str, str]]:
        """``(split, release-relative Parquet path)`` of every data file, in name order."""
        return [(name.split("/", 1)[0], name) for name in self.files]


def open_previous(value: str | None, *, output: str, dataset: str, version: str,
                  schema: pa.Schema | None) -> PreviousRelease | None:
    """The release ``--previous value`` names, checked (see the module docstring); ``None``
    without ``--previous``, and for ``auto`` when ``<output>/<dataset>`` has no ``LATEST``
    yet (the first build of a scheduled series)."""
    if not value:
        return None
    path = (resolve_release(AUTO, output=output, dataset=dataset) if value == AUTO
            else resolve_release(value))
    if path is None:
        return None
    lineage, manifest = _verified(path)
    if lineage.dataset != dataset:
        raise RefreshRefused(f"--previous {value}: {path} is a release of "
                             f"{lineage.dataset!r}, not {dataset!r}")
    if _is_written(path, output, dataset, version, lineage.version):
        raise RefreshRefused(f"--previous {value} is {dataset} {version}, the version being "
                             f"written: name an earlier version")
    if schema is not None:
        _refuse_another_schema(value, lineage, manifest, schema)
    splits = tuple(manifest.get("splits", ()))
    files = tuple(sorted(name for name in manifest.get("files", {})
                         if name.endswith(".parquet") and name.split("/", 1)[0] in splits
                         and name.count("/") == 1))
    rows = scan_previous(path, files, schema)
    ours = (schema.metadata or {}).get(b"dataset", b"").decode() if schema is not None else ""
    others = sorted(set(rows.datasets) - {ours}) if ours else []
    if others:
        raise RefreshRefused(f"--previous {value}: the data files of {lineage.dataset} "
                             f"{lineage.version} are {', '.join(map(repr, others))} tables "
                             f"(their Parquet footers), not {ours!r}: rows of another "
                             f"dataset cannot be carried")
    return PreviousRelease(path=path, lineage=lineage, splits=splits, files=files,
                           options=manifest.get("options", {}),
                           all_files=tuple(sorted(manifest.get("files", {}))),
                           pinned=PinnedFiles.of_manifest(path, manifest), rows=rows)


def _verified(path: str) -> tuple[Lineage, dict[str, Any]]:
    """The release at ``path`` verified in full, with the manifest it was verified against:
    one that changed during the check (another fingerprint after than before) is
    ``ChangedSinceVerified``, so the digests pinned are the ones checked."""
    try:
        before = read_lineage(path)[0].fingerprint
    except (OSError, ValueError):
        before = None  # require_intact names what is wrong with it
    require_intact(path, deep=True)
    lineage, manifest = read_lineage(path)
    if lineage.fingerprint != before:
        raise ChangedSinceVerified(f"release {path}: its manifest changed while it was being "
                                   "verified; run again once nothing writes to it")
    return lineage, manifest


def _refuse_another_schema(value: str, lineage: Lineage, manifest: Mapping[str, Any],
                           schema: pa.Schema) -> None:
    """``RefreshRefused`` unless the manifest's schema is ``schema`` (or its legacy names
    layout, ``features.names_schema``)."""
    ours = [(c["name"], c["type"]) for c in schema_description(schema, {})]
    legacy = [(c["name"], c["type"]) for c in schema_description(names_schema(schema), {})]
    theirs = [(c.get("name"), c.get("type")) for c in manifest.get("schema", [])
              if isinstance(c, dict)]
    if theirs not in (ours, legacy):
        changed = sorted({n for n, _ in ours} ^ {n for n, _ in theirs}) or sorted(
            n for (n, t), (_, u) in zip(ours, theirs, strict=False) if t != u)
        raise RefreshRefused(
            f"--previous {value}: {lineage.dataset} {lineage.version} has another schema "
            f"(columns {', '.join(map(str, changed[:5])) or 'in another order'}); rows of "
            f"another schema cannot be carried: build without --previous")


def _is_written(path: str, output: str, dataset: str, version: str, recorded: str) -> bool:
    """Whether the version directory ``path`` is ``<output>/<dataset>/<version>``, the one
    being written, or records ``version`` inside ``<output>/<dataset>``; local paths are
    compared resolved (``os.path.realpath``), so a linked ``--output`` or ``--previous``
    is the directory it leads to."""
    parent = FileSystems.split(path.rstrip("/"))[0].rstrip("/")
    root = FileSystems.join(output, dataset).rstrip("/")
    target = FileSystems.join(root, version)
    if is_local(parent) and is_local(root):
        real = os.path.realpath(path)
        return real == os.path.realpath(target) or (
            recorded == version and os.path.dirname(real) == os.path.realpath(root))
    return path.rstrip("/") == target or (recorded == version and parent == root)


@dataclass(frozen=True)
class InRows:
    """A previous value read from the rows (a class-label column named like the option),
    which the manifest does not record as such."""

    names: tuple[str, ...]
    recorded: Any

    def __repr__(self) -> str:
        held = " and ".join(map(repr, self.names))
        return f"{held} in its rows (its manifest records {self.recorded!r})"


def changed_row_options(previous: PreviousRelease, current: Mapping[str, Any],
                        defaults: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(option, previous value, this run's value)`` of each row-changing option (the keys
    of ``defaults``, by recorded name) whose value differs from what the previous manifest
    records; an option it does not record (added since) had its default. An option whose
    value its rows record too (a top-level class-label column of the same name, this run's
    value one of its names: JNQ's ``variant``) differs when a previous row holds another
    name, whatever the manifest records (``InRows``)."""
    changed = []
    for name, default in defaults.items():
        before, after = previous.options.get(name, default), current.get(name, default)
        held = previous.rows.labels.get(name, ())
        if before != after:
            changed.append((name, before, after))
        elif after in previous.rows.names.get(name, ()) and held and set(held) != {after}:
            changed.append((name, InRows(held, before), after))
    return changed


def refuse_changed_options(previous: PreviousRelease, changed: list[tuple[str, Any, Any]],
                           flags: Mapping[str, str]) -> None:
    """``RefreshRefused`` naming every changed row option (``changed_row_options``) by its
    command-line flag (``flags``: recorded name -> ``--flag``)."""
    if changed:
        details = "; ".join(f"{flags.get(name, name)} was {before!r}, now {after!r}"
                            for name, before, after in changed)
        raise RefreshRefused(
            f"--previous {previous.label}: options that change rows differ ({details}); rows "
            f"cannot be carried. Use the previous values, or pass --recompute-all to rebuild "
            f"every row")
