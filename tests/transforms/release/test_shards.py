"""WriteShards: sorted, complete, byte-identical hash-sharded group files."""

import json

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to

from tests.conftest import TEST_RUNNER
from transforms.release import ShardFormat, WriteShards, jsonl_bytes, parquet_bytes
from transforms.release.invariants import ROWS_LOST, ReleaseInvariantError
from transforms.release.manifest import file_manifest
from transforms.release.shards import checked_rows

SCHEMA = pa.schema([pa.field("id", pa.string()), pa.field("n", pa.int32())])


def _write(directory, rows, max_rows):
    with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        written = (p
                   | beam.Create(rows)
                   | WriteShards(str(directory), lambda r: r["id"], parquet_bytes, "parquet",
                                 SCHEMA, max_rows_per_shard=max_rows))
        assert_that(written | beam.Map(lambda w: w[0]) | beam.combiners.Count.PerElement(),
                    equal_to(_expected_shard_counts(rows, max_rows)))


def _expected_shard_counts(rows, max_rows):
    per_group = {}
    for group, _ in rows:
        per_group[group] = per_group.get(group, 0) + 1
    return [(g, -(-n // max_rows)) for g, n in per_group.items()]


def _rows():
    return ([("train", {"id": f"t{i:03d}", "n": i}) for i in range(25)]
            + [("dev", {"id": f"d{i}", "n": i}) for i in range(3)])


def test_shards_are_sorted_complete_and_byte_identical(tmp_path):
    _write(tmp_path / "a", list(reversed(_rows())), max_rows=10)
    _write(tmp_path / "b", _rows(), max_rows=10)
    files_a, files_b = file_manifest(str(tmp_path / "a")), file_manifest(str(tmp_path / "b"))
    assert files_a == files_b
    assert sorted(files_a) == ["dev/dev-00000-of-00001.parquet"] + [
        f"train/train-0000{i}-of-00003.parquet" for i in range(3)]
    train = pq.read_table(tmp_path / "a" / "train").to_pylist()
    assert sorted(r["id"] for r in train) == [f"t{i:03d}" for i in range(25)]
    for name in files_a:
        ids = pq.read_table(tmp_path / "a" / name).column("id").to_pylist()
        assert ids == sorted(ids)
        assert pq.ParquetFile(tmp_path / "a" / name).metadata.row_group(0).column(0).compression \
            == "ZSTD"



def test_also_formats_hold_the_same_rows_in_the_same_order_from_one_grouping(tmp_path):
    also = ShardFormat(jsonl_bytes, "jsonl", subdir="lines",
                       namer=lambda group, index, count, ext: f"{group}-{index}.{ext}")
    with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        written = (p | beam.Create(list(reversed(_rows())))
                   | WriteShards(str(tmp_path / "both"), lambda r: r["id"], parquet_bytes,
                                 "parquet", SCHEMA, max_rows_per_shard=10, also=[also]))
        assert_that(written | beam.Map(lambda w: (w[1], w[2])), equal_to(
            [("dev/dev-00000-of-00001.parquet", 3), ("lines/dev/dev-0.jsonl", 3)]
            + [(f"train/train-0000{i}-of-00003.parquet", n) for i, n in enumerate(TRAIN)]
            + [(f"lines/train/train-{i}.jsonl", n) for i, n in enumerate(TRAIN)]))
    for index in range(3):
        table = pq.read_table(tmp_path / "both" / "train" /
                              f"train-0000{index}-of-00003.parquet")
        lines = (tmp_path / "both" / "lines" / "train" / f"train-{index}.jsonl").read_text()
        assert [json.loads(line) for line in lines.splitlines()] == table.to_pylist()
    _write(tmp_path / "single", _rows(), max_rows=10)  # the first format's bytes: unchanged
    assert (file_manifest(str(tmp_path / "single"))
            == {name: entry for name, entry in file_manifest(str(tmp_path / "both")).items()
                if not name.startswith("lines/")})


TRAIN = [7, 9, 9]  # rows per train shard of _rows() at 10 rows a shard (hash-assigned)


class _LosingWriter(WriteShards):
    """A writer whose shard lost one row between the count and the file, as the
    DirectRunner's multi_processing mode lost rows at 50,000 NQ examples."""

    def _write(self, element):
        (group, index, count), rows = element
        rows = list(rows)
        return super()._write(((group, index, count), rows[1:] if group == "train" else rows))


def test_rows_lost_between_the_count_and_the_files_fail_the_job(tmp_path):
    with pytest.raises(ReleaseInvariantError, match=rf"{ROWS_LOST}: rows counted "
                       r"before the shuffle did not all reach the files: train: 22 of 25 rows"):
        with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as p:
            _ = (p | beam.Create(_rows())
                 | _LosingWriter(str(tmp_path), lambda r: r["id"], parquet_bytes, "parquet",
                                 SCHEMA, max_rows_per_shard=10))


def test_checked_rows_names_each_group_and_format_that_lost_rows():
    written = [(0, "train", "train/a.parquet", 5), (1, "train", "lines/train/a.jsonl", 4),
               (0, "dev", "dev/a.parquet", 2), (1, "dev", "lines/dev/a.jsonl", 2)]
    with pytest.raises(ReleaseInvariantError, match="train: 4 of 5 rows in format 1$|"
                       r"train: 4 of 5 rows in format 1 \(a runner"):
        checked_rows(None, written, {"train": 5, "dev": 2}, 2)
    with pytest.raises(ReleaseInvariantError, match="test: 0 of 1 rows in format 0"):
        checked_rows(None, written[:1] + written[2:] + [(1, "train", "x", 5)],
                     {"train": 5, "dev": 2, "test": 1}, 2)
    assert checked_rows(None, written[:1] + [(1, "train", "x", 5)], {"train": 5}, 2) == [
        ("train", "train/a.parquet", 5), ("train", "x", 5)]
