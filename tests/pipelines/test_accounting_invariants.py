"""Accounting the user can trust: on small hostile corpora every input record ends kept,
dropped with a reason or dead-lettered (read from stats.json), the dead-lettered tallies equal
the rows under rejected/dead_letter/, and the summary prints that total."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines import (
    build_categories,
    build_jnq,
    build_nlquad,
    build_nq,
    build_reqa,
    build_search_index,
)
from pipelines.cli.summary import dead_lettered_total
from tests.conftest import TEST_RUNNER
from tests.pipelines import hostile


def _rows(release: Path, kind: str) -> list[dict]:
    return [json.loads(line) for f in sorted((release / "rejected" / kind).glob("*.jsonl"))
            for line in f.read_text(encoding="utf-8").splitlines()]


def _dead_letter_rows(release: Path) -> int:
    return len(_rows(release, "dead_letter"))


def _sum(counts: dict[str, int], prefix: str) -> int:
    return sum(v for k, v in counts.items() if k.startswith(prefix))


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
    assert files == corpus["files"] + corpus.get("unreadable_files", 0)
    assert corpus["dead_lettered"] == (corpus.get("malformed_lines", 0)
                                       + corpus.get("unreadable_files", 0))
    assert corpus.get("malformed_lines", 0) == 1
    _check_dead_letters(result, build_categories.format_summary(result), 1)


def test_search_index_invariant(tmp_path):
    pattern, good, malformed, not_articles = hostile.enterprise_dump(
        tmp_path / "in" / "dump.json.tar.gz")
    result = build_search_index.run([TEST_RUNNER, "--source", "enterprise", "--input", pattern,
                                     "--output", str(tmp_path / "out")])
    pages = _counts(result)["pages"]
    assert pages["read"] == good == result["manifest"]["rows_per_split"]["docs"]
    assert pages["malformed_lines"] == pages["dead_lettered"] == malformed
    assert pages.get("skipped.not_article", 0) == not_articles
    assert "unreadable_dumps" not in pages
    _check_dead_letters(result, build_search_index.format_summary(result), malformed)


def _jnq_log(tmp_path: Path) -> Path:
    return hostile.query_log(tmp_path / "log.tsv",
                             hostile.JA_GOOD_ROWS + hostile.JA_REJECTED_ROWS,
                             hostile.JA_BAD_LOG_LINES)


def _check_jnq_queries(counts: dict[str, dict[str, int]]) -> None:
    log, queries = counts["log"], counts["queries"]
    bad, read = len(hostile.JA_BAD_LOG_LINES), hostile.JA_GOOD_ROWS + hostile.JA_REJECTED_ROWS
    assert log["rows"] == len(read) + bad
    assert log["malformed_rows"] == log["dead_lettered"] == bad
    assert log["malformed.invalid_utf8"] == log["malformed.control_characters"] == 1
    assert queries["distinct"] == len({query for query, _, _ in read})
    assert queries["distinct"] == queries["accepted"] + _sum(queries, "rejected.")
    assert queries["rejected.too_long"] == 1 and queries["accepted"] == 2


def test_jnq_questions_invariant(tmp_path):
    result = build_jnq.run([TEST_RUNNER, "--input", str(_jnq_log(tmp_path)),
                            "--stop-after", "questions", "--output", str(tmp_path / "out")])
    counts = _counts(result)
    _check_jnq_queries(counts)
    assert counts["queries"]["accepted"] == result["manifest"]["rows_per_split"]["questions"]
    _check_dead_letters(result, build_jnq.format_summary(result), len(hostile.JA_BAD_LOG_LINES))


def test_jnq_examples_invariant(tmp_path):
    result = build_jnq.run([TEST_RUNNER, "--input", str(_jnq_log(tmp_path)), "--sample-index",
                            "--output", str(tmp_path / "out")])
    counts = _counts(result)
    _check_jnq_queries(counts)
    linking, pages, examples = counts["linking"], counts.get("pages", {}), counts["examples"]
    assert linking["questions"] == counts["queries"]["accepted"]
    linked = _sum(linking, "wikipedia_rank_")
    assert linking["questions"] == (linked + _sum(linking, "dropped.")
                                    + _sum(linking, "search_failed."))
    assert linked == (examples.get("built", 0) + _sum(examples, "dropped.")
                      + examples.get("dead_lettered", 0) + _sum(pages, "dropped."))
    assert examples["built"] == sum(result["manifest"]["rows_per_split"].values())
    _check_dead_letters(result, build_jnq.format_summary(result),
                        len(hostile.JA_BAD_LOG_LINES))


def _check_reqa_examples(result: dict) -> dict[str, dict[str, int]]:
    """read = kept + dropped by reason + malformed; the kept examples are the questions (none
    merged here); the dropped ones are the rows of rejected/dropped_examples/."""
    counts = _counts(result)
    examples, questions = counts["examples"], counts["questions"]
    dropped = _sum(examples, "dropped.")
    assert examples["read"] == examples["kept"] + dropped + examples["malformed"]
    assert examples["kept"] == questions["unique"] + questions.get("merged_occurrences", 0)
    assert questions["unique"] == result["manifest"]["rows_per_split"]["questions"]
    assert counts["candidates"]["unique"] == result["manifest"]["rows_per_split"]["candidates"]
    release = Path(result["path"])
    assert len(_rows(release, "dropped_examples")) == dropped
    assert result["stats"]["examples"] == {"read": examples["read"], "kept": examples["kept"],
                                           "dropped": dropped,
                                           "malformed": examples["malformed"]}
    return counts


def test_reqa_nq_invariant(tmp_path):
    pattern, expected = hostile.reqa_nq(tmp_path / "in" / "nq.jsonl.gz")
    result = build_reqa.run([TEST_RUNNER, "--source", "nq", "--input", pattern,
                             "--output", str(tmp_path / "out")])
    counts = _check_reqa_examples(result)
    examples, inputs = counts["examples"], counts["input"]
    assert inputs == {"files": 1, "lines": expected["read"]}
    assert examples["read"] == expected["read"]
    assert examples["malformed"] == examples["dead_lettered"] == expected["malformed"]
    assert examples["kept"] >= 1 and _sum(examples, "dropped.") >= expected["dropped"]
    assert counts["paragraphs"]["read"] == examples["kept"]  # one paragraph per NQ example
    _check_dead_letters(result, build_reqa.format_summary(result), expected["malformed"])


def test_reqa_squad_invariant(tmp_path):
    pattern, files = hostile.reqa_squad(tmp_path / "in")
    result = build_reqa.run([TEST_RUNNER, "--source", "squad", "--input", pattern,
                             "--output", str(tmp_path / "out")])
    counts = _check_reqa_examples(result)
    examples, inputs, paragraphs = counts["examples"], counts["input"], counts["paragraphs"]
    reasons = [row.get("reason") for row in _rows(Path(result["path"]), "dead_letter")]
    # files: 1 read + the wrong-shape file + the file that is not JSON
    assert inputs["files"] == files and inputs["unreadable_files"] == 2
    assert inputs["unreadable.malformed_file"] == reasons.count("malformed_file") == 1
    # articles: the one without a paragraphs list is dead-lettered in the input stage
    assert inputs["malformed.malformed_article"] == reasons.count("malformed_article") == 1
    assert inputs["dead_lettered"] == inputs["unreadable_files"] + 1
    # paragraphs of the readable article: 2 read (1 without questions) + 1 malformed
    assert paragraphs == {"read": 2, "without_questions": 1, "malformed.malformed_paragraph": 1}
    assert reasons.count("malformed_paragraph") == paragraphs["malformed.malformed_paragraph"]
    # questions: 9 + 1 in the malformed paragraph; 2 malformed questions, 2 malformed answers
    assert examples["read"] == 10 and examples["kept"] == 2
    assert examples["malformed"] == examples["dead_lettered"] == 3
    assert reasons.count("malformed_question") == 2
    assert examples["dropped.malformed_answer"] == 2
    _check_dead_letters(result, build_reqa.format_summary(result), 6)
