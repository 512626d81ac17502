"""Leakage within a release (also a staging directory) and into external evaluation sets."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.transforms.release.test_diff import write_release
from transforms.release.leakage import (
    LeakageError,
    read_external,
    release_leakage,
    within_release_leakage,
)
from transforms.release.normalize import jaccard, normalize_question, shingles


def _row(row_id: str, question: str, document: str) -> dict[str, Any]:
    return {"id": row_id, "question": question, "document_id": document}


SPLITS = {
    "train": [_row("r1", "Who wrote Hamlet?", "doc-a"),
              _row("r2", "When did the Berlin Wall fall", "doc-b"),
              _row("r3", "what is the capital of australia", "doc-c")],
    "dev": [_row("r4", "who  wrote HAMLET", "doc-d"),
            _row("r5", "how many bones are in the human body", "doc-a")],
    "test": [_row("r6", "Who played the voice of Homer Simpson?", "doc-e")],
}


def toy_leaky_release(root: Path) -> Path:
    """Hamlet in train and dev, doc-a in train and dev."""
    return write_release(root, "1.0.0", SPLITS, dataset="leaky")


def toy_external_sets(directory: Path) -> list[Path]:
    """NQ-open JSONL (an exact match of two rows, a near duplicate, a look-alike that is
    not one), SQuAD JSON (one exact, one near) and Parquet with a question struct."""
    nq_open = directory / "nq-open-test.jsonl"
    nq_open.write_text("".join(json.dumps(r) + "\n" for r in [
        {"question": "who wrote hamlet", "answer": ["Shakespeare"]},
        {"question": "who plays the voice of homer simpson", "answer": ["Dan Castellaneta"]},
        {"question": "what is the population of australia", "answer": ["25 million"]},
    ]), encoding="utf-8")
    squad = directory / "squad-dev.json"
    squad.write_text(json.dumps({"version": "1.1", "data": [{"title": "T", "paragraphs": [
        {"context": "c", "qas": [
            {"id": "s1", "question": "When did the Berlin wall fall?", "answers": []},
            {"id": "s2", "question": "What's the capital of Australia?", "answers": []},
            {"id": "s3", "question": "Why is the sky blue?", "answers": []}]}]}]}),
        encoding="utf-8")
    nested = directory / "nested.parquet"
    pq.write_table(pa.Table.from_pylist([
        {"example_id": "n1", "question": {"text": "how many bones are in the human body?"}},
        {"example_id": "n2", "question": {"text": "who discovered penicillin"}}]), nested)
    return [nq_open, squad, nested]


@pytest.fixture(scope="module")
def leaky(tmp_path_factory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("leaky")
    external = root / "external"
    external.mkdir()
    return toy_leaky_release(root / "releases"), toy_external_sets(external)


def test_normalization_and_shingles():
    assert normalize_question(" Who  WROTE\tHamlet? ") == "who wrote hamlet"
    assert normalize_question("What's the U.S. x-ray") == "whats the us x ray"
    assert normalize_question("ＡＢＣって何？") == "abcって何"
    assert shingles("abcd") == {"abc", "bcd"} and shingles("ab") == {"ab"}
    near = jaccard(shingles(normalize_question("who played the voice of homer simpson")),
                   shingles(normalize_question("who plays the voice of homer simpson")))
    assert 0.8 <= near < 0.9


def test_the_same_question_and_document_in_two_splits(leaky):
    within = within_release_leakage(str(leaky[0]))
    assert within["rows"] == {"train": 3, "dev": 2, "test": 1}
    questions, documents = within["questions"], within["documents"]
    assert (questions["count"], questions["rows"], questions["pairs"]) == (
        1, 2, {"train/dev": 1})
    assert questions["examples"] == [{"question": "who wrote hamlet",
                                      "splits": {"train": 1, "dev": 1},
                                      "rows": [{"split": "train", "id": "r1",
                                                "question": "Who wrote Hamlet?"},
                                               {"split": "dev", "id": "r4",
                                                "question": "who  wrote HAMLET"}]}]
    assert documents["column"] == "document_id" and documents["count"] == 1
    assert documents["examples"][0]["rows"] == [{"split": "train", "id": "r1"},
                                                {"split": "dev", "id": "r5"}]


def test_a_staging_directory_without_manifest(tmp_path):
    """What publish calls: split directories and no dataset_info.json; NQ's nested columns."""
    schema = pa.schema([("id", pa.string()),
                        ("question", pa.struct([("text", pa.string())])),
                        ("document", pa.struct([("title", pa.string()), ("url", pa.string())]))])
    rows = {"train": [("1", "Where is Paris", "u1"), ("2", "who is x", "u2")],
            "test": [("3", "where is paris?", "u2")], "dev": []}
    for split, values in rows.items():
        (tmp_path / split).mkdir()
        pq.write_table(pa.Table.from_pylist(
            [{"id": i, "question": {"text": q}, "document": {"title": "t", "url": u}}
             for i, q, u in values], schema=schema),
            tmp_path / split / f"{split}-00000-of-00001.parquet")
    within = within_release_leakage(str(tmp_path))
    assert within["splits"] == ["train", "dev", "test"]
    assert within["questions"]["column"] == "question.text"
    assert within["questions"]["pairs"] == {"train/test": 1}
    assert within["documents"]["column"] == "document.url"
    assert within["documents"]["examples"][0]["document"] == "u2"
    tables = {"train": ["train/train-00000-of-00001.parquet"],
              "test": ["test/test-00000-of-00001.parquet"]}
    assert within_release_leakage(str(tmp_path), tables)["questions"]["count"] == 1
    json.dumps(within)


def test_a_release_without_splits_has_no_within_check(tmp_path):
    release = write_release(tmp_path, "1.0.0", {"questions": [{"qid": "q1", "question": "x"}]},
                            dataset="reqa_toy")
    within = within_release_leakage(str(release))
    assert within["questions"] is None and within["documents"] is None and within["note"]
    report = release_leakage(str(release))
    assert report["questions_checked"] == {"questions": "question"}


def test_exact_and_near_duplicates_in_external_sets(leaky):
    release, (nq_open, squad, nested) = leaky
    report = release_leakage(str(release), [str(nq_open), str(squad), str(nested)])
    first, second, third = report["external"]
    assert (first["exact"]["rows"], first["exact"]["external_questions"]) == (2, 1)
    assert first["exact"]["by_table"] == {"train": 1, "dev": 1}
    assert [e["id"] for e in first["exact"]["examples"]] == ["r1", "r4"]
    assert first["near"]["rows"] == 1
    near = first["near"]["examples"][0]
    assert (near["id"], near["external_id"], near["table"]) == ("r6", 1, "test")
    assert 0.8 <= near["jaccard"] < 0.9 and 0 < near["estimated_jaccard"] <= 1
    assert (second["exact"]["rows"], second["near"]["rows"]) == (1, 1)
    assert second["near"]["examples"][0]["external_id"] == "s2"
    assert third["exact"]["examples"][0]["external_id"] == "n1"
    assert report == release_leakage(str(release), [str(nq_open), str(squad), str(nested)])


def test_a_higher_threshold_drops_the_near_duplicates(leaky):
    release, (nq_open, _, _) = leaky
    report = release_leakage(str(release), [str(nq_open)], threshold=0.95)
    assert report["external"][0]["near"]["rows"] == 0
    assert report["external"][0]["exact"]["rows"] == 2


def test_japanese_questions_keep_their_characters(tmp_path):
    release = write_release(tmp_path / "r", "1.0.0", {
        "train": [_row("j1", "東京タワーの高さは何メートルですか？", "d1")],
        "test": [_row("j2", "スカイツリーの高さは何メートルですか", "d2")]}, dataset="ja")
    external = tmp_path / "ja.jsonl.gz"
    lines = [json.dumps({"id": i, "question": q}) + "\n" for i, q in [
        ("e1", "東京タワーの高さは何メートルですか"),
        ("e2", "スカイツリーの高さは何メートルですか。教えて")]]
    external.write_bytes(gzip.compress("".join(lines).encode("utf-8")))
    result = release_leakage(str(release), [str(external)])["external"][0]
    assert [e["id"] for e in result["exact"]["examples"]] == ["j1"]
    assert [e["external_id"] for e in result["near"]["examples"]] == ["e2"]


def test_unreadable_external_sets_are_named(tmp_path):
    with pytest.raises(LeakageError, match="no such file"):
        read_external(str(tmp_path / "missing.jsonl"))
    other = tmp_path / "other.jsonl"
    other.write_text('{"query": "x"}\n', encoding="utf-8")
    with pytest.raises(LeakageError, match="no question in field 'question'"):
        read_external(str(other))
    assert read_external(str(other), "query") == [(0, "x")]
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(LeakageError, match="not readable"):
        read_external(str(broken))
