"""``CarryMoved``: carried NQ examples of a split whose shard count changes become their bytes,
each previous file read once; others stay references."""

from __future__ import annotations

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that

from tests.conftest import TEST_RUNNER
from tests.transforms.nq.test_carried import ITEM, example, write_release
from transforms.nq.carried import example_key, hf_parquet, original_bytes, read_carried
from transforms.nq.carried_moves import CarryMoved
from transforms.nq.examples import HF_SCHEMA
from transforms.release.shards import GroupCounts


def run_carry(tmp_path, max_rows: int, check) -> None:
    """The previous release's dev examples (one shard of 4) through ``CarryMoved``; ``check``
    gets them sorted by question (it runs inside the job)."""
    examples = sorted((example(n) for n in (1, 2, 3, 4)), key=example_key)
    write_release(tmp_path, examples)
    rows = list(read_carried(ITEM, str(tmp_path)))
    with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as pipeline:
        examples = pipeline | beam.Create(rows)
        out = examples | CarryMoved(str(tmp_path), max_rows, examples | GroupCounts())
        assert_that(out, lambda got: check(sorted(got, key=lambda row: example_key(row[1]))))


def test_a_split_that_keeps_its_shard_count_keeps_its_references(tmp_path):
    def check(rows):
        assert [split for split, _ in rows] == ["dev"] * 4
        assert all(row.parquet == ITEM[2] and not row.hf_row for _, row in rows)

    run_carry(tmp_path, 10, check)  # 4 rows: one shard, as before


def test_a_split_whose_shard_count_changes_carries_bytes(tmp_path):
    def check(rows):
        examples = [row for _, row in rows]
        assert [split for split, _ in rows] == ["dev"] * 4
        assert all(row.hf_row and not row.parquet and not row.original for row in examples)
        assert hf_parquet(examples, HF_SCHEMA) == (tmp_path / ITEM[2]).read_bytes()
        assert original_bytes(examples) == (tmp_path / ITEM[1]).read_bytes()

    run_carry(tmp_path, 3, check)  # 4 rows: two shards now
