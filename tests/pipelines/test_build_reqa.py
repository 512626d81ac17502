"""End-to-end tests of ``pipelines.build_reqa`` on the bundled samples and an NLQuAD release."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.build_reqa import format_summary, main, resolve_input, run, sample_path
from pipelines.cli.errors import UsageError
from tests.conftest import TEST_RUNNER
from transforms.release import DamagedReleaseError
from transforms.reqa.spec import SPEC


def _rows(path: Path, group: str) -> list[dict]:
    return pq.read_table(path / group).to_pylist()


def _jsonl(path: Path, kind: str) -> list[dict]:
    records: list[dict] = []
    for file in sorted((path / "rejected" / kind).glob("*.jsonl")):
        records += [json.loads(line) for line in file.read_text().splitlines()]
    return records


def _check_release(path: Path) -> tuple[list[dict], dict[str, dict]]:
    """Invariants every ReQA release holds; returns questions and candidates by id."""
    names = {p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file()}
    assert {"README.md", "dataset_info.json", "stats.json",
            "questions/questions-00000-of-00001.parquet",
            "candidates/candidates-00000-of-00001.parquet"} <= names
    assert not (path.parent / ".staging").exists()
    questions, candidates = _rows(path, "questions"), _rows(path, "candidates")
    assert pq.read_schema(next((path / "questions").glob("*.parquet"))).names == [
        "qid", "question", "correct_candidate_ids", "source", "document", "example_ids"]
    assert pq.read_schema(next((path / "candidates").glob("*.parquet"))).names == [
        "candidate_id", "sentence", "context", "paragraph_id", "document", "source",
        "sentence_start", "sentence_end"]
    by_id = {c["candidate_id"]: c for c in candidates}
    assert len(by_id) == len(candidates)
    assert len({q["qid"] for q in questions}) == len({q["question"] for q in questions}) == \
        len(questions)
    for c in candidates:
        assert c["context"][c["sentence_start"]:c["sentence_end"]] == c["sentence"]
        assert c["sentence"] == c["sentence"].strip() and c["sentence"]
    for q in questions:
        assert q["correct_candidate_ids"] and set(q["correct_candidate_ids"]) <= set(by_id)
    stats = json.loads((path / "stats.json").read_text())
    examples = stats["examples"]
    assert examples["read"] == examples["kept"] + examples["dropped"] + examples["malformed"]
    assert stats["questions"] == len(questions) and stats["candidates"] == len(candidates)
    assert sum(k * v for k, v in ((int(k), v) for k, v in
                                  stats["sentences_per_paragraph"].items())) == len(candidates)
    manifest = json.loads((path / "dataset_info.json").read_text())
    assert manifest["splits"] == ["questions", "candidates"]
    assert manifest["rows_per_split"] == {"questions": len(questions),
                                          "candidates": len(candidates)}
    return questions, by_id


@pytest.fixture(scope="module")
def squad(tmp_path_factory):
    root = tmp_path_factory.mktemp("reqa")
    result = run([TEST_RUNNER, "--output", str(root)])
    return result, Path(result["path"]), root


def test_squad_sample_release(squad):
    result, path, root = squad
    assert path == root / "reqa_squad" / "1.0.0"
    questions, candidates = _check_release(path)
    stats = result["stats"]
    assert stats["examples"] == {"read": 12, "kept": 11, "dropped": 1, "malformed": 0}
    assert stats["drop_reasons"] == {"answer_offset_mismatch": 1}
    assert (stats["questions"], stats["candidates"], stats["paragraphs"]) == (10, 16, 5)
    assert stats["sentences_per_paragraph"] == {"3": 4, "4": 1}
    assert stats["correct_per_question"] == {"1": 8, "2": 2}
    assert stats["counts"]["answers"] == {"cross_sentence_boundary": 1,
                                          "dropped.answer_offset_mismatch": 1}
    assert SPEC.counters.undeclared(stats["counts"]) == []
    by_text = {q["question"]: q for q in questions}
    built = by_text["When was it built?"]  # asked of two articles: both answers count
    assert built["example_ids"] == ["reqa-sample-01", "reqa-sample-10"]
    assert sorted(candidates[c]["document"] for c in built["correct_candidate_ids"]) == [
        "Glenmoor Mountain Railway", "Harrow Point Lighthouse"]
    crossing = by_text["Where did the keeper and his family live?"]
    assert [candidates[c]["sentence"] for c in sorted(
        crossing["correct_candidate_ids"], key=lambda c: candidates[c]["sentence_start"])] == [
        "The keeper lived in the tower.", "His family stayed in a cottage on the mainland."]
    source = json.loads(Path(sample_path("squad")).read_text())
    answers = {qa["id"]: qa["answers"][0]["text"] for article in source["data"]
               for paragraph in article["paragraphs"] for qa in paragraph["qas"]}
    for q in questions:
        if q is not crossing:
            sentences = " ".join(candidates[c]["sentence"] for c in q["correct_candidate_ids"])
            assert all(answers[e] in sentences for e in q["example_ids"]), q
    (dropped,) = _jsonl(path, "dropped_examples")
    assert (dropped["example_id"], dropped["reason"]) == ("reqa-sample-09",
                                                          "answer_offset_mismatch")
    readme = (path / "README.md").read_text()
    assert "ReQA" in readme and "| dropped, answer_offset_mismatch | 1 |" in readme


def test_squad_output_is_deterministic(squad):
    _, path, root = squad
    again = Path(run([TEST_RUNNER, "--output", str(root), "--version", "again"])["path"])
    first = json.loads((path / "dataset_info.json").read_text())["files"]
    second = json.loads((again / "dataset_info.json").read_text())["files"]
    for name, entry in first.items():
        if name.endswith((".parquet", ".jsonl")):
            assert second[name]["sha256"] == entry["sha256"], name


def test_existing_version_and_skip_existing(squad, capsys):
    result, path, root = squad
    assert main([TEST_RUNNER, "--output", str(root)]) == 3  # EXIT_RELEASE_EXISTS
    assert "already exists" in capsys.readouterr().err
    skipped = run([TEST_RUNNER, "--output", str(root), "--skip-existing"])
    assert skipped["manifest"]["run_id"] == result["manifest"]["run_id"]
    summary = format_summary(result)
    assert "reqa_squad 1.0.0 written to" in summary
    assert "dropped, answer_offset_mismatch: 1" in summary
    assert "candidate sentences:   16" in summary


def test_nq_sample_release(tmp_path):
    result = run([TEST_RUNNER, "--source", "nq", "--output", str(tmp_path)])
    path = Path(result["path"])
    assert path == tmp_path / "reqa_nq" / "1.0.0"
    questions, candidates = _check_release(path)
    stats = result["stats"]
    assert stats["examples"] == {"read": 4, "kept": 1, "dropped": 3, "malformed": 0}
    assert stats["drop_reasons"] == {"long_answer_not_paragraph": 1,
                                     "not_one_short_answer": 1, "null_long_answer": 1}
    (question,) = questions
    assert question["question"] == "who was the last keeper of harrow point lighthouse"
    assert [candidates[c]["sentence"] for c in question["correct_candidate_ids"]] == [
        "The last keeper , Thomas Reid , left in the spring of that year ."]
    assert sorted(c["sentence"] for c in candidates.values()) == [
        "The last keeper , Thomas Reid , left in the spring of that year .",
        "The light was tended by resident keepers until it was automated in 1988 ."]
    reasons = {r["example_id"]: (r["reason"], r["detail"])
               for r in _jsonl(path, "dropped_examples")}
    assert reasons == {"5000000000000000002": ("null_long_answer", ""),
                       "5000000000000000003": ("long_answer_not_paragraph", "<Table>"),
                       "5000000000000000004": ("not_one_short_answer", "2 short answers")}


def test_nlquad_needs_input(tmp_path):
    with pytest.raises(UsageError, match="--source nlquad needs --input"):
        run([TEST_RUNNER, "--source", "nlquad", "--output", str(tmp_path)])


def test_nlquad_release(tmp_path):
    from pipelines.build_nlquad import run as build_nlquad

    nlquad = Path(build_nlquad([TEST_RUNNER, "--output", str(tmp_path / "nlquad")])["path"])
    rows = [row for split in ("train", "dev", "test")
            for row in pq.read_table(nlquad / split).to_pylist()]
    # the dataset directory (with LATEST) resolves to the version directory
    assert resolve_input("nlquad", str(nlquad.parent)) == str(nlquad / "*" / "*.parquet")
    result = run([TEST_RUNNER, "--source", "nlquad", "--input", str(nlquad.parent),
                  "--output", str(tmp_path / "out")])
    questions, candidates = _check_release(Path(result["path"]))
    stats = result["stats"]
    assert stats["examples"]["read"] == len(rows) == stats["examples"]["kept"]
    assert len(questions) == len({row["question"] for row in rows})
    by_text = {q["question"]: q for q in questions}
    for row in rows:
        correct = [candidates[c] for c in by_text[row["question"]]["correct_candidate_ids"]
                   if candidates[c]["document"] == row["document_id"]]
        # the answer paragraphs' sentences, all of them, and nothing outside the answer
        assert " ".join(c["sentence"] for c in sorted(
            correct, key=lambda c: row["context"].index(c["context"]) + c["sentence_start"])
        ).split() == row["answer_text"].split()
    only_train = run([TEST_RUNNER, "--source", "nlquad", "--input", str(nlquad),
                      "--split", "train", "--output", str(tmp_path / "train")])
    assert only_train["stats"]["examples"]["read"] == len(
        pq.read_table(nlquad / "train").to_pylist())


def test_resolve_input_for_release_directories(tmp_path):
    assert resolve_input("squad", None) == sample_path("squad")
    with pytest.raises(ValueError):
        resolve_input("nlquad", None)
    assert resolve_input("squad", "data/*.json") == "data/*.json"
    version = tmp_path / "nq" / "1.0.0"
    (version / "nq_original" / "dev").mkdir(parents=True)
    (version / "dataset_info.json").write_text("{}")
    (tmp_path / "nq" / "LATEST").write_text("1.0.0\n")
    expected = str(version / "nq_original" / "dev" / "*.jsonl*")
    assert resolve_input("nq", str(version), "dev") == expected
    assert resolve_input("nq", str(tmp_path / "nq"), "dev") == expected
    assert resolve_input("nq", str(version)) == str(version / "nq_original" / "*" / "*.jsonl*")
    (version / "nq_original" / "dev" / "nq-dev-00.jsonl.gz").write_bytes(
        Path(sample_path("nq")).read_bytes())
    with pytest.raises(DamagedReleaseError, match="not in the manifest"):
        run([TEST_RUNNER, "--source", "nq", "--input", str(tmp_path / "nq"),
             "--output", str(tmp_path / "out")])
    result = run([TEST_RUNNER, "--source", "nq", "--input", str(tmp_path / "nq"),
                  "--output", str(tmp_path / "out"), "--no-verify"])  # a hand-made release
    assert result["stats"]["examples"]["read"] == 4


def test_bm25_baselines_on_the_card(squad):
    result, path, _ = squad
    stats = result["stats"]
    baselines = stats["baselines"]
    assert baselines["n"] == stats["questions"]
    assert [r["name"] for r in baselines["rows"]] == [
        "BM25 over sentences", "BM25 over paragraphs (context)"]
    for row in baselines["rows"]:
        assert 0 < row["sentence_mrr"] <= 1
        assert row["sentence_r@1"] <= row["sentence_r@5"] <= row["sentence_r@10"]
    assert "Untrained baselines" in (path / "README.md").read_text()


def test_splitter_reqa_sample_release(tmp_path):
    """``--splitter reqa``: the paper's rules instead of spaCy; same contract, card says so."""
    from filters.text.reqa_sentences import reqa_sentence_spans

    result = run([TEST_RUNNER, "--splitter", "reqa", "--output", str(tmp_path)])
    path = Path(result["path"])
    questions, candidates = _check_release(path)
    assert result["manifest"]["options"]["splitter"] == "reqa"
    for row in candidates.values():
        assert (row["sentence_start"], row["sentence_end"]) in reqa_sentence_spans(
            row["context"])
    assert "ReQA paper's regular-expression rules" in (path / "README.md").read_text(
        encoding="utf-8")
    rows = {r["name"]: r for r in result["stats"]["baselines"]["rows"]}
    assert result["stats"]["baselines"]["n"] == len(questions)
    assert {"sentence_mrr", "paragraph_mrr", "paragraph_r@10"} <= set(
        rows["BM25 over paragraphs (context)"])


def test_unknown_splitter_is_a_usage_error(tmp_path):
    from pipelines.cli.errors import UsageError

    with pytest.raises(UsageError, match="--splitter"):
        run([TEST_RUNNER, "--splitter", "nltk", "--output", str(tmp_path)])
