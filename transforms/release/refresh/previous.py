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
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from apache_beam.io.filesystems import FileSystems

from transforms.core.errors import UsageError
from transforms.release.features import names_schema
from transforms.release.lineage import Lineage, read_lineage
from transforms.release.manifest import schema_description
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
    require_intact(path, deep=True)
    lineage, manifest = read_lineage(path)
    if lineage.dataset != dataset:
        raise RefreshRefused(f"--previous {value}: {path} is a release of "
                             f"{lineage.dataset!r}, not {dataset!r}")
    if lineage.version == version and _same_root(path, output, dataset):
        raise RefreshRefused(f"--previous {value} is {dataset} {version}, the version being "
                             f"written: name an earlier version")
    if schema is not None:
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
    splits = tuple(manifest.get("splits", ()))
    files = tuple(sorted(name for name in manifest.get("files", {})
                         if name.endswith(".parquet") and name.split("/", 1)[0] in splits
                         and name.count("/") == 1))
    return PreviousRelease(path=path, lineage=lineage, splits=splits, files=files,
                           options=manifest.get("options", {}),
                           all_files=tuple(sorted(manifest.get("files", {}))))


def _same_root(path: str, output: str, dataset: str) -> bool:
    """Whether the version directory ``path`` is inside ``<output>/<dataset>`` (compared
    lexically: no link is followed)."""
    parent = FileSystems.split(path.rstrip("/"))[0].rstrip("/")
    root = FileSystems.join(output, dataset).rstrip("/")
    if is_local(parent) and is_local(root):
        return os.path.abspath(parent) == os.path.abspath(root)
    return parent == root


def changed_row_options(previous: PreviousRelease, current: Mapping[str, Any],
                        defaults: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(option, previous value, this run's value)`` of each row-changing option (the keys
    of ``defaults``, by recorded name) whose value differs from what the previous manifest
    records; an option it does not record (added since) had its default."""
    changed = []
    for name, default in defaults.items():
        before = previous.options.get(name, default)
        if before != current.get(name, default):
            changed.append((name, before, current.get(name, default)))
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
