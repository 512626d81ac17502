"""``build_reqa --previous``: a paragraph the previous release indexed is not split again, rows
whose values did not change are carried byte for byte, and a refresh writes the rows a full
rebuild writes (``transforms.reqa.refresh``)."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.build_reqa import main, sample_path
from tests.conftest import TEST_RUNNER
from tests.transforms.reqa.samples import nq_example
from transforms.reqa import labeling

SQUAD = json.loads(Path(sample_path("squad")).read_text(encoding="utf-8"))
GROUPS = ("questions", "candidates")
IDS = {"questions": "qid", "candidates": "candidate_id"}


@pytest.fixture
def split_texts(monkeypatch) -> list[str]:
    """Every paragraph text the sentence splitter is given, in this process (the test
    runner runs the job in it)."""
    texts: list[str] = []
    make = labeling.make_splitter

    class Counting:
        def __init__(self, inner):
            self.inner = inner

        def load(self) -> None:
            self.inner.load()

        def split_all(self, batch):
            texts.extend(batch)
            return self.inner.split_all(batch)

    monkeypatch.setattr(labeling, "make_splitter",
                        lambda name, batch_size=64: Counting(make(name, batch_size)))
    return texts


def squad_file(path: Path, articles: list[dict]) -> Path:
    path.write_text(json.dumps({"version": "1.1", "data": articles}), encoding="utf-8")
    return path


def build(root: Path, source: str, path: Path, version: str, *extra: str) -> int:
    return main(["--source", source, "--input", str(path), "--splitter", "reqa",
                 "--output", str(root), "--version", version, *extra, TEST_RUNNER])


def rows(version_dir: Path) -> dict[str, dict[str, dict]]:
    """Rows by table and id."""
    return {group: {row[IDS[group]]: row for row in pq.read_table(version_dir / group)
                    .to_pylist()} for group in GROUPS}


def data_files(version_dir: Path) -> dict[str, bytes]:
    return {p.relative_to(version_dir).as_posix(): p.read_bytes()
            for group in GROUPS for p in sorted((version_dir / group).glob("*.parquet"))}


def stats(version_dir: Path) -> dict:
    return json.loads((version_dir / "stats.json").read_text(encoding="utf-8"))


def test_a_squad_refresh_splits_only_new_paragraphs_and_carries_unchanged_rows(
        tmp_path, split_texts, capsys):
    harrow, bee, glenmoor = SQUAD["data"]
    assert build(tmp_path / "r", "squad", squad_file(tmp_path / "v1.json", SQUAD["data"]),
                 "1") == 0
    changed_bee = copy.deepcopy(bee)  # its second paragraph gains a sentence at the end
    paragraph = changed_bee["paragraphs"][1]
    paragraph["context"] += " Bees also make wax."
    new = {"title": "Kestrel", "paragraphs": [{
        "context": "The kestrel hovers over fields. It eats voles and beetles.",
        "qas": [{"id": "new-1", "question": "What does the kestrel eat?",
                 "answers": [{"text": "voles and beetles", "answer_start": 40}]}]}]}
    # Glenmoor is gone: "When was it built?" (asked of Harrow and of Glenmoor) loses an example
    v2 = squad_file(tmp_path / "v2.json", [harrow, changed_bee, new])
    split_texts.clear()
    capsys.readouterr()
    assert build(tmp_path / "r", "squad", v2, "2", "--previous", "auto") == 0
    out = capsys.readouterr().out
    assert sorted(split_texts) == sorted([paragraph["context"],
                                          new["paragraphs"][0]["context"]])
    root = tmp_path / "r" / "reqa_squad"
    before, after = rows(root / "1"), rows(root / "2")
    unchanged = {p["context"] for p in harrow["paragraphs"] + bee["paragraphs"][:1]}
    carried = {group: {key for key, row in after[group].items() if row == before[group].get(key)}
               for group in GROUPS}
    assert {c["context"] for c in after["candidates"].values()
            if c["candidate_id"] in carried["candidates"]} == unchanged
    assert sorted(q["question"] for q in after["questions"].values()
                  if q["qid"] not in carried["questions"]) == [
        "What does the kestrel eat?",  # new
        "What does the waggle dance encode?",  # its paragraph changed: other candidate ids
        "When was it built?"]  # asked of Harrow and of the removed Glenmoor
    built = next(q for q in after["questions"].values() if q["question"] == "When was it built?")
    assert built["example_ids"] == ["reqa-sample-01"]
    assert build(tmp_path / "full", "squad", v2, "1") == 0  # the same input, built in full
    assert data_files(root / "2") == data_files(tmp_path / "full" / "reqa_squad" / "1")
    assert [len(carried[group]) for group in GROUPS] == [6, 10]
    refresh = stats(root / "2")["refresh"]
    # questions: 6 carried, 2 recomputed, 1 new, Glenmoor's other 2 removed; candidates: 10
    # carried, 6 new (the changed paragraph's 4, the kestrel's 2), 6 removed (old ones, Glenmoor)
    assert (refresh["carried"], refresh["recomputed"], refresh["new"], refresh["removed"]) == (
        16, 2, 7, 8)
    assert refresh["inputs_carried"] == 3  # Harrow's two paragraphs and the bee's first
    assert "sentences of 3 paragraphs reused, not split again" in out
    card = (root / "2" / "README.md").read_text(encoding="utf-8")
    assert "Refresh: built on reqa\\_squad 1. The sentences of 3 paragraphs" in card
    assert "## Changes since reqa_squad 1" in card


def test_an_nq_refresh_recomputes_a_question_whose_answer_changed(tmp_path, split_texts):
    def nq_file(name: str, examples: list[dict]) -> Path:
        path = tmp_path / name
        path.write_bytes(gzip.compress("".join(json.dumps(e) + "\n" for e in examples)
                                       .encode("utf-8")))
        return path

    first, second = nq_example(1), nq_example(2, shorts=("1810",))
    assert build(tmp_path / "r", "nq", nq_file("v1.jsonl.gz", [first, second]), "1") == 0
    moved = nq_example(2, shorts=("35 m",))  # same id, question and page: another answer
    v2 = nq_file("v2.jsonl.gz", [first, moved, nq_example(3)])
    split_texts.clear()
    assert build(tmp_path / "r", "nq", v2, "2", "--previous", "auto") == 0
    assert split_texts == []  # one paragraph, shared by every example, indexed before
    root = tmp_path / "r" / "reqa_nq"
    before, after = rows(root / "1"), rows(root / "2")
    assert after["candidates"] == before["candidates"]
    by_text = {q["question"]: q for q in after["questions"].values()}
    old_text = {q["question"]: q for q in before["questions"].values()}
    assert by_text["question 1"] == old_text["question 1"]
    assert by_text["question 2"]["correct_candidate_ids"] == \
        by_text["question 1"]["correct_candidate_ids"] != \
        old_text["question 2"]["correct_candidate_ids"]
    refresh = stats(root / "2")["refresh"]
    assert (refresh["carried"], refresh["recomputed"], refresh["new"], refresh["removed"]) == (
        len(before["candidates"]) + 1, 1, 1, 0)
    assert build(tmp_path / "full", "nq", v2, "1") == 0
    assert data_files(root / "2") == data_files(tmp_path / "full" / "reqa_nq" / "1")


def test_a_refresh_of_the_same_input_writes_the_full_builds_bytes(tmp_path, split_texts):
    source = squad_file(tmp_path / "in.json", SQUAD["data"])
    assert build(tmp_path / "r", "squad", source, "1") == 0
    moved = squad_file(tmp_path / "elsewhere.json", SQUAD["data"])  # --input: not a row option
    split_texts.clear()
    assert build(tmp_path / "r", "squad", moved, "2", "--previous", "auto",
                 "--batch-size", "1", "--max-rows-per-shard", "7") == 0
    assert split_texts == []
    root = tmp_path / "r" / "reqa_squad"
    assert rows(root / "2") == rows(root / "1")
    assert build(tmp_path / "r", "squad", moved, "3", "--max-rows-per-shard", "7") == 0
    assert data_files(root / "2") == data_files(root / "3")
    refresh = stats(root / "2")["refresh"]
    assert refresh["carried"] == sum(map(len, rows(root / "1").values()))
    assert refresh["recomputed"] == refresh["new"] == refresh["removed"] == 0
    assert refresh["changes"]["identical_rows"] is True
    assert stats(root / "2")["counts"] == stats(root / "3")["counts"]  # every example read


def test_a_changed_splitter_is_refused_unless_recompute_all(tmp_path, split_texts, capsys):
    source = squad_file(tmp_path / "in.json", SQUAD["data"])
    assert build(tmp_path / "r", "squad", source, "1") == 0
    capsys.readouterr()
    argv = ["--input", str(source), "--output", str(tmp_path / "r"), "--version", "2",
            "--previous", "auto", "--splitter", "senter", TEST_RUNNER]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--splitter was 'reqa', now 'senter'" in err and "--recompute-all" in err
    assert not (tmp_path / "r" / "reqa_squad" / "2").exists()
    split_texts.clear()
    assert main([*argv[:-1], "--recompute-all", TEST_RUNNER]) == 0
    assert len(split_texts) == 5  # every paragraph split again, by spaCy's senter this time
    root = tmp_path / "r" / "reqa_squad"
    refresh = stats(root / "2")["refresh"]
    assert refresh["recompute_all"] is True and refresh["carried"] == 0
    assert refresh["recomputed"] + refresh["new"] == sum(map(len, rows(root / "2").values()))
    assert "every paragraph was split again" in (root / "2" / "README.md").read_text()
