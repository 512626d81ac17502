"""Serialize release rows and documents to bytes, deterministically.

Every Parquet file of a release is written by ``parquet_writer``/``write_row_groups``: zstd,
the page index (column and offset indexes, so readers skip pages by statistics), the Hugging
Face features in the footer (``transforms.release.features``; class labels as their
indexes), and row groups of at most
``ROW_GROUP_ROWS`` rows and ``ROW_GROUP_BYTES`` of Arrow (in-memory) data. The Hub's dataset
viewer refuses row groups over 286 MiB in memory and recommends 100-300 MB; 128 MiB stays
inside that at any row size (a single row larger than the cap is a row group of its own).
Content-defined chunking is not used: it costs bytes on every release
(docs/design/decisions.md).
"""

from __future__ import annotations

import io
import json
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

from transforms.release.features import class_labels, encode_row, with_hf_features

PARQUET_COMPRESSION = "zstd"
ROW_GROUP_BYTES = 128 * 2**20
ROW_GROUP_ROWS = 100_000


def read_parquet(source: BinaryIO, columns: list[str] | None = None) -> pa.Table:
    """The table of one Parquet file open for reading, read synchronously.

    ``pq.read_table`` of a Python file object goes through the dataset scanner, which leaves
    cleanup work on Arrow's threads after it returns; at interpreter exit that work takes the
    GIL of a finalizing Python and the process aborts ("terminate called without an active
    exception", apache/arrow#33975, #34314): 5 of 40 runs of ``load_release`` did here.
    ``ParquetFile.read`` reads on the calling thread and leaves nothing behind."""
    return pq.ParquetFile(source).read(columns=columns)


def shard_name(group: str, index: int, count: int, extension: str) -> str:
    return f"{group}-{index:05d}-of-{count:05d}.{extension}"


def parquet_writer(sink: str | BinaryIO, schema: pa.Schema) -> pq.ParquetWriter:
    """A ``ParquetWriter`` of a release file: zstd, page index, HF features in the footer."""
    return pq.ParquetWriter(sink, with_hf_features(schema), compression=PARQUET_COMPRESSION,
                            write_page_index=True)


def row_group_bounds(table: pa.Table, max_bytes: int = ROW_GROUP_BYTES,
                     max_rows: int = ROW_GROUP_ROWS) -> list[tuple[int, int]]:
    """``(offset, length)`` of consecutive row groups of ``table``: each at most ``max_rows``
    rows and ``max_bytes`` of Arrow data, unless it is one row."""
    bounds = []
    start = 0
    while start < table.num_rows:
        length = min(max_rows, table.num_rows - start)
        while length > 1 and (size := table.slice(start, length).nbytes) > max_bytes:
            length = min(length - 1, max(1, length * max_bytes // size))
        bounds.append((start, length))
        start += length
    return bounds


def write_row_groups(writer: pq.ParquetWriter, table: pa.Table,
                     max_bytes: int = ROW_GROUP_BYTES) -> None:
    """``table`` through ``writer`` as row groups bounded by ``row_group_bounds`` (cast to
    the schema the writer writes: ``features.with_hf_features``)."""
    if not table.schema.equals(writer.schema):
        table = table.cast(writer.schema)
    for start, length in row_group_bounds(table, max_bytes):
        writer.write_table(table.slice(start, length), row_group_size=length)


def table_bytes(table: pa.Table, max_row_group_bytes: int = ROW_GROUP_BYTES) -> bytes:
    """A release Parquet file of ``table``; deterministic for the same table.

    No rows give a file with the schema and no row group at all: a row group of 0 rows
    breaks readers that size their batches by the first row group (HF ``datasets``)."""
    sink = io.BytesIO()
    with parquet_writer(sink, table.schema) as writer:
        write_row_groups(writer, table, max_row_group_bytes)
    return sink.getvalue()


def parquet_bytes(rows: list[dict[str, Any]], schema: pa.Schema,
                  max_row_group_bytes: int = ROW_GROUP_BYTES) -> bytes:
    """Serialize rows with an explicit schema (``table_bytes``); the names at the schema's
    class labels are written as their indexes (``features.encode_row``)."""
    if class_labels(schema):
        rows = [encode_row(row, schema) for row in rows]
    return table_bytes(pa.Table.from_pylist(rows, schema=schema), max_row_group_bytes)


def jsonl_line(row: dict[str, Any]) -> bytes:
    """One row as a JSON line (keys sorted, newline included)."""
    return (json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def jsonl_bytes(rows: list[dict[str, Any]], schema: pa.Schema | None = None) -> bytes:
    return b"".join(map(jsonl_line, rows))


def to_json_bytes(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
