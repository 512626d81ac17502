"""Serialized rows are stable bytes; release Parquet files carry row groups capped by bytes,
the page index and the HF features."""

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from transforms.release import jsonl_bytes, parquet_bytes
from transforms.release.features import with_class_labels
from transforms.release.formats import row_group_bounds


def test_jsonl_serializer_is_stable():
    assert jsonl_bytes([{"b": 1, "a": "é"}]) == b'{"a": "\xc3\xa9", "b": 1}\n'



def _parquet(data: bytes) -> pq.ParquetFile:
    return pq.ParquetFile(io.BytesIO(data))


def test_row_groups_are_capped_by_bytes_as_well_as_rows():
    schema = pa.schema([pa.field("text", pa.string(), nullable=False)])
    rows = [{"text": f"{i:04d}" + "x" * 996} for i in range(100)]
    assert pa.Table.from_pylist(rows, schema=schema).nbytes > 10_000
    parquet = _parquet(parquet_bytes(rows, schema, max_row_group_bytes=10_000))
    groups = [parquet.read_row_group(i) for i in range(parquet.num_row_groups)]
    assert len(groups) > 1
    assert all(group.nbytes <= 10_000 for group in groups)
    assert pa.concat_tables(groups).to_pylist() == rows
    assert parquet_bytes(rows, schema, 10_000) == parquet_bytes(rows, schema, 10_000)


def test_a_row_larger_than_the_cap_is_a_row_group_of_its_own():
    assert row_group_bounds(pa.table({"t": ["x" * 50, "y", "z"]}), max_bytes=40) == [
        (0, 1), (1, 2)]


def test_every_column_chunk_has_the_page_index():
    parquet = _parquet(parquet_bytes([{"a": 1, "b": "x"}], pa.schema([("a", pa.int64()),
                                                                      ("b", pa.string())])))
    chunks = [parquet.metadata.row_group(0).column(i) for i in range(2)]
    assert all(c.has_offset_index and c.has_column_index for c in chunks)


def test_the_footer_holds_the_hf_features_with_class_labels(tmp_path):
    datasets = pytest.importorskip("datasets")
    schema = with_class_labels(pa.schema([
        pa.field("id", pa.string(), nullable=False),
        pa.field("answers", pa.struct([pa.field("yes_no", pa.list_(pa.int64())),
                                       pa.field("text", pa.list_(pa.string()))])),
        pa.field("label", pa.int64()),
    ], metadata={"dataset": "toy"}), {"answers.yes_no": ("NO", "YES"), "label": ("a", "b")})
    path = tmp_path / "train-00000-of-00001.parquet"
    path.write_bytes(parquet_bytes([{"id": "q", "answers": {"yes_no": [1, -1], "text": []},
                                     "label": 1}], schema))
    metadata = pq.read_schema(path).metadata
    assert json.loads(metadata[b"huggingface"])["info"]["features"] == datasets.Features({
        "id": datasets.Value("string"),
        "answers": {"yes_no": datasets.List(datasets.ClassLabel(names=["NO", "YES"])),
                    "text": datasets.List(datasets.Value("string"))},
        "label": datasets.ClassLabel(names=["a", "b"])}).to_dict()
    assert metadata[b"dataset"] == b"toy" and b"class_labels" not in metadata
    loaded = datasets.Dataset.from_parquet(str(path), cache_dir=str(tmp_path / "cache"))
    assert loaded.features["answers"]["yes_no"].feature.names == ["NO", "YES"]
    assert loaded.features["label"].names == ["a", "b"]
    assert loaded[0]["answers"]["yes_no"] == [1, -1]
