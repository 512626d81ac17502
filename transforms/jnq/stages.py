"""Beam stages of JNQ / JBoolQ (Uematsu et al., "A Benchmark Suite of Japanese Natural
Questions"): Japanese question selection and snippet-relevant paragraph candidates.

The fugashi Tagger is created in ``setup()`` (not picklable). Search, page fetching and the
top-5 Wikipedia rule are the NQ stages of ``transforms.nq.linking`` with ``lang="ja"``.
"""

from __future__ import annotations

from typing import Any

import apache_beam as beam
import pyarrow as pa

from filters.jnq.paragraphs import page_paragraphs, select_candidates
from filters.jnq.rules import (
    has_space,
    ja_tokens,
    make_tagger,
    normalize_ja,
    select_jboolq,
    select_jnq,
    word_count,
)
from transforms.core.accounting import dead_letter, rejected, tally
from transforms.nq.linking import example_id

STAGE = "queries"
REJECTED_QUERIES = "rejected_queries"

QUESTION_SCHEMA = pa.schema([
    pa.field("question", pa.string(), nullable=False),
    pa.field("variant", pa.string(), nullable=False),
    pa.field("variants", pa.list_(pa.string()), nullable=False),
    pa.field("events", pa.int64(), nullable=False),
    pa.field("users_in_window", pa.int64(), nullable=False),
    pa.field("distinct_users", pa.int64(), nullable=False),
    pa.field("words", pa.int32(), nullable=False),
    pa.field("patterns", pa.list_(pa.int32()), nullable=False),
], metadata={"dataset": "jnq_questions"})
REJECTED_QUERY_SCHEMA = QUESTION_SCHEMA.append(pa.field("reason", pa.string(), nullable=False))
_PARAGRAPH = pa.struct([pa.field("id", pa.int32()), pa.field("text", pa.string())])
EXAMPLE_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    *[QUESTION_SCHEMA.field(name) for name in ("question", "variant", "variants",
                                               "users_in_window", "words", "patterns")],
    pa.field("document_title", pa.string(), nullable=False),
    pa.field("document_url", pa.string(), nullable=False),
    pa.field("revision", pa.int64(), nullable=False),
    pa.field("search_rank", pa.int32(), nullable=False),
    pa.field("snippet", pa.string(), nullable=False),
    pa.field("paragraphs", pa.list_(_PARAGRAPH), nullable=False),
    pa.field("candidate_paragraph_ids", pa.list_(pa.int32()), nullable=False),
    pa.field("candidate_ranks", pa.list_(pa.int32()), nullable=False),
    pa.field("candidate_scores", pa.list_(pa.float64()), nullable=False),
], metadata={"dataset": "jnq"})
FIELD_DOCS = {
    "id": "stable 64-bit hash of the normalized question, as a string",
    "question": "NFKC-normalized query",
    "variant": "jnq or jboolq",
    "variants": "original spellings, most frequent first (at most 5)",
    "words": "fugashi/unidic-lite words (symbols excluded unless --count-symbols)",
    "patterns": "JNQ §3.1 patterns matched: 1 topic は + interrogative, 2 final ?, 3 keyword",
    "document_title": "top-ranked ja.wikipedia.org article among the top-5 search results",
    "document_url": "revision-pinned URL (NQ form)",
    "paragraphs": "every body paragraph of the document with its id",
    "candidate_paragraph_ids": "JNQ §3.3: first paragraph + 4 most snippet-similar ones",
    "candidate_ranks": "0 for the first paragraph, then 1.. by similarity",
    "candidate_scores": "cosine of bag-of-words vectors of snippet and paragraph",
}


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
        self._tagger = make_tagger()

    def _reject(self, row: dict[str, Any], reason: str):
        yield tally(STAGE, f"rejected.{reason}")
        if self.keep_rejected:
            yield beam.pvalue.TaggedOutput(REJECTED_QUERIES, {**row, "reason": reason})

    def process(self, row: dict[str, Any]):
        question = row["question"]
        if has_space(question):  # cheap: no tagging for keyword lists
            yield from self._reject(_question_row(row, self.variant, 0, []), "contains_space")
            return
        tokens = ja_tokens(self._tagger, question)
        words = word_count(tokens, self.count_symbols)
        if self.variant == "jboolq":
            patterns: list[int] = []
            reason = select_jboolq(question, tokens, self.count_symbols)
        else:
            patterns, reason = select_jnq(question, tokens, self.count_symbols, self.extended)
        out = _question_row(row, self.variant, words, patterns)
        if reason:
            yield from self._reject(out, reason)
            return
        yield tally(STAGE, "accepted")
        for number in patterns:
            yield tally("patterns", f"p{number}")
        yield out


class BuildJnqExamples(beam.DoFn):
    """``(page, row)`` -> a JNQ row: all paragraphs and the 5 snippet-relevant candidates."""

    STAGE = "examples"

    def setup(self):
        from transforms.clients.local_search import IndexTokenizer

        self._tokenize = IndexTokenizer("ja")

    def process(self, item):
        page, row = item
        try:
            paragraphs = page_paragraphs(page.html)
            if not paragraphs:
                yield tally(self.STAGE, "dropped.no_paragraphs")
                yield rejected("unlinked_questions", {"question": row["question"],
                                                      "reason": "no_paragraphs",
                                                      "title": page.title})
                return
            chosen = select_candidates(paragraphs, row["search_snippet"], self._tokenize)
        except Exception as error:  # noqa: BLE001 - one page must not stop the job
            yield dead_letter(self.STAGE, error, title=page.title, question=row["question"])
            return
        yield tally(self.STAGE, "built")
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
