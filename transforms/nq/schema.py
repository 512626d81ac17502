"""pyarrow schemas of the NQ question-selection release (``nq_questions``)."""

from __future__ import annotations

import pyarrow as pa

_COMMON = [
    pa.field("question", pa.string(), nullable=False),
    pa.field("variants", pa.list_(pa.string()), nullable=False),
    pa.field("events", pa.int64(), nullable=False),
    pa.field("users_in_window", pa.int64(), nullable=False),
    pa.field("distinct_users", pa.int64(), nullable=False),
    pa.field("tokens", pa.int32(), nullable=False),
    pa.field("heuristics", pa.list_(pa.int32()), nullable=False),
]

QUESTION_SCHEMA = pa.schema(_COMMON, metadata={"dataset": "nq_questions"})
REJECTED_QUERY_SCHEMA = pa.schema(
    [*_COMMON, pa.field("reason", pa.string(), nullable=False)],
    metadata={"dataset": "nq_questions", "part": "rejected"},
)

FIELD_DOCS = {
    "question": "normalized query: NFKC, lower case, single spaces, no trailing ?/.",
    "variants": "original spellings, most frequent first (at most 5)",
    "events": "number of log events (or the pre-aggregated count)",
    "users_in_window": "most distinct users within --window days (pre-aggregated: users)",
    "distinct_users": "distinct users over the whole log",
    "tokens": "spaCy tokens of the normalized query (0 when rejected before tokenizing)",
    "heuristics": "heuristics that accepted the query: NQ §3.1's 1-5, our 6-8",
    "reason": "why the query was rejected (rejected/ only)",
}
