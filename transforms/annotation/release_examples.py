"""Read the examples of the release being annotated, keyed by their id, with their split."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import apache_beam as beam
import pyarrow.parquet as pq
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, tally
from transforms.sources.compressed import CompressionDamage, iter_complete_lines

STAGE = "examples"


def split_patterns(release_dir: str, base: str, splits: list[str]) -> list[tuple[str, str]]:
    """``(split, glob)`` of the example files of each split: NQ's original format for nq,
    the Parquet rows for jnq / jboolq."""
    if base == "nq":
        return [(s, FileSystems.join(release_dir, "nq_original", s, "*.jsonl.gz"))
                for s in splits]
    return [(s, FileSystems.join(release_dir, s, "*.parquet")) for s in splits]


class _ReadSplitFile(beam.DoFn):
    def __init__(self, base: str):
        self.base = base

    def process(self, element: tuple[str, fileio.ReadableFile]) -> Iterator[Any]:
        split, readable = element
        path = readable.metadata.path
        if path.endswith((".jsonl", ".jsonl.gz", ".jsonl.bz2", ".jsonl.xz")):
            try:
                for line in iter_complete_lines(readable):
                    example_id = json.loads(line)["example_id"]
                    yield tally(STAGE, "read")
                    yield str(example_id), (split, line.rstrip(b"\n"))
            except (CompressionDamage, ValueError, KeyError) as error:
                yield tally(STAGE, "unreadable_release_files")
                yield dead_letter(STAGE, error, reason="unreadable_release_file", file=path)
            return
        with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as handle:
            table = pq.read_table(handle)
        for row in table.to_pylist():
            yield tally(STAGE, "read")
            yield str(row["id"]), (split, row)


class ReadReleaseExamples(beam.PTransform):
    """``(id, (split, example))`` of every example of the chosen splits of a release, or of
    the ``(split, glob)`` ``patterns`` given (NQ original-format or JNQ Parquet files). NQ
    examples stay their JSON line (bytes) until they are annotated: a parsed NQ example
    takes several times the memory of its text, and the join shuffles every example."""

    def __init__(self, release_dir: str, base: str, splits: list[str],
                 patterns: list[tuple[str, str]] | None = None):
        super().__init__()
        self.patterns = patterns or split_patterns(release_dir, base, splits)
        self.base = base

    def expand(self, pbegin):
        files = []
        for split, pattern in self.patterns:
            files.append(pbegin
                         | f"Match_{split}" >> fileio.MatchFiles(pattern)
                         | f"Open_{split}" >> fileio.ReadMatches(
                             compression=CompressionTypes.UNCOMPRESSED)
                         | f"Tag_{split}" >> beam.Map(lambda f, s=split: (s, f)))
        return (files
                | "AllSplits" >> beam.Flatten()
                | "ReadExamples" >> beam.ParDo(_ReadSplitFile(self.base))
                .with_outputs(*SIDE_OUTPUTS, main="main"))
