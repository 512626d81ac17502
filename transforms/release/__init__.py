"""Versioned, checksummed, atomic dataset releases written from Beam.

Layout of ``<root>/<dataset>/<version>/``::

    train/train-00000-of-00001.parquet   one directory per split, zstd-compressed Parquet
    dev/...  test/...
    rejected/<kind>/<kind>-00000-of-00001.jsonl   dropped and dead-lettered records
    dataset_info.json   manifest: options, schema, rows per split, sha256 of every file
    stats.json          every drop reason with its count, length statistics
    README.md           data card, with the Hub's YAML front matter
    croissant.json      MLCommons Croissant 1.1 metadata

A pipeline declares its release with a ``ReleaseTarget``, writes rows with ``WriteShards`` and
its accounting with ``WriteAccounting``, and hands ``run_release`` a ``publish`` step. The job
writes into ``<root>/<dataset>/.staging/<version>-<run id>/`` (owned through a
``<version>-<run id>.owner`` marker beside it); publishing adds the stats, the card and the
manifest last, then moves the directory into place and atomically points ``LATEST`` at it,
and the dataset directory's card (``<root>/<dataset>/README.md``, its ``configs`` those of the
version ``LATEST`` names) with it: the one file a release writes outside its version.

Errors, all raised before any work except the last three: ``InvalidReleaseName`` (a dataset,
version or split that is not one safe path component, or a reserved name),
``InvalidReleaseRoot`` (``--output`` is a file, a directory that is not a release root, or not
writable; its dataset directory or ``.staging`` is a symbolic link; the version to replace
does not carry our manifest), ``ReleaseExistsError`` (the version exists without
``--overwrite``; checked again at the rename), ``EmptyReleaseError`` (no split has a row,
without ``allow_empty``) and ``LatestNotUpdatedError`` (the version was published but
``LATEST`` could not be written). Nothing below ``--output`` is followed through a link. Each
run first restores a version a killed ``--overwrite`` left retired and removes abandoned
staging directories and ``LATEST`` temporaries (``staging``); ``--skip-existing`` repairs a
stale ``LATEST``. ``stats.json`` counts dead-letter records per stage as
``<stage>.dead_lettered``.

This package's modules, lowest first (each imports only those before it): ``storage`` (bytes
on any Beam filesystem), ``formats`` (Parquet/JSON bytes), ``provenance`` (code version,
time), ``target`` (names, root and paths, the overwrite check), ``resolve`` (the version a
path means: a version, a dataset's ``LATEST`` or ``auto``), ``staging`` (ownership markers,
abandoned staging, interrupted overwrites), ``shards`` (sorted, hash-sharded group files),
``accounting`` (tallies, histograms, rejects), ``stats``, ``manifest``, ``card``
(``CardInfo``, ``DatasetCard``), ``simulated`` (the manifest's record of simulated
annotations, which releases built from one copy), ``tables`` (the Parquet tables as HF configs
and splits), ``hub`` (the card's YAML front matter), ``card_sections`` (the sections every
card shares), ``croissant`` (``croissant.json``), ``normalize``, ``diff`` (two versions),
``leakage`` (within a release and against evaluation sets), ``verify`` (a published release
against its manifest; the releases under a root), ``dataset_card`` (the dataset directory's
card, a pointer to ``LATEST``), ``locks`` (``flock``'d lock files in a dataset directory),
``commit`` (manifest last, rename or copy, ``LATEST`` and the dataset card),
``failed_run`` (what a run that kept no row leaves for inspection) and ``run``.
It imports ``transforms.core`` and ``filters``; pipelines import it through the names below,
each module imported when one of its names is first used.
"""

from __future__ import annotations

import importlib
from typing import Any

# Public name -> the module of this package that defines it. The package imports a module
# when one of its names is first asked for (``from transforms.release import X``), so a
# command that reads a release (``annotate next``) does not import the Beam stages of
# ``run``, ``shards`` and ``accounting``, and with them Apache Beam (about a second of CPU).
_SUBMODULE = {
    "HistogramFn": "accounting", "WriteAccounting": "accounting",
    "CardInfo": "card", "DatasetCard": "card", "baseline_table": "card", "md_text": "card",
    "LatestMovedError": "commit", "LatestNotUpdatedError": "commit",
    "jsonl_bytes": "formats", "parquet_bytes": "formats", "to_json_bytes": "formats",
    "parquet_rows": "manifest", "recorded_options": "manifest",
    "rows_in_split_order": "manifest",
    "AUTO": "resolve", "InvalidLatestError": "resolve", "NotAReleaseError": "resolve",
    "latest_version": "resolve", "resolve_release": "resolve",
    "EmptyReleaseError": "run", "publish": "run", "published": "run", "run_release": "run",
    "GroupCounts": "shards", "ShardFormat": "shards", "WriteShards": "shards",
    "ensure_empty_splits": "shards", "iter_group_rows": "shards", "read_group_rows": "shards",
    "group_tallies": "stats", "length_statistics": "stats", "top_prefixes": "stats",
    "RAW": "storage", "list_files": "storage", "read_json": "storage",
    "write_bytes": "storage",
    "MANIFEST": "target", "InvalidReleaseName": "target", "InvalidReleaseRoot": "target",
    "ReleaseExistsError": "target", "ReleaseTarget": "target", "check_name": "target",
    "check_release_root": "target", "latest_path": "target",
    "DamagedReleaseError": "verify", "list_releases": "verify", "require_intact": "verify",
    "verify_release": "verify",
}
__all__ = sorted(_SUBMODULE)


def __getattr__(name: str) -> Any:
    """A public name, from the module that defines it (imported now, kept from then on)."""
    module = _SUBMODULE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
