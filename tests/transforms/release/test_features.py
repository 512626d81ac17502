"""Class labels of a release table: encoded by the writer, decoded on reading, read back from
the footer, with names and indexes accepted alike (releases written before a column became a
class label hold its names as strings)."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from transforms.release.features import (
    class_labels,
    decode_row,
    encode_row,
    label_codes,
    names_schema,
    unlabeled_names,
    with_class_labels,
)
from transforms.release.formats import parquet_bytes

LABELS = {"kind": ("a", "b"), "notes.label": ("EXIST", "AMBIGUOUS", "NONE"),
          "notes.answer": ("NO", "YES"), "tags": ("x", "y")}
UNLABELED = {"notes.answer": "NONE"}
SCHEMA = with_class_labels(pa.schema([
    ("id", pa.string()), ("kind", pa.int64()), ("tags", pa.list_(pa.int64())),
    ("notes", pa.list_(pa.struct([("label", pa.int64()), ("answer", pa.int64()),
                                  ("text", pa.string())]))),
]), LABELS, UNLABELED)
NAMES = {"id": "q", "kind": "b", "tags": ["y", "x"],
         "notes": [{"label": "EXIST", "answer": "YES", "text": "t"},
                   {"label": "NONE", "answer": "NONE", "text": "u"}]}
CODES = {"id": "q", "kind": 1, "tags": [1, 0],
         "notes": [{"label": 0, "answer": 1, "text": "t"},
                   {"label": 2, "answer": -1, "text": "u"}]}


def test_names_encode_to_indexes_and_unlabeled_to_minus_one():
    assert encode_row(NAMES, SCHEMA) == CODES
    assert NAMES["notes"][0]["label"] == "EXIST"  # the row itself is not modified


def test_indexes_decode_to_names_and_both_encodings_are_accepted():
    assert decode_row(CODES, SCHEMA) == NAMES
    assert encode_row(CODES, SCHEMA) == CODES
    assert decode_row(NAMES, SCHEMA) == NAMES


def test_unknown_names_and_indexes_are_refused():
    with pytest.raises(ValueError, match="not one of the class labels"):
        encode_row({**NAMES, "kind": "c"}, SCHEMA)
    with pytest.raises(ValueError, match="not in 0..1"):
        encode_row({**NAMES, "kind": 2}, SCHEMA)
    with pytest.raises(ValueError, match="no class label"):
        with_class_labels(SCHEMA, {"kind": ("a",)}, {"other": "NONE"})


def test_the_writer_encodes_and_the_footer_declares_the_labels():
    data = parquet_bytes([NAMES], SCHEMA)
    footer = pq.read_schema(io.BytesIO(data))
    assert pq.ParquetFile(io.BytesIO(data)).read().to_pylist() == [CODES]
    assert class_labels(footer) == LABELS and unlabeled_names(footer) == UNLABELED
    assert decode_row(pq.ParquetFile(io.BytesIO(data)).read().to_pylist()[0], footer) == NAMES


def test_codes_describe_each_label():
    assert label_codes(LABELS, UNLABELED)["notes.answer"] == "0 NO, 1 YES, -1 NONE"
    assert label_codes(LABELS, UNLABELED)["kind"] == "0 a, 1 b"


def test_names_schema_is_the_layout_before_class_labels():
    legacy = names_schema(SCHEMA)
    assert legacy.field("kind").type == pa.string()
    assert legacy.field("tags").type == pa.list_(pa.string())
    assert legacy.field("notes").type.value_type.field("label").type == pa.string()
    assert legacy.field("notes").type.value_type.field("text").type == pa.string()
    assert class_labels(legacy) == {}
    data = parquet_bytes([NAMES], legacy)
    assert pq.ParquetFile(io.BytesIO(data)).read().to_pylist() == [NAMES]


def test_a_non_null_class_label_column_loads_as_a_class_label(tmp_path):
    """``datasets`` takes a column's feature from the footer only when the column's Arrow
    field is the feature's own (nullable): the writer writes class-label columns nullable."""
    datasets = pytest.importorskip("datasets")
    schema = with_class_labels(pa.schema([pa.field("kind", pa.int64(), nullable=False),
                                          pa.field("id", pa.string(), nullable=False)]),
                               {"kind": ("a", "b")})
    path = tmp_path / "t.parquet"
    path.write_bytes(parquet_bytes([{"kind": "b", "id": "x"}], schema))
    features = datasets.Dataset.from_parquet(str(path), cache_dir=str(tmp_path / "c")).features
    assert features["kind"] == datasets.ClassLabel(names=["a", "b"])
    assert not pq.read_schema(path).field("id").nullable
