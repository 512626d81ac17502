"""The JNQ filter on real Japanese questions (../shared/data/queries; skipped when absent)."""

from __future__ import annotations

import csv

import pytest

from filters.jnq.rules import ja_tokens, make_tagger, normalize_ja, select_jnq

pytestmark = pytest.mark.realdata


def test_quiz_questions_are_accepted(shared_data):
    path = shared_data / "queries" / "ja_aio_02_dev_quiz.tsv"
    with path.open(encoding="utf-8") as handle:
        questions = [row["original_question"] for row in csv.DictReader(handle, delimiter="\t")]
    tagger = make_tagger()
    accepted = 0
    for question in questions:
        text = normalize_ja(question)
        patterns, reason = select_jnq(text, ja_tokens(tagger, text))
        accepted += reason is None
    assert len(questions) >= 500
    assert accepted / len(questions) >= 0.95  # quiz questions end with "?" and are long
