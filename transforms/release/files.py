"""Versioned, atomic dataset releases written from Beam.

Layout of ``<root>/<dataset>/<version>/``::

    train/train-00000-of-00001.parquet   one directory per split, zstd-compressed Parquet
    dev/...  test/...
    rejected/<kind>/<kind>-00000-of-00001.jsonl   dropped and dead-lettered records
    dataset_info.json   manifest: options, schema, rows per split, sha256 of every file
    stats.json          every drop reason with its count, length statistics
    README.md           data card

The pipeline writes into ``<root>/<dataset>/.staging/<version>-<run id>/``; ``finalize_release``
adds the manifest, stats and card, then renames the staging directory into place, so a crash
leaves no half-written version and an existing version is never replaced without
``overwrite``. Shards are made by us, not by ``WriteToParquet``: rows are assigned to a shard by
a hash of their sort key (a different salt than the split hash), grouped, sorted and written
under fixed names, so the same rows give byte-identical files on every runner.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import shutil
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

PARQUET_COMPRESSION = "zstd"
RAW = CompressionTypes.UNCOMPRESSED  # bytes as written: never let Beam (de)compress ".gz" paths
MANIFEST = "dataset_info.json"
SUCCESS_MARKER = "_SUCCESS"


class ReleaseExistsError(RuntimeError):
    """The requested version exists and ``--overwrite`` was not given."""


@dataclass(frozen=True)
class ReleaseTarget:
    """Where a release goes: ``<root>/<dataset>/<version>`` and its staging directory."""

    root: str
    dataset: str
    version: str
    run_id: str
    code: tuple[tuple[str, str], ...] = ()

    @classmethod
    def create(cls, root: str, dataset: str, version: str) -> ReleaseTarget:
        """A new run's target; the code version (package, git commit) is read here, at launch,
        not on the worker that publishes (which has no checkout on Dataflow)."""
        from transforms.release.docs import code_version

        return cls(root, dataset, version, uuid.uuid4().hex[:12],
                   tuple(sorted(code_version().items())))

    @property
    def final_dir(self) -> str:
        return FileSystems.join(self.root, self.dataset, self.version)

    @property
    def staging_dir(self) -> str:
        return FileSystems.join(self.root, self.dataset, ".staging",
                                f"{self.version}-{self.run_id}")

    def exists(self) -> bool:
        return FileSystems.exists(FileSystems.join(self.final_dir, MANIFEST)) or (
            _is_local(self.final_dir) and os.path.exists(self.final_dir)
        )

    def check_writable(self, overwrite: bool) -> None:
        """Fail before any work when the version exists and may not be replaced."""
        if self.exists() and not overwrite:
            raise ReleaseExistsError(
                f"release {self.final_dir} already exists; choose another --version "
                "or pass --overwrite to replace it"
            )


def _is_local(path: str) -> bool:
    return "://" not in path


def shard_name(group: str, index: int, count: int, extension: str) -> str:
    return f"{group}-{index:05d}-of-{count:05d}.{extension}"


def _stable_int(text: str, salt: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{salt}\x00{text}".encode()).digest()[:8], "big")


def parquet_bytes(rows: list[dict[str, Any]], schema: pa.Schema) -> bytes:
    """Serialize rows with an explicit schema; deterministic for the same rows."""
    table = pa.Table.from_pylist(rows, schema=schema)
    sink = io.BytesIO()
    pq.write_table(table, sink, compression=PARQUET_COMPRESSION)
    return sink.getvalue()


def jsonl_bytes(rows: list[dict[str, Any]], schema: pa.Schema | None = None) -> bytes:
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n"
                   for r in rows).encode("utf-8")


def write_bytes(path: str, data: bytes) -> None:
    with FileSystems.create(path, compression_type=RAW) as handle:
        handle.write(data)


class WriteShards(beam.PTransform):
    """Write ``(group, row)`` elements as sorted, hash-sharded files under ``directory``.

    ``group`` is a split name (or a reject kind); each group gets
    ``ceil(rows / max_rows_per_shard)`` shards. Emits ``(group, relative path, rows)``.
    """

    def __init__(self, directory: str, sort_key: Callable[[dict], str],
                 serializer: Callable[[list[dict], Any], bytes], extension: str,
                 schema: pa.Schema | None = None, max_rows_per_shard: int = 50_000,
                 subdir: str = "", shard_salt: str = "shard"):
        super().__init__()
        self.directory = directory
        self.sort_key = sort_key
        self.serializer = serializer
        self.extension = extension
        self.schema = schema
        self.max_rows = max(1, max_rows_per_shard)
        self.subdir = subdir
        self.shard_salt = shard_salt

    def expand(self, rows):
        counts = (rows
                  | "CountPerGroup" >> beam.Map(lambda kv: (kv[0], 1))
                  | "SumPerGroup" >> beam.CombinePerKey(sum))
        sort_key, salt, max_rows = self.sort_key, self.shard_salt, self.max_rows

        def assign(kv, totals):
            group, row = kv
            shards = max(1, math.ceil(totals[group] / max_rows))
            return (group, _stable_int(sort_key(row), salt) % shards, shards), row

        return (rows
                | "AssignShard" >> beam.Map(assign, totals=beam.pvalue.AsDict(counts))
                | "GroupShard" >> beam.GroupByKey()
                | "WriteShard" >> beam.Map(self._write))

    def _write(self, element):
        (group, index, count), rows = element
        ordered = sorted(rows, key=self.sort_key)
        relative = "/".join(p for p in (self.subdir, group,
                                        shard_name(group, index, count, self.extension)) if p)
        write_bytes(FileSystems.join(self.directory, *relative.split("/")),
                    self.serializer(ordered, self.schema))
        return group, relative, len(ordered)


class WriteJson(beam.PTransform):
    """Write the single element of a PCollection as pretty JSON to ``path``."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def expand(self, pcoll):
        path = self.path
        return pcoll | beam.Map(lambda obj: write_bytes(
            path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False).encode()))


def sha256_of(path: str) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with FileSystems.open(path, compression_type=RAW) as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def list_files(directory: str) -> list[str]:
    """Relative paths of all files below ``directory``, sorted."""
    prefix = directory.rstrip("/") + "/"
    matches = FileSystems.match([prefix + "**"])[0].metadata_list
    return sorted(m.path[len(prefix):] for m in matches)


def read_json(path: str) -> Any:
    with FileSystems.open(path, compression_type=RAW) as handle:
        return json.loads(handle.read().decode("utf-8"))


def read_group_rows(directory: str, group: str) -> list[dict[str, Any]]:
    """Rows of every Parquet file below ``<directory>/<group>/`` (any Beam filesystem)."""
    rows: list[dict[str, Any]] = []
    for name in list_files(directory):
        if name.startswith(f"{group}/") and name.endswith(".parquet"):
            path = FileSystems.join(directory, *name.split("/"))
            with FileSystems.open(path, compression_type=RAW) as handle:
                rows += pq.read_table(io.BytesIO(handle.read())).to_pylist()
    return rows


def ensure_empty_splits(staging_dir: str, splits: Iterable[str], schema: pa.Schema) -> None:
    """Every split exists in a release, with a zero-row file when it got no rows."""
    present = {p.split("/")[0] for p in list_files(staging_dir)}
    for split in splits:
        if split not in present:
            write_bytes(FileSystems.join(staging_dir, split, shard_name(split, 0, 1, "parquet")),
                        parquet_bytes([], schema))


def file_manifest(staging_dir: str) -> dict[str, dict[str, Any]]:
    """sha256, size (and Parquet row count) of every file of the staged release."""
    files: dict[str, dict[str, Any]] = {}
    for relative in list_files(staging_dir):
        path = FileSystems.join(staging_dir, *relative.split("/"))
        digest, size = sha256_of(path)
        entry: dict[str, Any] = {"sha256": digest, "bytes": size}
        if relative.endswith(".parquet"):
            with FileSystems.open(path, compression_type=RAW) as handle:
                entry["rows"] = pq.ParquetFile(handle).metadata.num_rows  # footer only
        files[relative] = entry
    return files


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def finalize_release(target: ReleaseTarget, overwrite: bool, manifest: bytes) -> str:
    """Write the manifest (the completion marker, always last), then move into place and
    point ``<root>/<dataset>/LATEST`` at the version.

    Safe to retry: a retried step that finds this run's release already in place (same
    ``run_id`` in the published manifest) only refreshes ``LATEST``. Everything else (splits,
    stats, card) must already be in the staging directory.
    """
    if not _is_staged(target) and published_run_id(target) == target.run_id:
        write_latest(target)
        return target.final_dir
    write_bytes(FileSystems.join(target.staging_dir, MANIFEST), manifest)
    target.check_writable(overwrite)
    if _is_local(target.final_dir):
        _move_local(target, overwrite)
    else:
        _move_remote(target)
    write_latest(target)
    return target.final_dir


def _is_staged(target: ReleaseTarget) -> bool:
    return FileSystems.exists(target.staging_dir) and bool(list_files(target.staging_dir))


def published_run_id(target: ReleaseTarget) -> str | None:
    """The ``run_id`` recorded in the published manifest, if the version is published."""
    path = FileSystems.join(target.final_dir, MANIFEST)
    return read_json(path).get("run_id") if FileSystems.exists(path) else None


def latest_path(root: str, dataset: str) -> str:
    return FileSystems.join(root, dataset, "LATEST")


def write_latest(target: ReleaseTarget) -> None:
    """``LATEST`` holds the most recently published version (written only after success)."""
    write_bytes(latest_path(target.root, target.dataset), f"{target.version}\n".encode())


def _move_local(target: ReleaseTarget, overwrite: bool) -> None:
    final, staging = target.final_dir, target.staging_dir
    os.makedirs(os.path.dirname(final), exist_ok=True)
    retired = None
    if os.path.exists(final):
        if not overwrite:
            raise ReleaseExistsError(f"release {final} appeared during the run")
        retired = f"{staging}.replaced"
        os.rename(final, retired)
    os.rename(staging, final)
    if retired:
        shutil.rmtree(retired)
    _remove_empty_staging(os.path.dirname(staging))


def _remove_empty_staging(staging_root: str) -> None:
    try:
        os.rmdir(staging_root)
    except OSError:
        pass


def _move_remote(target: ReleaseTarget) -> None:
    """Object stores have no directory rename: copy every file, the manifest last, then
    ``_SUCCESS``. A retry skips files a failed attempt already moved."""
    files = [f for f in list_files(target.staging_dir) if f != MANIFEST] + [MANIFEST]
    for name in files:
        source = FileSystems.join(target.staging_dir, *name.split("/"))
        destination = FileSystems.join(target.final_dir, *name.split("/"))
        if FileSystems.exists(source):
            if FileSystems.exists(destination):
                FileSystems.delete([destination])
            if _is_local(destination):  # object stores have no directories to create
                os.makedirs(os.path.dirname(destination), exist_ok=True)
            FileSystems.rename([source], [destination])
    write_bytes(FileSystems.join(target.final_dir, SUCCESS_MARKER), b"")


def discard_staging(target: ReleaseTarget) -> None:
    """Remove the staging directory of a failed run (best effort)."""
    if _is_local(target.staging_dir):
        shutil.rmtree(target.staging_dir, ignore_errors=True)
        _remove_empty_staging(os.path.dirname(target.staging_dir))
    elif FileSystems.exists(target.staging_dir):
        FileSystems.delete([target.staging_dir])
