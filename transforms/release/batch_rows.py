"""Rows carried as Arrow record batches, and the shard files that merge them with Python rows.

A refresh carries most of a release's rows unchanged. Read as Python dicts, each carried row
is decoded from Parquet, pickled across every Beam stage boundary, and built into Arrow again
by the writer; as record batches it stays columnar from the previous release's row groups to
the new shard file. ``WriteShards`` (``transforms.release.shards``) takes both kinds of
element, ``(group, dict)`` and ``(group, pa.RecordBatch)``, when it knows the batches' sort
column: a batch is cut by shard (``split_batch``) like rows are assigned one by one, and a
shard's file is written from its dict rows and batches sorted together (``merged_table``).
The file is byte for byte the one the same rows as dicts give: the same schema, the same
order (Arrow sorts strings by their UTF-8 bytes, which is Python's code-point order), and
one contiguous chunk per column (``combine_chunks``), so that the row-group bounds and the
pages are those of ``pa.Table.from_pylist``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from transforms.release.features import class_labels, encode_row

Row = dict[str, Any]


def is_batch(element: Any) -> bool:
    """Whether a row element is a record batch (else it is one dict row)."""
    return isinstance(element, pa.RecordBatch)


def row_count(element: Any) -> int:
    """The rows an element stands for: a batch's rows, or 1."""
    return element.num_rows if is_batch(element) else 1


def split_batch(batch: pa.RecordBatch, column: str,
                shard_of: Callable[[str], int]) -> Iterator[tuple[int, pa.RecordBatch]]:
    """``(shard, rows of batch in that shard)`` for each shard ``shard_of`` gives the values
    of ``column`` (the sort key), rows in their order."""
    shards: dict[int, list[int]] = {}
    for index, value in enumerate(batch.column(column).to_pylist()):
        shards.setdefault(shard_of(value), []).append(index)
    for shard, indices in sorted(shards.items()):
        yield shard, (batch if len(indices) == batch.num_rows
                      else batch.take(pa.array(indices, pa.int64())))


def conformed(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """``batch`` under ``schema`` (the same column types; the previous release's footer
    metadata dropped); ``TypeError`` when a column's type differs."""
    if batch.schema.names != schema.names:
        raise TypeError(f"carried rows have columns {batch.schema.names}, "
                        f"the release {schema.names}")
    return pa.RecordBatch.from_arrays(batch.columns, schema=schema)


def merged_table(rows: Iterable[Any], schema: pa.Schema, column: str) -> pa.Table:
    """One shard's rows (dicts and record batches) as one table sorted by ``column``, as
    ``parquet_bytes`` would build it from the same rows as dicts (class-label names encoded
    as their indexes)."""
    dicts, batches = [], []
    for row in rows:
        (batches if is_batch(row) else dicts).append(row)
    if class_labels(schema):
        dicts = [encode_row(row, schema) for row in dicts]
    parts = [pa.Table.from_pylist(dicts, schema=schema)] if dicts else []
    parts += [pa.Table.from_batches([conformed(batch, schema)]) for batch in batches]
    table = pa.concat_tables(parts) if parts else schema.empty_table()
    order = pc.sort_indices(table, sort_keys=[(column, "ascending")])
    return table.take(order).combine_chunks()


def batch_rows(element: tuple[str, Any]) -> Iterator[tuple[str, Row]]:
    """``(group, dict)`` of an element, a batch's rows one by one (what a stage that needs
    Python rows reads)."""
    group, row = element
    if is_batch(row):
        for value in row.to_pylist():
            yield group, value
    else:
        yield group, row
