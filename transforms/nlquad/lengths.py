"""NLQuAD's length statistics (Table 2) as histogram entries ``("<scope>/<metric>", value)``,
each value counted for its split and for ``all``.

``ExtractQuestionAnswers`` computes them for the documents it builds. A refresh emits them for
the documents it carries (``transforms.nlquad.carried_stats``) from what it has without
parsing them again: the per-question values a row holds (``ROW_METRICS``) from the row, and
from the sidecar, where the extraction recorded them, what no single row gives: the
per-document values (``DOCUMENT_METRICS``: a document has several rows) and the sentences of
each answer (``ANSWER_SENTENCES``: the sentencizer needs the answer's paragraph boundaries,
which a row loses when ``--paragraph-separator`` is a space, and would cost as much again as
the extraction).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from filters.nlquad.qa import NlquadDocument
from filters.text.stats import word_count

ALL = "all"
DOCUMENT_WORDS = "document_words"
DOCUMENT_SENTENCES = "document_sentences"
DOCUMENT_PARAGRAPHS = "document_paragraphs"
QUESTIONS_PER_DOCUMENT = "questions_per_document"
ANSWER_WORDS = "answer_words"
ANSWER_SENTENCES = "answer_sentences"
ANSWER_PARAGRAPHS = "answer_paragraphs"
QUESTION_WORDS = "question_words"
DOCUMENT_METRICS = (DOCUMENT_WORDS, DOCUMENT_SENTENCES, DOCUMENT_PARAGRAPHS,
                    QUESTIONS_PER_DOCUMENT)
ROW_METRICS = (ANSWER_WORDS, ANSWER_PARAGRAPHS, QUESTION_WORDS)


def document_lengths(document: NlquadDocument, sentences: Sequence[int]) -> dict[str, int]:
    """The per-document values of a document with questions; ``sentences`` are the sentences
    of each of its paragraphs."""
    return {DOCUMENT_WORDS: word_count(document.context),
            DOCUMENT_SENTENCES: sum(sentences),
            DOCUMENT_PARAGRAPHS: len(document.paragraphs),
            QUESTIONS_PER_DOCUMENT: len(document.qas)}


def answer_sentences(document: NlquadDocument, sentences: Sequence[int]) -> list[int]:
    """The sentences of each kept answer, in question order."""
    return [sum(sentences[qa.first_paragraph:qa.first_paragraph + qa.answer_paragraphs])
            for qa in document.qas]


def row_lengths(row: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The values of one question that its row holds (``ROW_METRICS``)."""
    return [(ANSWER_WORDS, row["answer_word_end"] - row["answer_word_start"]),
            (ANSWER_PARAGRAPHS, row["answer_paragraphs"]),
            (QUESTION_WORDS, word_count(row["question"]))]


def histogram_entries(split: str, values: Iterable[tuple[str, int]]
                      ) -> Iterator[tuple[str, int]]:
    """``(metric, value)`` pairs as histogram entries of ``split`` and of ``all``."""
    for metric, value in values:
        for scope in (split, ALL):
            yield f"{scope}/{metric}", value
