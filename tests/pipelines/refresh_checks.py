"""What the NQ and JNQ refresh tests read from releases: data files' bytes, rows by question,
and sample logs with one question left out."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq

DATA_PATTERNS = ("*/*.parquet", "nq_original/*/*.jsonl.gz", "simplified/*/*.parquet")


def data_files(version_dir: Path) -> dict[str, bytes]:
    """Every data file of a release (Parquet splits, NQ original-format shards), by name."""
    return {str(path.relative_to(version_dir)): path.read_bytes()
            for pattern in DATA_PATTERNS for path in sorted(version_dir.glob(pattern))
            if not str(path.relative_to(version_dir)).startswith("rejected/")}


def parquet_rows(version_dir: Path, key: Callable[[dict], str],
                 splits: tuple[str, ...]) -> dict[str, tuple[str, dict]]:
    """``{question: (split, row)}`` of the Parquet split files."""
    rows = {}
    for split in splits:
        for path in sorted((version_dir / split).glob("*.parquet")):
            for row in pq.read_table(path).to_pylist():
                rows[key(row)] = (split, row)
    return rows


def rows_by_id(version_dir: Path) -> dict[str, tuple[str, dict]]:
    """``{id: (split, row)}`` of every Parquet split file (NLQuAD, the toy dataset)."""
    rows = {}
    for path in sorted(version_dir.glob("*/*.parquet")):
        for row in pq.read_table(path).to_pylist():
            rows[row["id"]] = (path.parent.name, row)
    return rows


def original_lines(version_dir: Path) -> dict[str, tuple[str, bytes]]:
    """``{question: (split, JSON line as written)}`` of the NQ original-format shards."""
    lines = {}
    for path in sorted(version_dir.glob("nq_original/*/*.jsonl.gz")):
        for line in gzip.decompress(path.read_bytes()).splitlines():
            lines[json.loads(line)["question_text"]] = (path.parent.name, line)
    return lines


def log_without(source: Path, target: Path, question: str,
                normalize: Callable[[str], str]) -> Path:
    """A copy of a TSV query log (header kept) without the lines of one normalized question."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [lines[0], *(line for line in lines[1:]
                        if normalize(line.split("\t", 1)[0]) != question)]
    assert len(kept) < len(lines), question
    target.write_text("".join(kept), encoding="utf-8")
    return target


def read_json(version_dir: Path, name: str) -> dict:
    return json.loads((version_dir / name).read_text(encoding="utf-8"))


def refresh_counts(version_dir: Path) -> tuple[int, int, int, int]:
    """``(carried, recomputed, new, removed)`` of a refreshed release's ``stats.json``."""
    refresh = read_json(version_dir, "stats.json")["refresh"]
    return refresh["carried"], refresh["recomputed"], refresh["new"], refresh["removed"]
