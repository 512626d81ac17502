"""build_nq --previous on the bundled sample (local index, no network): carried examples are
the previous release's bytes in both formats, new and removed questions are counted, and a
refresh writes the data files a full rebuild writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from filters.nq.queries import normalize_query
from pipelines import build_nq
from tests.conftest import PROJECT_ROOT, TEST_RUNNER
from tests.pipelines.refresh_checks import (
    data_files,
    log_without,
    original_lines,
    parquet_rows,
    read_json,
    refresh_counts,
)
from transforms.nq.refresh import published_key

SAMPLE_LOG = PROJECT_ROOT / "pipelines" / "samples" / "nq" / "query_log.tsv"
SPLITS = ("train", "dev", "test")
NEW = "who won the fifa world cup in the year 2014"  # not in v1's log
GONE = "where does the amazon river start and end"  # not in v2's log
KEPT_DROPS = 4  # the sample's questions without an example (3 without Wikipedia, 1 redirect)
OUTCOMES = "refresh/queries/queries-00000-of-00001.jsonl"


def build(root: Path, log: Path, version: str, *extra: str) -> int:
    """A build of an edited sample log: not the sample, so the bundled index is chosen on
    purpose (``--sample-index``); its pages still answer the log's questions."""
    return build_nq.main([TEST_RUNNER, "--input", str(log), "--output", str(root),
                          "--version", version, "--keep-rejected", "--sample-index", *extra])


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """v1: a full build without NEW; v2: a refresh on v1 of a log without GONE; v3: a full
    build of v2's log; v4: a refresh on v2 of the same log."""
    tmp = tmp_path_factory.mktemp("nq_refresh")
    root = tmp / "releases"
    first = log_without(SAMPLE_LOG, tmp / "v1.tsv", NEW, normalize_query)
    second = log_without(SAMPLE_LOG, tmp / "v2.tsv", GONE, normalize_query)
    assert build(root, first, "1") == 0
    assert build(root, second, "2", "--previous", "auto") == 0
    assert build(root, second, "3") == 0
    assert build(root, second, "4", "--previous", str(root / "nq" / "2")) == 0
    return root / "nq"


def test_carried_examples_are_the_previous_bytes_in_both_formats(releases):
    before, after = releases / "1", releases / "2"
    old_rows = parquet_rows(before, published_key, SPLITS)
    new_rows = parquet_rows(after, published_key, SPLITS)
    old_lines, new_lines = original_lines(before), original_lines(after)
    carried = set(old_rows) - {GONE}
    assert len(carried) == 29 and set(new_rows) == carried | {NEW}
    for question in carried:
        assert new_rows[question] == old_rows[question], question  # values and split
        assert new_lines[question] == old_lines[question], question  # bytes and split
    assert new_lines[NEW][0] == new_rows[NEW][0]


def test_new_and_removed_questions_are_counted(releases):
    assert refresh_counts(releases / "2") == (29, 0, 1, 1)
    stats = read_json(releases / "2", "stats.json")
    counts = stats["counts"]
    assert counts["linking"]["questions"] == 1  # only NEW was searched
    assert counts["linking"]["previously_dropped"] == KEPT_DROPS
    assert counts["examples"]["built"] == 1
    assert counts["queries"]["accepted"] == 34  # the query stage runs in full
    assert stats["refresh"]["inputs_carried"] == 29
    assert stats["refresh"]["changes"]["moved_between_splits"]["count"] == 0


def test_a_refresh_writes_the_data_files_of_a_full_rebuild(releases):
    full = data_files(releases / "3")
    assert any(name.endswith(".jsonl.gz") for name in full)
    assert any(name.endswith(".parquet") for name in full)
    assert data_files(releases / "2") == full  # new and removed questions
    assert data_files(releases / "4") == full  # unchanged inputs
    assert refresh_counts(releases / "4") == (30, 0, 0, 0)
    rejected = "rejected/unlinked_questions/unlinked_questions-00000-of-00001.jsonl"
    assert (releases / "4" / rejected).read_bytes() == (releases / "3" / rejected).read_bytes()


def test_recorded_query_outcomes_stand_for_tagging_again(releases):
    full = (releases / "3" / OUTCOMES).read_bytes()
    assert (releases / "2" / OUTCOMES).read_bytes() == full  # new and removed questions
    assert (releases / "4" / OUTCOMES).read_bytes() == full
    tokenized = len(full.splitlines())
    assert tokenized > 34  # accepted questions and queries the heuristics rejected

    def queries(version: str) -> dict:
        return read_json(releases / version, "stats.json")["counts"]["queries"]

    assert "outcomes_carried" not in queries("3")
    assert queries("2")["outcomes_carried"] == tokenized - 1  # NEW: not in v1's log
    assert queries("4")["outcomes_carried"] == tokenized
    assert {name: count for name, count in queries("2").items()
            if name != "outcomes_carried"} == queries("3")


def test_length_statistics_describe_the_whole_release(releases):
    full = read_json(releases / "3", "stats.json")["lengths"]
    assert read_json(releases / "2", "stats.json")["lengths"] == full
    assert read_json(releases / "4", "stats.json")["lengths"] == full
    assert full["all"]["page_tokens"]["count"] == 30


def test_the_card_and_summary_say_which_counts_are_this_runs(releases, capsys):
    card = (releases / "4" / "README.md").read_text(encoding="utf-8")
    assert "## Changes since nq 2" in card
    assert "Questions with a Wikipedia page in the top 5 (this run): -" in card
    assert "search, page and candidate counts are this run's work only" in card
    result = {"manifest": read_json(releases / "4", "dataset_info.json"),
              "stats": read_json(releases / "4", "stats.json"), "path": "x"}
    summary = build_nq.format_summary(result)
    assert "this run's work below: carried examples and kept drops" in summary
    assert "questions not searched again, dropped before: 4" in summary
    assert "rows carried 30, recomputed 0, new 0, removed 0" in summary
    assert "outcomes carried:" in summary and "queries not tagged again" in summary
    assert "recorded (`refresh/queries/`), not tagged again" in card
    full = (releases / "3" / "README.md").read_text(encoding="utf-8")
    assert "(this run)" not in full and "Changes since" not in full


def test_a_changed_row_option_is_refused_unless_recompute_all(releases, tmp_path, capsys):
    root = releases.parent
    log = log_without(SAMPLE_LOG, tmp_path / "log.tsv", GONE, normalize_query)
    capsys.readouterr()
    assert build(root, log, "5", "--previous", "auto", "--split-salt", "other") == 2
    err = capsys.readouterr().err
    assert "--split-salt was 'nq', now 'other'" in err and "--recompute-all" in err
    assert not (releases / "5").exists()
    assert build(root, log, "5", "--previous", "auto", "--split-salt", "other",
                 "--recompute-all") == 0
    assert refresh_counts(releases / "5") == (0, 30, 0, 0)
    stats = read_json(releases / "5", "stats.json")
    assert stats["counts"]["linking"]["questions"] == 34  # every question linked again
    assert "previously_dropped" not in stats["counts"]["linking"]
    assert "outcomes_carried" not in stats["counts"]["queries"]  # every query tagged again


def test_options_that_never_change_rows_may_change(releases, tmp_path):
    root = releases.parent
    log = log_without(SAMPLE_LOG, tmp_path / "elsewhere.tsv", GONE, normalize_query)
    lexicon_dir = PROJECT_ROOT / "pipelines" / "samples" / "nq"  # the same lexicon, elsewhere
    assert build(root, log, "6", "--previous", str(releases / "4"), "--max-rows-per-shard",
                 "7", "--batch-size", "16", "--shards", "2", "--http-max-retries", "1",
                 "--max-decoded-mib", "32", "--http-cache-dir", str(tmp_path / "cache"),
                 "--categories", str(lexicon_dir)) == 0
    assert refresh_counts(releases / "6") == (30, 0, 0, 0)
    assert len(list((releases / "6" / "train").glob("*.parquet"))) > 1
    assert (parquet_rows(releases / "6", published_key, SPLITS)
            == parquet_rows(releases / "4", published_key, SPLITS))
    assert original_lines(releases / "6") == original_lines(releases / "4")  # moved shards
    carried = read_json(releases / "6", "stats.json")["counts"]["queries"]["outcomes_carried"]
    assert carried == len((releases / "4" / OUTCOMES).read_bytes().splitlines())


def test_a_question_release_refresh_takes_the_recorded_outcomes(tmp_path):
    """v3, ``--recompute-all``, tags every query as a full build does: v2 must equal it."""
    root, questions = tmp_path / "releases", ("--stop-after", "questions")
    first = log_without(SAMPLE_LOG, tmp_path / "v1.tsv", NEW, normalize_query)
    second = log_without(SAMPLE_LOG, tmp_path / "v2.tsv", GONE, normalize_query)
    assert build(root, first, "1", *questions) == 0
    assert build(root, second, "2", *questions, "--previous", "auto") == 0
    assert build(root, second, "3", *questions, "--previous", str(root / "nq_questions" / "1"),
                 "--recompute-all") == 0
    release = root / "nq_questions"
    outcomes = (release / "3" / OUTCOMES).read_bytes()
    assert (release / "2" / OUTCOMES).read_bytes() == outcomes
    counts = {version: read_json(release / version, "stats.json")["counts"]["queries"]
              for version in ("2", "3")}
    assert counts["2"].pop("outcomes_carried") == len(outcomes.splitlines()) - 1  # not NEW
    assert counts["2"] == counts["3"]  # --recompute-all tagged every query again
    assert data_files(release / "2") == data_files(release / "3")
