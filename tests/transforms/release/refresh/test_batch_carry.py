"""Carried rows as Arrow record batches (transforms.release.batch_rows, Carry's
batch_columns): the files they give are byte for byte those of the same rows as Python
dicts, whatever the mix, the shard layout and the row-group boundaries."""

import io
from pathlib import Path

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.options.pipeline_options import PipelineOptions

from tests.conftest import TEST_RUNNER
from transforms.release import WriteShards, parquet_bytes
from transforms.release.batch_rows import batch_rows, merged_table, row_count, split_batch
from transforms.release.features import with_class_labels
from transforms.release.formats import table_bytes
from transforms.release.manifest import file_manifest
from transforms.release.refresh.carry import _CarryFileRows

SCHEMA = with_class_labels(pa.schema([
    pa.field("id", pa.string()),
    pa.field("context", pa.string()),
    pa.field("label", pa.int64()),
    pa.field("answers", pa.struct([pa.field("text", pa.list_(pa.string())),
                                   pa.field("answer_start", pa.list_(pa.int32()))])),
    pa.field("note", pa.string()),
]), {"label": ("no", "yes")})


def _rows(count: int = 60) -> list[dict]:
    """Rows with a class label by name (as a build emits them), non-ASCII ids, nulls."""
    return [{"id": f"{'é' if i % 7 == 0 else 'r'}{(i * 37) % count:03d}",
             "context": "word " * (i % 13 + 1), "label": ("no", "yes")[i % 2],
             "answers": {"text": [f"a{i}"] * (i % 3), "answer_start": [i] * (i % 3)},
             "note": None if i % 5 else f"n{i}"} for i in range(count)]


def _previous_batches(rows: list[dict], max_bytes: int) -> list[pa.RecordBatch]:
    """The rows as a previous release's file gives them back: one batch per row group."""
    parquet = pq.ParquetFile(io.BytesIO(parquet_bytes(rows, SCHEMA, max_bytes)))
    assert parquet.num_row_groups > 1
    return [batch for index in range(parquet.num_row_groups)
            for batch in parquet.read_row_group(index).to_batches()]


def test_batches_and_dicts_write_the_bytes_of_the_dict_path():
    rows = _rows()
    carried, fresh = rows[:45], rows[45:]
    max_bytes = 600  # several row groups in the previous file and in the new one
    batches = _previous_batches(carried, max_bytes)
    table = merged_table([*fresh[:5], *batches, *fresh[5:]], SCHEMA, "id")
    expected = parquet_bytes(sorted(rows, key=lambda row: row["id"]), SCHEMA, max_bytes)
    assert table_bytes(table, max_bytes) == expected
    assert pq.ParquetFile(io.BytesIO(expected)).num_row_groups > 2
    only_batches = merged_table(_previous_batches(rows, max_bytes), SCHEMA, "id")
    assert table_bytes(only_batches, max_bytes) == expected


def test_a_batch_is_cut_by_shard_and_read_back_as_rows():
    [batch] = pa.Table.from_pylist(
        [{"id": f"r{i}", "context": "", "label": 0, "answers": None, "note": None}
         for i in range(10)], schema=SCHEMA).to_batches()
    parts = list(split_batch(batch, "id", lambda key: int(key[1:]) % 3))
    assert [(shard, part.column("id").to_pylist()) for shard, part in parts] == [
        (0, ["r0", "r3", "r6", "r9"]), (1, ["r1", "r4", "r7"]), (2, ["r2", "r5", "r8"])]
    assert row_count(batch) == 10 and row_count({"id": "x"}) == 1
    assert [row["id"] for _, row in batch_rows(("train", batch))] == [
        f"r{i}" for i in range(10)]


def _previous_file(directory: Path, rows: list[dict], max_bytes: int) -> str:
    """The rows as a previous release's split file under ``directory``; its name."""
    (directory / "train").mkdir(parents=True, exist_ok=True)
    name = "train/train-00000-of-00001.parquet"
    (directory / name).write_bytes(parquet_bytes(rows, SCHEMA, max_bytes))
    return name


def test_carry_keeps_this_runs_rows_by_reference(tmp_path):
    rows = _rows(12)
    name = _previous_file(tmp_path, rows, 300)
    carry = _CarryFileRows(str(tmp_path), ("id", "note"), "id",
                           lambda row: f"{row['id']}|{row['note']}")
    kept_ids = sorted(row["id"] for row in rows)[2:5]
    units = {f"{row['id']}|{row['note']}": 1 for row in rows if row["id"] in kept_ids}
    [(split, carried)] = list(carry.process(("train", name), units))
    assert (split, carried.keys, row_count(carried)) == ("train", tuple(kept_ids), 3)
    assert carried.table(["id"]).column("id").to_pylist() == kept_ids
    assert list(carry.process(("train", name), {})) == []
    parts = dict(split_batch(carried, "id", lambda key: 0 if key == kept_ids[1] else 1))
    assert (parts[0].keys, parts[1].keys) == ((kept_ids[1],), (kept_ids[0], kept_ids[2]))
    assert [row["id"] for _, row in batch_rows(("train", carried))] == kept_ids


def _write(directory: Path, elements: list, max_rows: int) -> dict:
    with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        _ = (p | beam.Create(elements, reshuffle=False)
             | WriteShards(str(directory), lambda row: row["id"], parquet_bytes, "parquet",
                           SCHEMA, max_rows_per_shard=max_rows, sort_column="id"))
    return {name: (directory / name).read_bytes() for name in file_manifest(str(directory))}


def test_write_shards_gives_the_same_files_from_batches_and_references(tmp_path):
    rows = _rows(90)
    dicts = [("train" if i % 4 else "dev", row) for i, row in enumerate(rows)]
    carried = [(split, row) for split, row in dicts if row["id"] < "r050"]
    fresh = [(split, row) for split, row in dicts if row["id"] >= "r050"]
    batches = [(split, batch) for split in ("train", "dev")
               for batch in _previous_batches([row for s, row in carried if s == split], 500)]
    previous = tmp_path / "previous"
    name = _previous_file(previous, [row for _, row in dicts], 500)  # every row, one file
    carry = _CarryFileRows(str(previous), ("id",), "id", lambda row: row["id"])
    references = [(split, reference) for split in ("train", "dev")
                  for _, reference in carry.process(
                      (split, name), {row["id"]: 1 for s, row in carried if s == split})]
    for max_rows in (1000, 20):  # one shard per split; several
        expected = _write(tmp_path / f"dicts{max_rows}", dicts, max_rows)
        got = _write(tmp_path / f"batches{max_rows}", [*batches, *fresh], max_rows)
        assert got == expected
        assert _write(tmp_path / f"refs{max_rows}", [*references, *fresh], max_rows) == expected
        assert len(expected) == (2 if max_rows == 1000 else 6)
