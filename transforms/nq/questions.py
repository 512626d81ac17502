"""Beam stages of NQ question selection (NQ §3.1): users/window, length, heuristics (NQ
§3.1's 1-5 and our rules 6-8, ``filters.nq.heuristics``).

Cheap checks run first (users, empty, URL-like, too few words, tokenizer length), so most
queries never reach the spaCy tagger and parser; those that do are tagged in batches with
``nlp.pipe``. The category lexicon is loaded once per worker in ``setup()``, the model when
the first query needs it: a refresh takes the recorded outcome of a query the previous
release saw (``transforms.nq.query_outcomes``) instead of tagging it again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import apache_beam as beam

from filters.nq.category_lexicon import CategoryLexicon
from filters.nq.heuristics import matched_heuristics, query_view
from filters.nq.queries import INT64_MAX, MIN_TOKENS, cheap_rejection
from filters.text.spacy_models import load_english
from filters.text.stats import question_prefixes
from transforms.core.accounting import tally
from transforms.nq.counters import (
    ACCEPTED,
    DISTINCT,
    HEURISTIC_FIRED,
    OUTCOMES_CARRIED,
    REJECTED,
    prefix_counters,
)
from transforms.nq.query_outcomes import Outcome, outcome_line
from transforms.sources.query_logs import QueryStats

REJECTED_QUERIES = "rejected_queries"
OUTCOMES = "outcomes"  # every query's outcome line (``transforms.nq.query_outcomes``)


def candidate_row(question: str, stats: QueryStats, window_days: int) -> dict[str, Any]:
    return {
        "question": question,
        "variants": [v for v, _ in sorted(stats.variants.items(),
                                          key=lambda kv: (-kv[1], kv[0]))[:5]],
        "events": stats.events,
        "users_in_window": stats.users_in_window(window_days),
        "distinct_users": stats.distinct_users(),
        "tokens": 0,
        "heuristics": [],
    }


def _reject(row: dict[str, Any], reason: str, keep: bool):
    """Count a rejected query; with ``keep`` also emit it (``--keep-rejected``)."""
    yield tally(REJECTED.member(reason))
    if keep:
        yield beam.pvalue.TaggedOutput(REJECTED_QUERIES, {**row, "reason": reason})


_COUNT_COLUMNS = ("events", "users_in_window", "distinct_users")


def _clamped(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with its counts capped at int64, the release's column type."""
    return {**row, **{name: min(row[name], INT64_MAX) for name in _COUNT_COLUMNS}}


class FilterByUsers(beam.DoFn):
    """NQ §3.1: issued "by multiple users in a short period of time". A query whose summed
    counts exceed int64 (each row's are checked by the reader) is rejected, ``count_overflow``.
    """

    def __init__(self, min_users: int, window_days: int, keep_rejected: bool = False):
        self.min_users = min_users
        self.window_days = window_days
        self.keep_rejected = keep_rejected

    def process(self, item: tuple[str, QueryStats]):
        question, stats = item
        yield tally(DISTINCT)
        row = candidate_row(question, stats, self.window_days)
        keep = self.keep_rejected
        if any(row[name] > INT64_MAX for name in _COUNT_COLUMNS):
            yield from _reject(_clamped(row), "count_overflow", keep)
        elif row["users_in_window"] >= self.min_users:
            yield row
        elif row["distinct_users"] >= self.min_users:
            yield from _reject(row, "users_not_within_window", keep)
        else:
            yield from _reject(row, "too_few_users", keep)


class SelectQuestions(beam.DoFn):
    """Batches of ``(candidate row, recorded Outcome or None)`` -> accepted rows (heuristics
    recorded) or rejects; every query the tokenizer saw, or whose outcome was recorded, is
    also emitted as an outcome line on ``OUTCOMES`` (``transforms.nq.query_outcomes``). A
    recorded outcome stands for tagging the query (``queries.outcomes_carried``); the model
    is loaded when the first query needs it, so a refresh carrying every outcome loads none.
    """

    def __init__(self, categories_tsv: str, min_category_count: int,
                 keep_rejected: bool = False, load_model: Callable[[], Any] = load_english):
        self.categories_tsv = categories_tsv
        self.min_category_count = min_category_count
        self.keep_rejected = keep_rejected
        self.load_model = load_model

    def setup(self):
        self._nlp = None
        self._lexicon = CategoryLexicon.from_tsv(self.categories_tsv, self.min_category_count)

    def model(self):
        """The spaCy pipeline, loaded on first use (once per worker)."""
        if self._nlp is None:
            self._nlp = self.load_model()
        return self._nlp

    def process(self, batch: list[tuple[dict[str, Any], Outcome | None]]):
        survivors = []
        for row, recorded in batch:
            question = row["question"]
            reason = cheap_rejection(question)
            if reason is not None:
                yield from _reject(row, reason, self.keep_rejected)
                continue
            if recorded is not None:
                yield tally(OUTCOMES_CARRIED)
                yield from self._decided(row, recorded)
                continue
            tokens = len(self.model().tokenizer(question))
            if tokens < MIN_TOKENS:
                yield from self._decided(row, Outcome(tokens, ()))
            else:
                survivors.append({**row, "tokens": tokens})
        docs = self.model().pipe([row["question"] for row in survivors]) if survivors else ()
        for row, doc in zip(survivors, docs, strict=True):
            fired = matched_heuristics(query_view(doc), self._lexicon.__contains__)
            yield from self._decided(row, Outcome(row["tokens"], tuple(fired)))

    def _decided(self, row: dict[str, Any], outcome: Outcome):
        """The outcome line, then the reject or the accepted row with its tallies."""
        question = row["question"]
        yield beam.pvalue.TaggedOutput(OUTCOMES, outcome_line(question, outcome))
        row = {**row, "tokens": outcome.tokens, "heuristics": list(outcome.heuristics)}
        if outcome.tokens < MIN_TOKENS:
            yield from _reject(row, "too_few_tokens", self.keep_rejected)
            return
        if not outcome.heuristics:
            yield from _reject(row, "no_heuristic", self.keep_rejected)
            return
        yield tally(ACCEPTED)
        for prefix in prefix_counters(*question_prefixes(question)):
            yield tally(prefix)
        for number in outcome.heuristics:
            yield tally(HEURISTIC_FIRED[number])
        yield row


class IssuedByUsers(beam.PTransform):
    """Query logs -> candidate rows of queries issued by ``min_users`` distinct users within
    ``window`` days (NQ §3.1; also JNQ). ``key`` normalizes a QueryRecord's query.

    Returns the tagged FilterByUsers output (``main``, the accounting tags and
    ``REJECTED_QUERIES``) and the reader's tagged results. ``max_decoded_bytes`` caps each
    log file after decompression (``None``: the reader's default cap)."""

    def __init__(self, pattern: str, fields, fmt: str | None, key: Callable,
                 min_users: int, window: int, keep_rejected: bool,
                 max_decoded_bytes: int | None = None):
        super().__init__()
        self.pattern, self.fields, self.fmt, self.key = pattern, fields, fmt, key
        self.min_users, self.window, self.keep_rejected = min_users, window, keep_rejected
        self.max_decoded_bytes = max_decoded_bytes

    def expand(self, pbegin):
        from transforms.core.accounting import SIDE_OUTPUTS
        from transforms.sources.query_logs import AggregateQueryFn, ReadQueryLog

        records, results = pbegin | "ReadLogs" >> ReadQueryLog(
            self.pattern, self.fields, self.fmt, self.max_decoded_bytes)
        by_users = (records
                    | "Normalize" >> beam.Map(self.key)
                    | "Aggregate" >> beam.CombinePerKey(AggregateQueryFn())
                    | "Users" >> beam.ParDo(FilterByUsers(self.min_users, self.window,
                                                          self.keep_rejected))
                    .with_outputs(*SIDE_OUTPUTS, REJECTED_QUERIES, main="main"))
        return by_users, results
