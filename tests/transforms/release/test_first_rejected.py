"""The first dead letter and rejected records of a run, one console line each."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines.cli.spec_runner import summary_of
from transforms.registry import spec
from transforms.release.first_rejected import (
    MAX_CHARS,
    describe,
    first_dead_letter_line,
    first_rejected_lines,
)


def _write(root: Path, kind: str, records: list[dict]) -> None:
    directory = root / "rejected" / kind
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{kind}-00000-of-00001.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_first_dead_letter_names_stage_error_and_where(tmp_path):
    _write(tmp_path, "dead_letter", [
        {"stage": "input", "reason": "truncated_file", "detail": "stream ends after 10 bytes",
         "source": "pages/a.html.gz", "error_type": "DamagedInputError"},
        {"stage": "pages", "error_type": "ValueError", "error": "second"}])
    assert first_dead_letter_line(str(tmp_path)) == (
        "  first dead letter: input truncated_file: stream ends after 10 bytes "
        "(pages/a.html.gz)")


def test_without_dead_letters_the_first_record_of_each_kind(tmp_path):
    assert first_dead_letter_line(str(tmp_path)) is None
    _write(tmp_path, "skipped_pages", [{"reason": "no_article_body", "detail": "no article "
                                        "body container of any known era", "url": "https://x/a"}])
    _write(tmp_path, "dropped_questions", [{"reason": "related_link", "question": "Why?",
                                            "url": "https://x/b"}])
    assert first_rejected_lines(str(tmp_path)) == [
        "  first of dropped_questions: related_link: 'Why?' (https://x/b)",
        "  first of skipped_pages: no_article_body: no article body container of any known "
        "era (https://x/a)"]


def test_a_long_detail_is_cut_to_one_line():
    text = describe({"reason": "r", "detail": "word\n" * 500})
    assert len(text) == MAX_CHARS and "\n" not in text and text.endswith("...")


def test_every_builder_summary_prints_the_first_dead_letter(tmp_path):
    _write(tmp_path, "dead_letter", [{"stage": "questions", "error_type": "KeyError",
                                      "error": "'title'", "url": "https://x/c"}])
    result = {"path": str(tmp_path), "manifest": {"version": "1.0.0", "rows_per_split": {
        "train": 1}, "splits": ["train"]},
              "stats": {"counts": {"questions": {"dead_lettered": 1}}}}
    summary = summary_of(spec("nlquad"))(result)
    assert "  first dead letter: questions KeyError: 'title' (https://x/c)" in summary
