"""Golden end-to-end tests of build_nq (question selection) and build_categories."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines import build_nq
from pipelines.cli.errors import NoInputError, UsageError
from tests.conftest import PROJECT_ROOT, TEST_RUNNER
from transforms.nq.spec import SPEC

GOLDEN = json.loads((PROJECT_ROOT / "tests" / "golden" / "nq_sample_expected.json").read_text())
SAMPLES = PROJECT_ROOT / "pipelines" / "samples"


@pytest.fixture(scope="module")
def nq_release(tmp_path_factory):
    root = tmp_path_factory.mktemp("nq")
    result = build_nq.run([TEST_RUNNER, "--output", str(root), "--keep-rejected",
                           "--stop-after", "questions"])
    return result, Path(result["path"])


def test_sample_log_counts_match_golden(nq_release):
    result, _ = nq_release
    counts = result["stats"]["counts"]
    assert counts["log"]["rows"] == GOLDEN["events"]
    assert counts["log"]["malformed_rows"] == GOLDEN["malformed"]
    assert counts["queries"]["distinct"] == GOLDEN["queries_after_normalization"]
    assert SPEC.counters.undeclared(result["stats"]["counts"]) == []


def test_users_window_selection_matches_golden(nq_release):
    _, path = nq_release
    accepted = pq.read_table(path / "questions").to_pylist()
    rejected = pq.read_table(path / "rejected" / "queries").to_pylist()
    after_users = {r["question"] for r in accepted} | {
        r["question"] for r in rejected
        if r["reason"] not in ("too_few_users", "users_not_within_window")}
    assert sorted(after_users) == GOLDEN["passing_min_users_2_window_7d"]
    every = {r["question"] for r in accepted} | {r["question"] for r in rejected}
    assert len(every) == GOLDEN["queries_after_normalization"]


def test_accepted_rows_record_heuristics_and_variants(nq_release):
    _, path = nq_release
    rows = {r["question"]: r for r in pq.read_table(path / "questions").to_pylist()}
    row = rows["who played the lead role in the movie the godfather"]
    assert 2 in row["heuristics"] and 4 in row["heuristics"]
    assert row["tokens"] >= 8 and row["users_in_window"] >= 2
    assert all(r["heuristics"] and r["tokens"] >= 8 for r in rows.values())
    assert any(v != q for q, r in rows.items() for v in r["variants"])
    rejected = {r["question"]: r["reason"]
                for r in pq.read_table(path / "rejected" / "queries").to_pylist()}
    assert rejected["facebook login"] == "too_few_words"
    assert rejected["how to reset a forgotten password on a gmail account"] == "no_heuristic"


def test_release_files_and_summary(nq_release):
    result, path = nq_release
    manifest = json.loads((path / "dataset_info.json").read_text())
    assert manifest["dataset"] == "nq_questions"
    assert manifest["rows_per_split"]["questions"] == result["stats"]["counts"]["queries"][
        "accepted"]
    card = (path / "README.md").read_text()
    assert card.startswith("---\n") and "\n# NQ question selection" in card
    assert "stopped after question selection" in build_nq.format_summary(result)


def test_pre_aggregated_jsonl_input(tmp_path):
    result = build_nq.run([TEST_RUNNER, "--input", str(SAMPLES / "nq" /
                                                      "query_log_aggregated.jsonl"),
                           "--output", str(tmp_path), "--stop-after", "questions"])
    counts = result["stats"]["counts"]
    lines = (SAMPLES / "nq" / "query_log_aggregated.jsonl").read_text().splitlines()
    single_user = sum(1 for line in lines if json.loads(line)["users"] < 2)
    assert counts["log"]["rows"] == len(lines)
    assert counts["queries"]["rejected.too_few_users"] == single_user
    assert counts["queries"]["accepted"] > 0


def test_bad_options_fail_fast(tmp_path):
    with pytest.raises(UsageError, match="--window must be a number of days"):
        build_nq.run(["--window", "a week", "--output", str(tmp_path)])
    with pytest.raises(NoInputError, match="no input matches .*missing.tsv"):
        build_nq.run(["--categories", str(tmp_path / "missing.tsv"), "--output", str(tmp_path)])


@pytest.fixture(scope="module")
def categories_release(sample_build):
    return sample_build("categories")  # the sample in memory, shared with test_determinism


def test_shipped_lexicon_is_what_the_pipeline_builds(categories_release):
    _, path = categories_release
    built = (path / "categories.tsv").read_text()
    assert built == (SAMPLES / "nq" / "categories.tsv").read_text(), (
        "rebuild: python -m pipelines.build_categories && copy categories.tsv to "
        "pipelines/samples/nq/")


def test_lexicon_content_and_html_noise(categories_release):
    result, path = categories_release
    rows = {r["lemma"]: r for r in pq.read_table(path / "lexicon").to_pylist()}
    assert len(rows) > 250
    assert {"country", "river", "film", "composer", "city"} <= set(rows)
    assert "france" in rows["country"]["hyponyms"]
    for planted in ("harpsichordist", "manuscript", "seamount", "ferry"):
        assert planted not in rows, planted  # infobox/reference/navbox text is skipped
    counts = result["stats"]["counts"]
    assert counts["corpus"]["files"] == 5
    assert set(counts["hearst"]) == {f"pattern.{p}" for p in (
        "such_as", "such_np_as", "or_other", "and_other", "including", "especially")}


def test_nq_accepts_a_categories_release_directory(categories_release, tmp_path):
    _, path = categories_release
    result = build_nq.run([TEST_RUNNER, "--categories", str(path), "--output", str(tmp_path),
                           "--stop-after", "questions"])
    assert result["stats"]["counts"]["queries"]["accepted"] > 0


def test_max_decoded_mib_reaches_the_query_log_reader(tmp_path):
    """A log that decodes past --max-decoded-mib is unreadable as a whole; the others are read
    (issue 23 §15: the cap reached the reader only through its default before)."""
    import gzip

    logs = tmp_path / "logs"
    logs.mkdir()
    sample = SAMPLES / "nq" / "query_log_aggregated.jsonl"
    (logs / "small.jsonl").write_bytes(sample.read_bytes())
    line = json.dumps({"query": "who wrote the book of kells", "count": 3, "users": 2})
    (logs / "big.jsonl.gz").write_bytes(gzip.compress((line + "\n").encode() * 40_000))
    result = build_nq.run([TEST_RUNNER, "--input", str(logs / "*"), "--max-decoded-mib", "1",
                           "--output", str(tmp_path / "out"), "--stop-after", "questions"])
    log = result["stats"]["counts"]["log"]
    assert log["unreadable.decoded_too_large"] == 1
    assert log["rows"] == len(sample.read_text().splitlines())
