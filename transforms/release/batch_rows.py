"""Rows carried as Arrow data, and the shard files that merge them with Python rows.

A refresh carries most of a release's rows unchanged. Read as Python dicts, each carried row
is decoded from Parquet, pickled across every Beam stage boundary, and built into Arrow again
by the writer. Two lighter forms stay columnar from the previous release to the new shard:

* a ``pa.RecordBatch`` of rows;
* a ``CarriedReference`` (``transforms.release.refresh.carried_rows.CarriedRows``): rows of
  one previous file *by reference* (the file's name, the kept rows'
  indices and sort keys). Only that reference crosses the job's stage boundaries: the
  shard writer reads the file (checked against the verified manifest, ``checked_read``) and
  takes the rows, so a release's carried text is never held, pickled or shuffled by Beam.

``WriteShards`` (``transforms.release.shards``) takes ``(group, dict)`` and both forms when it
knows their sort column: a batch or a reference is cut by shard (``split_batch``) like rows
are assigned one by one, and a shard's file is written from its dict rows and carried rows
sorted together (``merged_table``).
The file is byte for byte the one the same rows as dicts give: the same schema, the same
order (Arrow sorts strings by their UTF-8 bytes, which is Python's code-point order), and
one contiguous chunk per column (``combine_chunks``), so that the row-group bounds and the
pages are those of ``pa.Table.from_pylist``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, runtime_checkable

import pyarrow as pa
import pyarrow.compute as pc

from transforms.release.features import class_labels, encode_row

Row = dict[str, Any]
_PLAIN_ROWS = (dict, tuple)  # rows that are never carried Arrow data


@runtime_checkable
class CarriedReference(Protocol):
    """Rows of one file of a previous release, by reference
    (``transforms.release.refresh.carried_rows.CarriedRows``): the kept rows' ``indices``
    and their ``keys`` (values of the sort column, in the same order)."""

    indices: tuple[int, ...]
    keys: tuple[str, ...]

    def table(self, columns: list[str] | None = None) -> pa.Table:
        """The kept rows (of ``columns``, all by default)."""

    def subset(self, positions: list[int]) -> CarriedReference:
        """The rows at ``positions`` of this reference."""


def is_batch(element: Any) -> bool:
    """Whether a row element is carried Arrow data (a record batch or ``CarriedReference``),
    else it is one row (a dict, or a writer's own tuple such as a sidecar line). A plain
    row is answered first: ``isinstance`` against the ``runtime_checkable`` protocol
    inspects its attributes (tens of microseconds a call, on every row of every sharded
    writer)."""
    if type(element) in _PLAIN_ROWS:
        return False
    return isinstance(element, pa.RecordBatch | CarriedReference)


def row_count(element: Any) -> int:
    """The rows an element stands for: a batch's or a reference's rows, or 1."""
    if type(element) in _PLAIN_ROWS:
        return 1
    if isinstance(element, CarriedReference):
        return len(element.indices)
    return element.num_rows if is_batch(element) else 1


def split_batch(batch: pa.RecordBatch | CarriedReference, column: str,
                shard_of: Callable[[str], int]
                ) -> Iterator[tuple[int, pa.RecordBatch | CarriedReference]]:
    """``(shard, rows of batch in that shard)`` for each shard ``shard_of`` gives the values
    of ``column`` (the sort key; a reference's ``keys``), rows in their order."""
    carried = isinstance(batch, CarriedReference)
    keys = batch.keys if carried else batch.column(column).to_pylist()
    shards: dict[int, list[int]] = {}
    for index, value in enumerate(keys):
        shards.setdefault(shard_of(value), []).append(index)
    for shard, indices in sorted(shards.items()):
        if len(indices) == len(keys):
            yield shard, batch
        else:
            yield shard, (batch.subset(indices) if carried
                          else batch.take(pa.array(indices, pa.int64())))


def carried_table(element: pa.RecordBatch | CarriedReference,
                  columns: list[str] | None = None) -> pa.Table:
    """The rows of carried Arrow data as a table (of ``columns``, all by default)."""
    if isinstance(element, CarriedReference):
        return element.table(columns)
    table = pa.Table.from_batches([element])
    return table.select(columns) if columns is not None else table


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
    for batch in batches:
        parts += [pa.Table.from_batches([conformed(part, schema)])
                  for part in carried_table(batch).to_batches()]
    table = pa.concat_tables(parts) if parts else schema.empty_table()
    order = pc.sort_indices(table, sort_keys=[(column, "ascending")])
    return table.take(order).combine_chunks()


def batch_rows(element: tuple[str, Any]) -> Iterator[tuple[str, Row]]:
    """``(group, dict)`` of an element, a batch's rows one by one (what a stage that needs
    Python rows reads)."""
    group, row = element
    if is_batch(row):
        for value in carried_table(row).to_pylist():
            yield group, value
    else:
        yield group, row
