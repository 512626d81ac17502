"""Hash-sharded, sorted files of a release's groups (splits, reject kinds), and reading them back.

Shards are made by us, not by ``WriteToParquet``: rows are assigned to a shard by a hash of
their sort key (a different salt than the split hash), grouped, sorted and written under fixed
names, so the same rows give byte-identical files on every runner. A group becomes a directory
name, so it must be a plain name (``target.check_name``): ``InvalidReleaseName`` otherwise.
Rows may also come as Arrow record batches (a refresh's carried rows,
``transforms.release.batch_rows``) when the sort key is a column (``sort_column``): the files
are the same bytes. A release published in several formats (NQ's Parquet and
``nq_original``) writes each shard's files from one grouping (``also``): shard i holds the
same rows in the same order in every format, and the shuffle moves each row once.

Every shard's rows are counted again after the shuffle and checked against the rows counted
before it, per group and format: a runner that loses rows between the two (the DirectRunner's
``multi_processing`` mode did, at 50,000 NQ examples: docs/guides/running.md) fails the job
with ``ReleaseInvariantError`` (``rows_lost``, exit 5) before anything is published.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from transforms.release.batch_rows import is_batch, merged_table, row_count, split_batch
from transforms.release.formats import parquet_bytes, shard_name, table_bytes
from transforms.release.invariants import ROWS_LOST, ReleaseInvariantError
from transforms.release.storage import RAW, list_files, write_bytes
from transforms.release.target import check_name


def _stable_int(text: str, salt: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{salt}\x00{text}".encode()).digest()[:8], "big")


def shard_count(rows: int, max_rows_per_shard: int) -> int:
    """How many shards ``WriteShards`` writes a group of ``rows`` rows in."""
    return max(1, math.ceil(rows / max(1, max_rows_per_shard)))


@dataclass(frozen=True)
class ShardFormat:
    """One more file format of a shard's rows (``WriteShards(also=...)``)."""

    serializer: Callable[[list[Any], Any], bytes]
    extension: str
    schema: pa.Schema | None = None
    subdir: str = ""
    namer: Callable[[str, int, int, str], str] = shard_name


class GroupCounts(beam.PTransform):
    """``(group, rows)`` of ``(group, row)`` elements, a record batch counting its rows."""

    def expand(self, rows):
        return (rows
                | "CountPerGroup" >> beam.Map(lambda kv: (kv[0], row_count(kv[1])))
                | "SumPerGroup" >> beam.CombinePerKey(sum))


class WriteShards(beam.PTransform):
    """Write ``(group, row)`` elements as sorted, hash-sharded files under ``directory``.

    ``group`` is a split name (or a reject kind); each group gets
    ``ceil(rows / max_rows_per_shard)`` shards, named by ``namer(group, index, count,
    extension)`` (``<group>-00000-of-00003.<extension>`` by default). Emits ``(group,
    relative path, rows)``. With ``sort_column`` (the column ``sort_key`` reads) and a
    ``schema``, a row may also be a ``pa.RecordBatch`` of rows (``batch_rows``): a shard
    that got one is written by ``formats.table_bytes``, the bytes ``serializer`` gives the
    same rows as dicts when it is ``parquet_bytes``. Each ``also`` format writes the same
    rows (not record batches) in the same order; its files are emitted too. ``counts``: the
    rows' ``GroupCounts``, when a stage before this one already counted them (the check
    after the shuffle then holds against that count).
    """

    def __init__(self, directory: str, sort_key: Callable[[dict], str],
                 serializer: Callable[[list[dict], Any], bytes], extension: str,
                 schema: pa.Schema | None = None, max_rows_per_shard: int = 50_000,
                 subdir: str = "", shard_salt: str = "shard",
                 namer: Callable[[str, int, int, str], str] = shard_name,
                 sort_column: str | None = None, also: Sequence[ShardFormat] = (),
                 counts=None):
        super().__init__()
        self.counts = counts
        self.formats = (ShardFormat(serializer, extension, schema, subdir, namer), *also)
        self.sort_column = sort_column
        self.directory = directory
        self.sort_key = sort_key
        self.max_rows = max(1, max_rows_per_shard)
        self.shard_salt = shard_salt

    def expand(self, rows):
        counts = self.counts if self.counts is not None else rows | GroupCounts()
        sort_key, salt, max_rows = self.sort_key, self.shard_salt, self.max_rows
        column = self.sort_column

        def assign(kv, totals):
            group, row = kv
            shards = shard_count(totals[group], max_rows)
            if not is_batch(row):
                yield (group, _stable_int(sort_key(row), salt) % shards, shards), row
                return
            if column is None:
                raise TypeError("WriteShards got record batches without a sort_column")
            for index, part in split_batch(
                    row, column, lambda key: _stable_int(key, salt) % shards):
                yield (group, index, shards), part

        written = (rows
                   | "AssignShard" >> beam.FlatMap(assign, totals=beam.pvalue.AsDict(counts))
                   | "GroupShard" >> beam.GroupByKey()
                   | "WriteShard" >> beam.FlatMap(self._write))
        return (rows.pipeline
                | "CheckTrigger" >> beam.Impulse()  # one element, as Create([None]) in 3
                | "CheckRows" >> beam.FlatMap(checked_rows, beam.pvalue.AsList(written),
                                              beam.pvalue.AsDict(counts), len(self.formats)))

    def _relative(self, form: ShardFormat, group: str, index: int, count: int) -> str:
        return "/".join(p for p in (form.subdir, group,
                                    form.namer(group, index, count, form.extension)) if p)

    def _write(self, element) -> list[tuple[int, str, str, int]]:
        """``(format index, group, relative path, rows)`` of each file of one shard."""
        (group, index, count), rows = element
        check_name(group, "split name")
        rows = list(rows)
        if self.sort_column is not None and any(is_batch(row) for row in rows):
            if len(self.formats) > 1:
                raise TypeError("WriteShards writes record batches in one format only")
            relative = self._relative(self.formats[0], group, index, count)
            table = merged_table(rows, self.formats[0].schema, self.sort_column)
            write_bytes(FileSystems.join(self.directory, *relative.split("/")),
                        table_bytes(table))
            return [(0, group, relative, table.num_rows)]
        ordered = sorted(rows, key=self.sort_key)
        written = []
        for number, form in enumerate(self.formats):
            relative = self._relative(form, group, index, count)
            write_bytes(FileSystems.join(self.directory, *relative.split("/")),
                        form.serializer(ordered, form.schema))
            written.append((number, group, relative, len(ordered)))
        return written


def checked_rows(_: object, written: list[tuple[int, str, str, int]], totals: dict[str, int],
                 formats: int) -> list[tuple[str, str, int]]:
    """``(group, relative path, rows)`` of every written file, once the rows of each group
    and of each of the ``formats`` add up to the rows counted before the shuffle
    (``ReleaseInvariantError``, ``rows_lost``, otherwise)."""
    found: dict[tuple[int, str], int] = {}
    for number, group, _, count in written:
        found[number, group] = found.get((number, group), 0) + count
    lost = [f"{group}: {found.get((number, group), 0):,} of {total:,} rows in format "
            f"{number}" for group, total in sorted(totals.items()) for number in range(formats)
            if found.get((number, group), 0) != total]
    lost += [f"{group}: {count:,} rows written, none counted" for (_, group), count
             in sorted(found.items()) if group not in totals]
    if lost:
        raise ReleaseInvariantError(
            f"the job breaks its invariants, so nothing was published: {ROWS_LOST}: rows "
            f"counted before the shuffle did not all reach the files: {'; '.join(lost[:5])}"
            f"{f'; and {len(lost) - 5} more' if len(lost) > 5 else ''} (a runner lost rows "
            f"between stages: see 'Rows lost between stages' in the runners guide)")
    return [(group, relative, count) for _, group, relative, count in written]


def write_json(path: str, obj: Any) -> None:
    """``obj`` as pretty JSON, keys sorted, at ``path`` (any Beam filesystem)."""
    write_bytes(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False).encode())


def iter_group_rows(directory: str, group: str, columns: list[str] | None = None
                    ) -> Iterator[dict[str, Any]]:
    """Rows of every Parquet file below ``<directory>/<group>/`` (any Beam filesystem), file
    by file in name order, one row group at a time; of ``columns`` only, when given."""
    for name in list_files(directory):
        if name.startswith(f"{group}/") and name.endswith(".parquet"):
            path = FileSystems.join(directory, *name.split("/"))
            with FileSystems.open(path, compression_type=RAW) as handle:
                parquet = pq.ParquetFile(io.BytesIO(handle.read()))
            for index in range(parquet.num_row_groups):
                yield from parquet.read_row_group(index, columns=columns).to_pylist()


def read_group_rows(directory: str, group: str, columns: list[str] | None = None
                    ) -> list[dict[str, Any]]:
    """Rows of every Parquet file below ``<directory>/<group>/`` (any Beam filesystem); of
    ``columns`` only, when given."""
    return list(iter_group_rows(directory, group, columns))


def ensure_group_file(staging_dir: str, subdir: str, group: str, extension: str) -> None:
    """An empty single shard of ``group`` under ``subdir`` when the job wrote none there
    (before publishing), so a release always has the group's file, also when it is empty."""
    prefix = f"{subdir}/{group}/"
    if not any(name.startswith(prefix) for name in list_files(staging_dir)):
        write_bytes(FileSystems.join(staging_dir, subdir, group,
                                     shard_name(group, 0, 1, extension)), b"")


def ensure_empty_splits(staging_dir: str, splits: Iterable[str], schema: pa.Schema) -> None:
    """Every split exists in a release, with a zero-row file when it got no rows."""
    splits = [check_name(split, "split name") for split in splits]
    present = {p.split("/")[0] for p in list_files(staging_dir)}
    for split in splits:
        if split not in present:
            write_bytes(FileSystems.join(staging_dir, split, shard_name(split, 0, 1, "parquet")),
                        parquet_bytes([], schema))

