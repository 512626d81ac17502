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
It imports ``transforms.core`` and ``filters``; pipelines import it through the names below.
"""

from transforms.release.accounting import HistogramFn, WriteAccounting
from transforms.release.card import CardInfo, DatasetCard, baseline_table, md_text
from transforms.release.commit import LatestMovedError, LatestNotUpdatedError
from transforms.release.formats import jsonl_bytes, parquet_bytes, to_json_bytes
from transforms.release.manifest import parquet_rows, recorded_options, rows_in_split_order
from transforms.release.resolve import (
    AUTO,
    InvalidLatestError,
    NotAReleaseError,
    latest_version,
    resolve_release,
)
from transforms.release.run import EmptyReleaseError, publish, published, run_release
from transforms.release.shards import (
    ShardFormat,
    WriteJson,
    WriteShards,
    ensure_empty_splits,
    iter_group_rows,
    read_group_rows,
)
from transforms.release.stats import group_tallies, length_statistics, top_prefixes
from transforms.release.storage import RAW, list_files, read_json, write_bytes
from transforms.release.target import (
    MANIFEST,
    InvalidReleaseName,
    InvalidReleaseRoot,
    ReleaseExistsError,
    ReleaseTarget,
    check_name,
    check_release_root,
    latest_path,
)
from transforms.release.verify import (
    DamagedReleaseError,
    list_releases,
    require_intact,
    verify_release,
)

__all__ = [
    "AUTO", "baseline_table", "CardInfo", "check_name", "check_release_root", "DamagedReleaseError",
    "DatasetCard", "EmptyReleaseError", "ensure_empty_splits", "group_tallies", "HistogramFn",
    "InvalidLatestError", "InvalidReleaseName", "InvalidReleaseRoot", "iter_group_rows",
    "jsonl_bytes", "latest_path", "latest_version", "LatestMovedError", "LatestNotUpdatedError",
    "length_statistics", "list_files", "list_releases", "MANIFEST", "md_text",
    "NotAReleaseError", "parquet_bytes", "parquet_rows", "publish", "published", "RAW",
    "read_group_rows", "read_json",
    "recorded_options", "ReleaseExistsError", "ReleaseTarget", "require_intact", "resolve_release",
    "rows_in_split_order", "run_release", "to_json_bytes", "top_prefixes", "verify_release",
    "ShardFormat", "write_bytes", "WriteAccounting", "WriteJson", "WriteShards",
]
