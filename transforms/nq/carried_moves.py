"""Carried NQ examples whose shard changes travel as bytes, each previous file read once.

A carried example is a reference to its row and gzip member in the previous release
(``transforms.nq.carried``), read by the writer of the shard it lands in. Shards are made by a
hash of the question modulo the split's shard count, so while a split keeps its count an
example lands in the shard of its previous file's index, and each writer reads the one
previous file of its index. When the count changes (a split grew past a multiple of
``--max-rows-per-shard``), the rows of every new shard come from nearly every previous file:
read by reference, each previous file would be read once per new shard (600 shards of real
NQ: 600 times). So the examples of a split whose count changes are grouped by previous file,
each file is read once and its examples go on as their bytes (``carried.materialized``).
"""

from __future__ import annotations

from typing import Any

import apache_beam as beam

from transforms.nq.carried import PackedExample, materialized, previous_shards
from transforms.release.refresh.checked_read import Release
from transforms.release.shards import shard_count

MOVED = "moved"  # the tagged output of examples whose shard count changed


class _Route(beam.DoFn):
    """``(previous file, (split, example))`` of a carried example whose split's shard count
    changed (``MOVED``); every other example as it is."""

    def __init__(self, max_rows_per_shard: int):
        self.max_rows = max_rows_per_shard

    def process(self, split_example: tuple[str, Any], totals: dict[str, int]):
        split, example = split_example
        if isinstance(example, PackedExample) and example.parquet and previous_shards(
                example.parquet) != shard_count(totals[split], self.max_rows):
            yield beam.pvalue.TaggedOutput(MOVED, (example.parquet, split_example))
        else:
            yield split_example


def _read_once(file_examples: tuple[str, Any], release: Release):
    """The examples of one previous file as their bytes, the file read once."""
    _, items = file_examples
    items = list(items)
    examples = materialized([example for _, example in items], release)
    for (split, _), example in zip(items, examples, strict=True):
        yield split, example


class CarryMoved(beam.PTransform):
    """``(split, example)`` with the carried examples of splits whose shard count changes as
    their bytes (see the module docstring); ``release`` is the verified previous release,
    ``totals`` the examples' ``(split, rows)`` (``shards.GroupCounts``: the counts the
    ``WriteShards`` after this stage shards them by, counted once for both)."""

    def __init__(self, release: Release, max_rows_per_shard: int, totals):
        super().__init__()
        self.release, self.max_rows, self.totals = release, max_rows_per_shard, totals

    def expand(self, examples):
        routed = examples | "Route" >> beam.ParDo(
            _Route(self.max_rows), beam.pvalue.AsDict(self.totals)).with_outputs(MOVED,
                                                                                 main="kept")
        moved = (routed[MOVED]
                 | "GroupByFile" >> beam.GroupByKey()
                 | "ReadOnce" >> beam.FlatMap(_read_once, self.release))
        return (routed.kept, moved) | "Together" >> beam.Flatten()
