import os

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to

from tests.conftest import TEST_RUNNER
from transforms.release import (
    ReleaseExistsError,
    ReleaseTarget,
    WriteShards,
    ensure_empty_splits,
    jsonl_bytes,
    parquet_bytes,
)
from transforms.release.commit import discard_staging, finalize_release
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


def test_jsonl_serializer_is_stable():
    assert jsonl_bytes([{"b": 1, "a": "é"}]) == b'{"a": "\xc3\xa9", "b": 1}\n'


def _staged(tmp_path, version="1.0.0"):
    target = ReleaseTarget.create(str(tmp_path), "toy", version)
    ensure_empty_splits(target.staging_dir, ["train", "test"], SCHEMA)
    return target


def test_finalize_moves_staging_into_place(tmp_path):
    target = _staged(tmp_path)
    assert not os.path.exists(target.final_dir)
    path = finalize_release(target, overwrite=False, manifest=b"{}")
    assert path == target.final_dir
    assert sorted(os.listdir(path)) == ["dataset_info.json", "test", "train"]
    assert pq.read_table(os.path.join(path, "train")).num_rows == 0
    assert not os.path.exists(os.path.join(tmp_path, "toy", ".staging"))


def test_existing_version_is_never_overwritten_without_flag(tmp_path):
    finalize_release(_staged(tmp_path), overwrite=False, manifest=b'{"first": 1}')
    second = _staged(tmp_path)
    with pytest.raises(ReleaseExistsError):
        second.check_writable(overwrite=False)
    with pytest.raises(ReleaseExistsError):
        finalize_release(second, overwrite=False, manifest=b'{"second": 2}')
    final = os.path.join(second.final_dir, "dataset_info.json")
    assert open(final).read() == '{"first": 1}'


def test_overwrite_replaces_whole_version(tmp_path):
    first = _staged(tmp_path)
    with open(os.path.join(first.staging_dir, "stale.txt"), "w") as handle:
        handle.write("old")
    finalize_release(first, overwrite=False, manifest=b"{}")
    finalize_release(_staged(tmp_path), overwrite=True, manifest=b'{"new": 1}')
    assert not os.path.exists(os.path.join(first.final_dir, "stale.txt"))
    assert open(os.path.join(first.final_dir, "dataset_info.json")).read() == '{"new": 1}'


def test_discard_staging_leaves_nothing(tmp_path):
    target = _staged(tmp_path)
    discard_staging(target)
    assert not os.path.exists(target.staging_dir)
    assert not os.path.exists(target.final_dir)


def test_latest_pointer_and_retried_publish_are_safe(tmp_path):
    from transforms.release import latest_path

    target = _staged(tmp_path, "2.0.0")
    finalize_release(target, overwrite=False, manifest=b'{"run_id": "%s"}' % (
        target.run_id.encode()))
    latest = latest_path(str(tmp_path), "toy")
    assert open(latest).read() == "2.0.0\n"
    # the publish step is retried after it succeeded: nothing to move, no error
    assert finalize_release(target, overwrite=False, manifest=b"{}") == target.final_dir
    # another run of the same version is still refused
    with pytest.raises(ReleaseExistsError):
        finalize_release(_staged(tmp_path, "2.0.0"), overwrite=False, manifest=b"{}")


def test_object_store_move_copies_manifest_last_and_resumes(tmp_path):
    from transforms.release import MANIFEST, write_bytes
    from transforms.release.commit import _move_remote
    from transforms.release.target import SUCCESS_MARKER

    target = _staged(tmp_path, "3.0.0")
    write_bytes(os.path.join(target.staging_dir, MANIFEST), b"{}")
    first = os.path.join("train", "train-00000-of-00001.parquet")
    os.makedirs(os.path.join(target.final_dir, "train"))
    os.rename(os.path.join(target.staging_dir, first), os.path.join(target.final_dir, first))
    _move_remote(target)  # resumes after a partial move
    assert sorted(os.listdir(target.final_dir)) == sorted(
        ["train", "test", MANIFEST, SUCCESS_MARKER])
    assert not any(files for _, _, files in os.walk(target.staging_dir))
