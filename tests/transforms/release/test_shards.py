"""WriteShards: sorted, complete, byte-identical hash-sharded group files."""

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to

from tests.conftest import TEST_RUNNER
from transforms.release import WriteShards, parquet_bytes
from transforms.release.manifest import file_manifest

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

