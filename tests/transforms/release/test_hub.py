"""The card's YAML front matter: configs per table and split, features, empty splits."""

from __future__ import annotations

from dataclasses import replace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from transforms.release.card import CardInfo
from transforms.release.features import class_labels, with_class_labels
from transforms.release.formats import parquet_bytes
from transforms.release.hub import fields, front_matter, size_category
from transforms.release.tables import release_tables

datasets = pytest.importorskip("datasets")

INFO = CardInfo(pretty_name="Toy", summary="A toy.", license="cc-by-sa-4.0", license_text="",
                language=("en",), task_categories=("question-answering",),
                task_ids=("extractive-qa",), source_datasets=("original",), citation="",
                limitations=(), collection="", preprocessing="",
                annotations_creators=("crowdsourced",))
LABELS = {"answers.yes_no": ("NO", "YES"), "label": ("a", "b", "c")}
PLAIN = pa.schema([
    ("id", pa.string()), ("label", pa.int64()), ("score", pa.float32()),
    ("tokens", pa.list_(pa.string())),
    ("doc", pa.struct([("title", pa.string()), ("offsets", pa.list_(pa.int64()))])),
    ("answers", pa.struct([("yes_no", pa.list_(pa.int64())),
                           ("spans", pa.list_(pa.struct([("start", pa.int64())])))])),
])
SCHEMA = with_class_labels(PLAIN, LABELS)
ROW = {"id": "a", "label": 2, "score": 0.5, "tokens": ["x"], "doc": {"title": "t", "offsets": [1]},
       "answers": {"yes_no": [-1, 1], "spans": [{"start": 3}]}}


def test_features_are_what_datasets_derives_from_the_arrow_schema():
    assert fields(PLAIN, {}) == datasets.Features.from_arrow_schema(PLAIN)._to_yaml_list()


def test_enum_columns_become_class_labels_also_inside_lists_of_structs():
    features = datasets.Features._from_yaml_list(fields(SCHEMA, class_labels(SCHEMA)))
    assert features["label"].names == ["a", "b", "c"]
    assert features["answers"]["yes_no"].feature.names == ["NO", "YES"]


def _release(tmp_path, rows_per_dir):
    files = {}
    for directory, rows in rows_per_dir.items():
        path = f"{directory}/{directory.replace('/', '_')}-00000-of-00001.parquet"
        (tmp_path / directory).mkdir(parents=True)
        (tmp_path / path).write_bytes(parquet_bytes(rows, SCHEMA))
        files[path] = {"rows": len(rows)}
    return files


def test_load_dataset_reads_the_declared_configs_and_skips_empty_splits(tmp_path):
    files = _release(tmp_path, {"train": [ROW, {**ROW, "id": "b"}], "dev": [], "test": [ROW],
                                "votes/train": [ROW], "rejected/queries": [ROW]})
    (tmp_path / "notes.json").write_text("{}")
    tables = release_tables(str(tmp_path), files)
    assert [(t.config, t.split) for t in tables] == [
        ("default", "train"), ("default", "validation"), ("default", "test"),
        ("votes", "train"), ("rejected_queries", "rejected_queries")]
    assert pq.ParquetFile(tmp_path / "dev/dev-00000-of-00001.parquet").metadata \
        .num_row_groups == 0
    card = front_matter({"dataset": "toy"}, INFO, tables)
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["configs"][0] == {"config_name": "default", "data_files": [
        {"split": "train", "path": "train/*.parquet"},
        {"split": "test", "path": "test/*.parquet"}]}
    (tmp_path / "README.md").write_text(card + "\n# Toy\n")
    loaded = datasets.load_dataset(str(tmp_path))
    assert {k: v.num_rows for k, v in loaded.items()} == {"train": 2, "test": 1}
    assert loaded["train"].features["label"].names == ["a", "b", "c"]
    assert loaded["train"][0]["answers"]["yes_no"] == [-1, 1]
    assert datasets.load_dataset(str(tmp_path), "votes")["train"].num_rows == 1


def test_a_release_without_train_splits_names_its_main_table_default(tmp_path):
    files = _release(tmp_path, {"questions": [ROW], "candidates": [ROW, ROW]})
    tables = release_tables(str(tmp_path), files, main="questions")
    header = yaml.safe_load(front_matter({"dataset": "toy"}, INFO, tables).split("---\n")[1])
    assert header["configs"][0]["config_name"] == "questions"
    assert header["configs"][0]["default"] is True
    assert header["size_categories"] == ["n<1K"]
    assert "license_name" not in header
    other = front_matter({"dataset": "my_toy"}, replace(INFO, license="other"), tables)
    assert yaml.safe_load(other.split("---\n")[1])["license_name"] == "my-toy-source-terms"
    assert size_category(1_000) == "1K<n<10K" and size_category(2_000_000_000) == "n>1B"
