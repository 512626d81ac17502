"""Serialize release rows and documents to bytes, deterministically."""

from __future__ import annotations

import io
import json
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

PARQUET_COMPRESSION = "zstd"


def shard_name(group: str, index: int, count: int, extension: str) -> str:
    return f"{group}-{index:05d}-of-{count:05d}.{extension}"


def parquet_bytes(rows: list[dict[str, Any]], schema: pa.Schema) -> bytes:
    """Serialize rows with an explicit schema; deterministic for the same rows.

    No rows give a file with the schema and no row group at all: a row group of 0 rows
    breaks readers that size their batches by the first row group (HF ``datasets``)."""
    sink = io.BytesIO()
    if not rows:
        pq.ParquetWriter(sink, schema, compression=PARQUET_COMPRESSION).close()
        return sink.getvalue()
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, sink, compression=PARQUET_COMPRESSION)
    return sink.getvalue()


def jsonl_bytes(rows: list[dict[str, Any]], schema: pa.Schema | None = None) -> bytes:
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n"
                   for r in rows).encode("utf-8")



def to_json_bytes(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()

