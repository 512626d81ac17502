"""Beam stages of JNQ / JBoolQ (Uematsu et al., "A Benchmark Suite of Japanese Natural
Questions"): Japanese question selection and snippet-relevant paragraph candidates.

The fugashi Tagger is created in ``setup()`` (not picklable). Search, page fetching and the
top-5 Wikipedia rule are the NQ stages of ``transforms.nq.linking`` with ``lang="ja"``.
"""

from __future__ import annotations

from typing import Any

import apache_beam as beam

from filters.jnq.paragraphs import page_paragraphs, select_candidates
from filters.jnq.rules import QuestionFilter, normalize_ja
from transforms.core.accounting import dead_letter, rejected, tally
from transforms.jnq.counters import NO_PARAGRAPHS, NO_PARAGRAPHS_REASON, PATTERN_MATCHED
from transforms.nq.counters import ACCEPTED, BUILT, EXAMPLES, REJECTED
from transforms.nq.example_ids import example_id

REJECTED_QUERIES = "rejected_queries"



def key_by_ja_query(record) -> tuple[str, Any]:
    """``(NFKC-normalized query, record)``: Japanese keeps "?" and case (patterns need them)."""
    return normalize_ja(record.query), record


def _question_row(row: dict[str, Any], variant: str, words: int,
                  patterns: list[int]) -> dict[str, Any]:
    return {"question": row["question"], "variant": variant, "variants": row["variants"],
            "events": row["events"], "users_in_window": row["users_in_window"],
            "distinct_users": row["distinct_users"], "words": words, "patterns": patterns}


class SelectJapaneseQuestions(beam.DoFn):
    """Candidate rows -> JNQ (patterns 1-3) or JBoolQ questions, or counted rejections."""

    def __init__(self, variant: str, count_symbols: bool = False, extended: bool = False,
                 keep_rejected: bool = False):
        self.variant = variant
        self.count_symbols = count_symbols
        self.extended = extended
        self.keep_rejected = keep_rejected

    def setup(self):
        self._filter = QuestionFilter(self.variant, self.count_symbols, self.extended)

    def _reject(self, row: dict[str, Any], reason: str):
        yield tally(REJECTED.member(reason))
        if self.keep_rejected:
            yield beam.pvalue.TaggedOutput(REJECTED_QUERIES, {**row, "reason": reason})

    def process(self, row: dict[str, Any]):
        # string checks first: spaced queries are never tagged, short and pattern-less ones
        # only for their word count (the rejection reason depends on it)
        words, patterns, reason = self._filter(row["question"])
        out = _question_row(row, self.variant, words, patterns)
        if reason:
            yield from self._reject(out, reason)
            return
        yield tally(ACCEPTED)
        for number in patterns:
            yield tally(PATTERN_MATCHED[number])
        yield out


class BuildJnqExamples(beam.DoFn):
    """``(page, row)`` -> a JNQ row: all paragraphs and the 5 snippet-relevant candidates."""

    STAGE = EXAMPLES

    def setup(self):
        from transforms.clients.local_search import IndexTokenizer

        self._tokenize = IndexTokenizer("ja")

    def process(self, item):
        page, row = item
        try:
            paragraphs = page_paragraphs(page.html)
            if not paragraphs:
                yield tally(NO_PARAGRAPHS)
                yield rejected("unlinked_questions", {"question": row["question"],
                                                      "reason": NO_PARAGRAPHS_REASON,
                                                      "title": page.title})
                return
            chosen = select_candidates(paragraphs, row["search_snippet"], self._tokenize)
        except Exception as error:  # noqa: BLE001 - one page must not stop the job
            yield dead_letter(self.STAGE, error, title=page.title, question=row["question"])
            return
        yield tally(BUILT)
        yield {
            "id": str(example_id(row["question"])),
            **{k: row[k] for k in ("question", "variant", "variants", "users_in_window",
                                   "words", "patterns")},
            "document_title": page.title.replace("_", " "),
            "document_url": page.url,
            "revision": page.revision,
            "search_rank": row["search_rank"],
            "snippet": row["search_snippet"],
            "paragraphs": [{"id": i, "text": text} for i, text in enumerate(paragraphs)],
            "candidate_paragraph_ids": [c.paragraph_id for c in chosen],
            "candidate_ranks": [c.rank for c in chosen],
            "candidate_scores": [c.score for c in chosen],
        }
