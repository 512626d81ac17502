"""The counters of JNQ / JBoolQ: what its stages tally and its card and summary read.

The query-log reader, the users/window stage and the linking stages are NQ's
(``transforms.nq.counters``); JNQ adds its question selection and paragraph examples.
"""

from __future__ import annotations

from transforms.core.counters import Counter, CounterSet
from transforms.nq.counters import (
    ACCEPTED,
    DISTINCT,
    EXAMPLES_DROPPED,
    LINKING_COUNTERS,
    QUERY_LOG_COUNTERS,
    REJECTED,
)

PATTERNS = "patterns"

PATTERN_MATCHED = {number: Counter(PATTERNS, f"p{number}") for number in (1, 2, 3)}
NO_PARAGRAPHS_REASON = "no_paragraphs"  # a rejected/unlinked_questions ``reason``
NO_PARAGRAPHS = EXAMPLES_DROPPED.member(NO_PARAGRAPHS_REASON)

COUNTERS = CounterSet.of(QUERY_LOG_COUNTERS, DISTINCT, ACCEPTED, REJECTED, LINKING_COUNTERS,
                         *PATTERN_MATCHED.values(), CounterSet.from_module(globals()))
