"""diff_releases: rows added, removed, changed and moved between two toy releases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from transforms.release import ReleaseTarget, diff, parquet_bytes, publish
from transforms.release.diff import (
    IncomparableReleasesError,
    diff_releases,
    id_column,
    parquet_tables,
)
from transforms.release.nested_digest import nested_digests
from transforms.release.staging import claim_staging


def write_release(root: Path, version: str, tables: dict[str, list[dict[str, Any]]], *,
                  dataset: str = "toy", schemas: dict[str, pa.Schema] | None = None,
                  splits: list[str] | None = None, stats: dict[str, Any] | None = None,
                  options: dict[str, Any] | None = None) -> Path:
    """Publish a release of ``tables`` (directory -> rows) under ``root``, without Beam."""
    target = ReleaseTarget.create(str(root), dataset, version)
    claim_staging(target)
    schemas = schemas or {}
    for directory, rows in tables.items():
        schema = schemas.get(directory) or pa.Table.from_pylist(rows).schema
        schemas[directory] = schema
        path = Path(target.staging_dir, directory,
                    f"{directory.rsplit('/', 1)[-1]}-00000-of-00001.parquet")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(parquet_bytes(rows, schema))
    splits = splits or [d for d in tables if "/" not in d]
    publish(target, overwrite=False, splits=splits, schema=schemas[splits[0]], field_docs={},
            options=options or {}, source={}, make_stats=lambda *_: stats or {},
            make_card=lambda *_: "toy\n", allow_empty=True)
    return Path(target.final_dir)


def _row(row_id: str, question: str, answer: str = "a", score: int = 1) -> dict[str, Any]:
    return {"id": row_id, "question": question, "answer": answer, "score": score}


OLD_SCHEMA = pa.schema([("id", pa.string()), ("question", pa.string()), ("answer", pa.string()),
                        ("score", pa.int32())])
NEW_SCHEMA = pa.schema([("id", pa.string()), ("question", pa.string()), ("answer", pa.string()),
                        ("score", pa.int64()), ("lang", pa.string())])
VOTES = pa.schema([("question_id", pa.string()), ("annotator", pa.string()),
                   ("value", pa.string())])


def toy_pair(root: Path) -> tuple[Path, Path]:
    """Two versions of ``toy``: a2 and a3 changed, a4 removed, a7 added, a5 moved train ->
    test and d2 dev -> train; a column added, one retyped; votes compared as a multiset;
    drop-reason counts and a length mean changed."""
    old = write_release(root, "1.0.0", {
        "train": [_row(f"a{i}", f"question {i}") for i in range(1, 7)],
        "dev": [_row("d1", "dev one"), _row("d2", "dev two")],
        "test": [_row("t1", "test one"), _row("t2", "test two")],
        "votes/train": [{"question_id": "a1", "annotator": "w1", "value": "yes"},
                        {"question_id": "a1", "annotator": "w2", "value": "no"},
                        {"question_id": "a2", "annotator": "w1", "value": "yes"}],
    }, schemas={"train": OLD_SCHEMA, "dev": OLD_SCHEMA, "test": OLD_SCHEMA, "votes/train": VOTES},
        splits=["train", "dev", "test"],
        stats={"counts": {"questions": {"kept": 10, "dropped.empty": 2}},
               "lengths": {"all": {"question_words": {"mean": 5.0, "count": 10}}}},
        options={"seed": 1})
    new_rows = {
        "train": [_row("a1", "question 1"), _row("a2", "question two"),
                  _row("a3", "question three", answer="b"), _row("a6", "question 6"),
                  _row("a7", "question 7"), _row("d2", "dev two")],
        "dev": [_row("d1", "dev one")],
        "test": [_row("t1", "test one"), _row("t2", "test two"), _row("a5", "question 5")],
    }
    new = write_release(root, "1.1.0", {
        **{split: [{**row, "lang": "en"} for row in rows] for split, rows in new_rows.items()},
        "votes/train": [{"question_id": "a1", "annotator": "w1", "value": "yes"},
                        {"question_id": "a1", "annotator": "w2", "value": "yes"},
                        {"question_id": "a2", "annotator": "w1", "value": "yes"},
                        {"question_id": "a7", "annotator": "w1", "value": "no"}],
    }, schemas={"train": NEW_SCHEMA, "dev": NEW_SCHEMA, "test": NEW_SCHEMA, "votes/train": VOTES},
        splits=["train", "dev", "test"],
        stats={"counts": {"questions": {"kept": 11, "dropped.empty": 1,
                                        "dropped.too_long": 1}},
               "lengths": {"all": {"question_words": {"mean": 5.5, "count": 11}}}},
        options={"seed": 2})
    return old, new


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> tuple[Path, Path]:
    return toy_pair(tmp_path_factory.mktemp("releases"))


def _tables(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["table"]: t for t in report["tables"]}


def test_rows_added_removed_changed_by_id(pair):
    tables = _tables(diff_releases(str(pair[0]), str(pair[1])))
    train = tables["train"]
    assert (train["added"], train["removed"]) == ({"count": 1, "examples": ["a7"]},
                                                  {"count": 1, "examples": ["a4"]})
    assert train["changed"] == {"count": 2, "examples": ["a2", "a3"]}
    assert train["unchanged"] == 2 and (train["moved_in"], train["moved_out"]) == (1, 1)
    assert train["columns"]["changed"] == {"question": {"count": 2, "examples": ["a2", "a3"]},
                                           "answer": {"count": 1, "examples": ["a3"]}}
    assert train["columns"]["added"] == ["lang"] and train["columns"]["removed"] == []
    assert train["columns"]["retyped"] == [{"name": "score", "old": "int32", "new": "int64"}]
    assert tables["test"]["unchanged"] == 2 and tables["test"]["moved_in"] == 1


def test_rows_moved_between_splits_are_counted_and_named(pair):
    moved = diff_releases(str(pair[0]), str(pair[1]))["moved_between_splits"]
    assert moved == {"count": 2, "pairs": {"dev -> train": 1, "train -> test": 1},
                     "examples": [{"id": "a5", "from": "train", "to": "test"},
                                  {"id": "d2", "from": "dev", "to": "train"}]}


def test_a_table_without_an_id_is_compared_as_a_multiset(pair):
    votes = _tables(diff_releases(str(pair[0]), str(pair[1])))["votes/train"]
    assert votes["id_column"] is None and votes["changed"] is None
    assert (votes["added"]["count"], votes["removed"]["count"], votes["unchanged"]) == (2, 1, 2)


def test_stats_and_options_changes(pair):
    report = diff_releases(str(pair[0]), str(pair[1]))
    assert report["stats"]["counts"] == {
        "questions.dropped.empty": {"old": 2, "new": 1, "delta": -1},
        "questions.dropped.too_long": {"old": None, "new": 1},
        "questions.kept": {"old": 10, "new": 11, "delta": 1}}
    assert report["stats"]["length_means"] == {
        "all.question_words": {"old": 5.0, "new": 5.5, "delta": 0.5}}
    assert report["options"] == {"seed": {"old": 1, "new": 2, "delta": 1}}
    assert report["rows_per_split"]["train"] == {"old": 6, "new": 6}


def test_a_release_is_identical_to_itself(pair):
    report = diff_releases(str(pair[0]), str(pair[0]))
    assert report["identical_rows"] and report["moved_between_splits"]["count"] == 0
    assert all(t["unchanged"] == t["rows"]["old"] for t in report["tables"])


def test_releases_of_two_datasets_are_refused(pair, tmp_path):
    other = write_release(tmp_path, "1.0.0", {"train": [_row("x", "q")]}, dataset="other")
    with pytest.raises(IncomparableReleasesError, match="'toy'.*'other'"):
        diff_releases(str(pair[0]), str(other))


def test_id_columns_and_table_order():
    assert id_column(["question", "qid"]) == "qid"
    assert id_column(["doc_id", "url"]) == "doc_id" and id_column(["x"]) is None
    names = ["votes/dev/a.parquet", "test/t.parquet", "train/t.parquet", "README.md",
             "dev/d.parquet", "rejected/queries/q.parquet"]
    assert list(parquet_tables(names, ["train", "dev", "test"])) == [
        "train", "dev", "test", "rejected/queries", "votes/dev"]


def test_batches_hold_about_batch_bytes_of_data_whatever_the_row_size(tmp_path, monkeypatch):
    rows = [{"id": f"r{i:03d}", "page": {"html": f"{i:04d}" * 2_500, "tokens": [f"t{i}"] * 50}}
            for i in range(40)]  # 10 KB of its own per row
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "train-0.parquet").write_bytes(
        parquet_bytes(rows, pa.Table.from_pylist(rows).schema))
    files = ["train/train-0.parquet"]
    monkeypatch.setattr(diff, "BATCH_BYTES", 50_000)  # about 5 rows of 10 KB
    sizes = [batch.num_rows for batch in diff.read_batches(str(tmp_path), files, ["page"])]
    assert sum(sizes) == 40 and 1 <= max(sizes) <= 6
    nested = [batch.num_rows for batch in diff.read_batches(str(tmp_path), files, ["page.html"])]
    assert sum(nested) == 40 and max(nested) <= 6  # a field counts its whole struct
    small = [batch.num_rows for batch in diff.read_batches(str(tmp_path), files, ["id"])]
    assert small == [40]  # ids alone are small: one batch
    digests = dict(diff.row_digests(str(tmp_path), files, "id", ["page"]))
    whole = nested_digests(pa.array([row["page"] for row in rows]), _digest_bytes)
    assert digests == {row["id"]: digest for row, digest in zip(rows, whole, strict=True)}


def _digest_bytes(value) -> bytes:
    return diff._digest(value).to_bytes(8, "little")


def test_column_digests_are_the_digests_of_the_values():
    batch = pa.RecordBatch.from_pylist([
        {"text": "é\u2028 日本", "count": -12, "big": 2**63 - 1, "flag": True, "score": 0.5,
         "tokens": ["a", "b"], "page": {"html": "<p>", "n": 3}},
        {"text": None, "count": None, "big": 0, "flag": None, "score": None, "tokens": [],
         "page": None},
        {"text": "", "count": 7, "big": -(2**63), "flag": False, "score": 1e300,
         "tokens": None, "page": {"html": "", "n": None}}])
    large = pa.RecordBatch.from_arrays([batch.column(0).cast(pa.large_string()),
                                        batch.column(1).cast(pa.int8())], ["text", "count"])
    for table in (batch, large):
        for column in table.schema.names:
            values = table.column(column)
            found = diff._column_digests(table, column)
            assert found.dtype == np.uint64 and found.tolist() == (
                [int.from_bytes(part, "little")
                 for part in nested_digests(values, _digest_bytes)]
                if pa.types.is_nested(values.type)
                else [diff._digest(value) for value in values.to_pylist()]), column
    assert diff._column_digests(batch, "page.html").tolist() == [
        diff._digest(value) for value in ("<p>", None, "")]
    huge = pa.RecordBatch.from_pydict({"n": pa.array([2**64 - 1, 1, None], pa.uint64())})
    assert diff._column_digests(huge, "n").tolist() == [
        diff._digest(value) for value in (2**64 - 1, 1, None)]  # beyond int64: by its JSON


def test_equal_values_get_equal_digests_and_others_differ():
    digest = diff._digest
    assert digest(5) == 5 and digest(-1) == 2**64 - 1  # an int is its own 64 bits
    assert digest("5") != digest(5) and digest("") != digest(None) != digest(0)
    assert digest(2**63) == digest(2**63) != digest(2**63 - 1)
    assert digest([1, "a"]) == digest([1, "a"]) != digest(["a", 1])
    int32 = pa.RecordBatch.from_pydict({"n": pa.array([7, None], pa.int32())})
    int64 = pa.RecordBatch.from_pydict({"n": pa.array([7, None], pa.int64())})
    assert diff._column_digests(int32, "n").tolist() == diff._column_digests(
        int64, "n").tolist()
