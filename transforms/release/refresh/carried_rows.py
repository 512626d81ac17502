"""Rows of a previous release's file carried by reference: what ``Carry`` with
``batch_columns`` emits and ``WriteShards`` reads as Arrow data when it writes a shard
(``transforms.release.batch_rows``)."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

from transforms.release.refresh.checked_read import Release, read_file


@dataclass(frozen=True)
class CarriedRows:
    """Rows of one file of a previous release, by reference (a
    ``batch_rows.CarriedReference``): ``indices`` (ascending) of the rows kept and their
    ``keys`` (values of the sort column, in the same order); ``table`` reads them from the
    file, checked against the verified manifest (``checked_read``)."""

    release: Release
    name: str
    indices: tuple[int, ...]
    keys: tuple[str, ...]

    def table(self, columns: list[str] | None = None) -> pa.Table:
        """The kept rows (of ``columns``, all by default), read from the verified file."""
        parquet = pq.ParquetFile(io.BytesIO(read_file(self.release, self.name)))
        return parquet.read(columns=columns).take(pa.array(self.indices, pa.int64()))

    def subset(self, positions: list[int]) -> CarriedRows:
        """The rows at ``positions`` of this reference."""
        return CarriedRows(self.release, self.name, tuple(self.indices[i] for i in positions),
                           tuple(self.keys[i] for i in positions))
