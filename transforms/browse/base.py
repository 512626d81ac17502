"""What every part of the release browser shares: a release opened for reading, an index
entry, and the renderer interface each dataset implements.

The browser reads a release once, streaming: the site writer (``site``) iterates a
renderer's ``entries`` over the rows of the release's main tables, taps every row for the
length histograms of the overview (``Renderer.measures``) and writes index pages, detail
pages and the filter's data in pages of a fixed size. Nothing here imports Beam.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import pyarrow.parquet as pq

from transforms.release.tables import Table, main_config, release_tables

BATCH_ROWS = 256


@dataclass(frozen=True)
class Entry:
    """One example as the site shows it.

    ``cells`` are the index row's HTML cells (already escaped), one per ``Renderer.columns``;
    ``text`` is the plain text the client-side filter searches; ``reason`` is the label the
    filter offers besides the split (a drop reason, an answer type such as ``short``,
    ``yes/no``, ``none``); ``detail`` is the escaped HTML of the example's own section."""

    key: str
    split: str
    cells: tuple[str, ...]
    text: str
    reason: str = ""
    detail: str = ""


@dataclass
class ReleaseView:
    """A published release opened for reading: its directory, manifest, stats and tables."""

    path: str
    manifest: dict[str, Any]
    stats: dict[str, Any]
    tables: list[Table] = field(default_factory=list)

    @classmethod
    def open(cls, path: str) -> ReleaseView:
        with open(f"{path}/dataset_info.json", encoding="utf-8") as handle:
            manifest = json.load(handle)
        with open(f"{path}/stats.json", encoding="utf-8") as handle:
            stats = json.load(handle)
        tables = release_tables(path, manifest["files"], main=main_config(manifest))
        return cls(path, manifest, stats, tables)

    @property
    def dataset(self) -> str:
        return self.manifest["dataset"]

    def table(self, directory: str) -> Table | None:
        return next((t for t in self.tables if t.directory == directory), None)

    def main_tables(self) -> list[Table]:
        """The tables of the config ``load_dataset(dir)`` loads, in split order."""
        main = self.tables[0].config if self.tables else None
        return [t for t in self.tables if t.config == main]

    def rows(self, table: Table, columns: list[str] | None = None) -> Iterator[dict[str, Any]]:
        """The rows of a table, streamed in record batches (bounded memory)."""
        for name in table.files:
            parquet = pq.ParquetFile(f"{self.path}/{name}")
            for batch in parquet.iter_batches(batch_size=BATCH_ROWS, columns=columns):
                yield from batch.to_pylist()


class Renderer(Protocol):
    """How one kind of release is shown. Implementations live in ``renderers/``."""

    title: str
    columns: tuple[str, ...]
    details_per_page: int
    paper_means: dict[str, float]

    def entries(self, release: ReleaseView, table: Table,
                rows: Iterator[dict[str, Any]]) -> Iterator[Entry]:
        """Entries of one table's rows, in order (a renderer may group consecutive rows,
        as NLQuAD groups an article's questions)."""

    def measures(self, row: dict[str, Any]) -> dict[str, int]:
        """Lengths of one row for the overview's histograms, e.g. ``{"question words": 9}``."""
