"""Golden end-to-end tests of build_jnq (JNQ and JBoolQ) on the bundled Japanese sample."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines import build_jnq
from tests.conftest import PROJECT_ROOT, TEST_RUNNER
from transforms.jnq.spec import SPEC

GOLDEN = json.loads((PROJECT_ROOT / "tests" / "golden" / "jnq_sample_expected.json")
                    .read_text(encoding="utf-8"))
QUERIES = [q for q in GOLDEN["queries"] if q["intent"] != "malformed"]
CORPUS = PROJECT_ROOT / "pipelines" / "samples" / "jnq" / "corpus"
TITLES = {row["file"]: row["title"] for row in csv.DictReader(
    (CORPUS / "index.tsv").open(encoding="utf-8"), delimiter="\t")}


def _run(tmp_path_factory, *extra):
    root = tmp_path_factory.mktemp("jnq")
    result = build_jnq.run([TEST_RUNNER, "--output", str(root), *extra])
    return result, Path(result["path"])


def _rows(path: Path) -> list[dict]:
    return [r for split in ("train", "dev", "test") for r in pq.read_table(path / split)
            .to_pylist()]


@pytest.fixture(scope="module")
def jnq(sample_build):
    return sample_build("jnq")  # the sample in memory, shared with test_determinism


@pytest.fixture(scope="module")
def jboolq(tmp_path_factory):
    return _run(tmp_path_factory, "--variant", "jboolq", "--stop-after", "questions")


def test_log_counts(jnq):
    result, _ = jnq
    counts = result["stats"]["counts"]
    assert counts["log"]["rows"] == GOLDEN["events"]
    assert counts["log"]["malformed_rows"] == GOLDEN["malformed"]
    assert counts["queries"]["distinct"] == len(QUERIES)
    assert SPEC.counters.undeclared(result["stats"]["counts"]) == []


def test_jnq_questions_patterns_and_links(jnq):
    result, path = jnq
    rows = {r["question"]: r for r in _rows(path)}
    candidates = [q for q in QUERIES if q["jnq_candidate"]]
    assert result["stats"]["counts"]["queries"]["accepted"] == len(candidates)
    for query in candidates:
        expected = query["expected_wiki_file"]
        if expected is None:
            assert query["query"] not in rows
            continue
        row = rows[query["query"]]
        assert row["patterns"] == query["patterns_intended"], query["query"]
        assert row["words"] == query["words"]
        assert row["document_title"] == TITLES[expected], query["query"]
        assert "ja.wikipedia.org//w/index.php?title=" in row["document_url"]
    assert {q["query"] for q in QUERIES if q["intent"] == "trap"}.isdisjoint(rows)


def test_candidates_are_first_paragraph_plus_top4(jnq):
    _, path = jnq
    for row in _rows(path):
        ids, ranks, scores = (row["candidate_paragraph_ids"], row["candidate_ranks"],
                              row["candidate_scores"])
        assert ids[0] == 0 and ranks == list(range(len(ids)))
        assert len(ids) == min(5, len(row["paragraphs"])) and len(set(ids)) == len(ids)
        assert scores[1:] == sorted(scores[1:], reverse=True)
        assert [p["id"] for p in row["paragraphs"]] == list(range(len(row["paragraphs"])))
        assert not re.search(r"\[\d+\]", row["snippet"])  # citation marks removed


def test_jboolq_questions_only(jboolq):
    result, path = jboolq
    assert result["manifest"]["dataset"] == "jboolq_questions"
    accepted = {r["question"] for r in pq.read_table(path / "questions").to_pylist()}
    assert accepted == {q["query"] for q in QUERIES if q["jboolq_candidate"]}
    assert "pattern" not in build_jnq.format_summary(result)


def test_spaced_and_short_queries_are_rejected_with_reasons(jnq):
    result, _ = jnq
    rejected = result["stats"]["counts"]["queries"]
    assert rejected["rejected.contains_space"] == sum(q["has_space"] for q in QUERIES)
    assert rejected["rejected.too_few_words"] > 0 and rejected["rejected.no_pattern"] > 0
