"""Accounting the user can trust: on small hostile corpora every input record ends kept,
dropped with a reason or dead-lettered (read from stats.json), the dead-lettered tallies equal
the rows under rejected/dead_letter/, and the summary prints that total."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines import build_categories, build_nlquad, build_nq, build_search_index
from pipelines.cli.summary import dead_lettered_total
from tests.conftest import TEST_RUNNER
from tests.pipelines import hostile


def _dead_letter_rows(release: Path) -> int:
    return sum(len(f.read_text(encoding="utf-8").splitlines())
               for f in (release / "rejected" / "dead_letter").glob("*.jsonl"))


def _counts(result: dict) -> dict[str, dict[str, int]]:
    stats = json.loads((Path(result["path"]) / "stats.json").read_text(encoding="utf-8"))
    return stats["counts"]


def _check_dead_letters(result: dict, summary: str, expected: int) -> None:
    counts = _counts(result)
    assert dead_lettered_total(counts) == _dead_letter_rows(Path(result["path"])) == expected
    assert f"dead-lettered records: {expected} " in " ".join(summary.split()) + " "


def test_nlquad_html_invariant(tmp_path):
    pattern, files = hostile.nlquad_html(tmp_path / "in")
    result = build_nlquad.run([TEST_RUNNER, "--source", "html", "--input", pattern,
                               "--output", str(tmp_path / "out")])
    counts = _counts(result)
    inputs, pages, questions = counts["input"], counts["pages"], counts["questions"]
    skipped_inputs = sum(v for k, v in inputs.items() if k.startswith("skipped."))
    assert files == inputs["pages"] + skipped_inputs + inputs.get("dead_lettered", 0)
    skipped_pages = sum(v for k, v in pages.items() if k.startswith("skipped."))
    assert pages["read"] == inputs["pages"] == (
        pages["parsed"] + skipped_pages + pages.get("dead_lettered", 0))
    dropped = sum(v for k, v in questions.items() if k.startswith("dropped."))
    assert questions["found"] == questions["kept"] + dropped + questions.get("dead_lettered", 0)
    assert questions["kept"] == sum(result["manifest"]["rows_per_split"].values())
    _check_dead_letters(result, build_nlquad.format_summary(result), 1)


def test_nq_query_log_invariant(tmp_path):
    good = [("who wrote the declaration of independence of the united states", f"2018-01-0{d}",
             f"u{d}") for d in (1, 2)]
    log = hostile.query_log(tmp_path / "log.tsv", good, hostile.BAD_LOG_LINES)
    result = build_nq.run([TEST_RUNNER, "--input", str(log), "--stop-after", "questions",
                           "--output", str(tmp_path / "out")])
    log_counts, queries = _counts(result)["log"], _counts(result)["queries"]
    bad = len(hostile.BAD_LOG_LINES)
    assert log_counts["rows"] == len(good) + bad
    assert log_counts["malformed_rows"] == log_counts["dead_lettered"] == bad
    rejected = sum(v for k, v in queries.items() if k.startswith("rejected."))
    assert queries["distinct"] == queries["accepted"] + rejected
    assert queries["accepted"] == result["manifest"]["rows_per_split"]["questions"]
    _check_dead_letters(result, build_nq.format_summary(result), bad)


def test_categories_invariant(tmp_path):
    patterns, files = hostile.categories_corpus(tmp_path / "in")
    argv = [TEST_RUNNER, "--output", str(tmp_path / "out")]
    for pattern in patterns:
        argv += ["--input", pattern]
    result = build_categories.run(argv)
    corpus = _counts(result)["corpus"]
    assert files == corpus["files"] + corpus["dead_lettered"]
    _check_dead_letters(result, build_categories.format_summary(result), 1)


def test_search_index_invariant(tmp_path):
    pattern, good, malformed = hostile.enterprise_dump(tmp_path / "in" / "dump.json.tar.gz")
    result = build_search_index.run([TEST_RUNNER, "--source", "enterprise", "--input", pattern,
                                     "--output", str(tmp_path / "out")])
    pages = _counts(result)["pages"]
    assert pages["read"] == good == result["manifest"]["rows_per_split"]["docs"]
    assert pages["malformed_lines"] == pages["dead_lettered"] == malformed
    _check_dead_letters(result, build_search_index.format_summary(result), malformed)
