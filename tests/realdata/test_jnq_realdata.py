"""The JNQ filter on real Japanese questions (../shared/data/queries; skipped when absent)."""

from __future__ import annotations

import csv
import hashlib

import pytest

from filters.jnq.rules import (
    QuestionFilter,
    ja_tokens,
    make_tagger,
    normalize_ja,
    reference_decision,
    select_jnq,
)

pytestmark = pytest.mark.realdata

# file -> question column (a header name, or an index for the header-less Mr. TyDi topics), in
# the order of benchmarks/bench_jnq_filter.py
SETS = (
    ("ja_jsquad_valid_v1.3_questions.tsv", "question"),
    ("ja_jcommonsenseqa_valid_v1.3_questions.tsv", "question"),
    ("ja_jaquad_dev_questions.tsv", "question"),
    ("ja_aio_02_dev_quiz.tsv", "original_question"),
    ("ja_mrtydi_v1.1_test_topics.tsv", 1),
)
CONFIGS = (("jnq", False, False), ("jnq", False, True), ("jnq", True, False),
           ("jboolq", False, False), ("jboolq", True, False))
# sha256 of every (query, variant, count_symbols, extended, words, patterns, reason) line, as the
# filter decided them before QuestionFilter existed (all rules on fugashi nodes for every query
# past the space and length checks; recorded on 11,220 questions, unidic-lite 1.0.8).
DECISIONS_BEFORE_SHA256 = "7a2ba0ce60552754dee166e4c1a98200e985d3592849e07579d67ec1007cbf23"


def shared_questions(shared_data) -> list[str]:
    questions = []
    for filename, column in SETS:
        path = shared_data / "queries" / filename
        with path.open(encoding="utf-8", newline="") as handle:
            rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            index = next(rows).index(column) if isinstance(column, str) else column
            questions += [row[index] for row in rows
                          if len(row) > index and row[index].strip()]
    return questions


@pytest.fixture(scope="module")
def analyzer():
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    return make_tagger()


def test_quiz_questions_are_accepted(shared_data, analyzer):
    path = shared_data / "queries" / "ja_aio_02_dev_quiz.tsv"
    with path.open(encoding="utf-8") as handle:
        questions = [row["original_question"] for row in csv.DictReader(handle, delimiter="\t")]
    accepted = 0
    for question in questions:
        text = normalize_ja(question)
        patterns, reason = select_jnq(text, ja_tokens(analyzer, text))
        accepted += reason is None
    assert len(questions) >= 500
    assert accepted / len(questions) >= 0.95  # quiz questions end with "?" and are long


def test_question_filter_decides_every_shared_question_as_before(shared_data, analyzer):
    """Issue 15 §2: the string checks before tagging change no decision, word count, pattern
    or reason: against the reference path, and against the digest recorded before the change."""
    questions = [normalize_ja(q) for q in shared_questions(shared_data)]
    assert len(questions) == 11_220
    digest = hashlib.sha256()
    for variant, count_symbols, extended in CONFIGS:
        fast = QuestionFilter(variant, count_symbols, extended, analyzer)
        for text in questions:
            got = fast(text)
            assert got == reference_decision(analyzer, text, variant, count_symbols, extended), text
    for text in questions:
        for variant, count_symbols, extended in CONFIGS:
            d = QuestionFilter(variant, count_symbols, extended, analyzer)(text)
            digest.update(f"{text}\t{variant}\t{int(count_symbols)}\t{int(extended)}\t{d.words}"
                          f"\t{d.patterns}\t{d.reason}\n".encode())
    assert digest.hexdigest() == DECISIONS_BEFORE_SHA256


def test_fast_tokens_equal_fugashi_node_tokens_on_every_shared_question(shared_data, analyzer):
    from filters.jnq.rules import _reference_tokens

    for question in shared_questions(shared_data):
        text = normalize_ja(question)
        assert analyzer.tokens(text) == _reference_tokens(analyzer.tagger, text), text
