"""The Parquet tables of a release, as HF ``datasets`` configs and splits.

A table is a directory of Parquet files: ``train``/``dev``/``test`` are the splits of the
``default`` config (``dev`` is ``validation``, the Hub's name); ``votes/<split>`` are the splits
of ``votes``; any other directory (``questions``, ``candidates``, ``docs``, ``lexicon``,
``rejected/queries``) is a config of its own with one split of the same name. Non-Parquet
files (``bm25/``, ``nq_original/``, ``rejected/*.jsonl``) are no table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from transforms.core.files import FileSystems
from transforms.release.storage import RAW

SPLIT_NAMES = {"train": "train", "dev": "validation", "test": "test"}


@dataclass(frozen=True)
class Table:
    """One split of one config: its directory, Parquet files, rows and schema."""

    config: str
    split: str
    directory: str
    files: tuple[str, ...]
    rows: int
    schema: pa.Schema
    data_bytes: int = 0

    @property
    def pattern(self) -> str:
        """The release-relative glob of the table's files (as the card's YAML lists it)."""
        return f"{self.directory}/*.parquet"


def table_name(directory: str) -> tuple[str, str]:
    """``(config, split)`` of a release-relative directory of Parquet files."""
    parts = directory.split("/")
    if len(parts) == 1 and parts[0] in SPLIT_NAMES:
        return "default", SPLIT_NAMES[parts[0]]
    if len(parts) == 2 and parts[1] in SPLIT_NAMES:
        return parts[0], SPLIT_NAMES[parts[1]]
    name = "_".join(parts)
    return name, name


def read_footer(path: str) -> tuple[pa.Schema, int]:
    """The Arrow schema of a Parquet file and its uncompressed data bytes, from the footer."""
    with FileSystems.open(path, compression_type=RAW) as handle:
        parquet = pq.ParquetFile(handle)
        metadata = parquet.metadata
        return parquet.schema_arrow, sum(metadata.row_group(i).total_byte_size
                                         for i in range(metadata.num_row_groups))


def parquet_directories(names: Iterable[str]) -> dict[str, list[str]]:
    """Release-relative Parquet paths grouped by their directory (a table), files sorted."""
    tables: dict[str, list[str]] = {}
    for name in sorted(names):
        if name.endswith(".parquet") and "/" in name:
            tables.setdefault(name.rsplit("/", 1)[0], []).append(name)
    return tables


def release_tables(version_dir: str, files: dict[str, dict[str, Any]],
                   main: str | None = None) -> list[Table]:
    """Every Parquet table of a release (``files`` as the manifest lists them), the main
    config first (``main``, else ``default``, else the first), then by name."""
    tables = []
    for directory, paths in parquet_directories(files).items():
        config, split = table_name(directory)
        footers = [read_footer(FileSystems.join(version_dir, *p.split("/"))) for p in paths]
        tables.append(Table(
            config=config, split=split, directory=directory, files=tuple(paths),
            rows=sum(int(files[p].get("rows", 0)) for p in paths), schema=footers[0][0],
            data_bytes=sum(size for _, size in footers)))
    first = main or ("default" if any(t.config == "default" for t in tables)
                     else min((t.config for t in tables), default=""))
    order = list(SPLIT_NAMES.values())
    return sorted(tables, key=lambda t: (t.config != first, t.config.startswith("rejected"),
                                         t.config, order.index(t.split)
                                         if t.split in order else len(order), t.split))


def main_config(manifest: dict[str, Any]) -> str:
    """The config ``load_dataset(dir)`` loads: that of the manifest's first split
    (``default`` for train/dev/test, ``questions`` for ReQA, ``docs``, ``lexicon``)."""
    splits = manifest.get("splits") or []
    return table_name(splits[0])[0] if splits else "default"

