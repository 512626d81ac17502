"""pyarrow schemas of the JNQ / JBoolQ releases: selected questions and examples."""

from __future__ import annotations

import pyarrow as pa

from transforms.jnq.labels import EXAMPLE_LABELS
from transforms.release.features import label_codes, with_class_labels

QUESTION_SCHEMA = with_class_labels(pa.schema([
    pa.field("question", pa.string(), nullable=False),
    pa.field("variant", pa.int64(), nullable=False),
    pa.field("variants", pa.list_(pa.string()), nullable=False),
    pa.field("events", pa.int64(), nullable=False),
    pa.field("users_in_window", pa.int64(), nullable=False),
    pa.field("distinct_users", pa.int64(), nullable=False),
    pa.field("words", pa.int32(), nullable=False),
    pa.field("patterns", pa.list_(pa.int32()), nullable=False),
], metadata={"dataset": "jnq_questions"}), EXAMPLE_LABELS)


REJECTED_QUERY_SCHEMA = QUESTION_SCHEMA.append(pa.field("reason", pa.string(), nullable=False))


_PARAGRAPH = pa.struct([pa.field("id", pa.int32()), pa.field("text", pa.string())])


EXAMPLE_SCHEMA = with_class_labels(pa.schema([
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
], metadata={"dataset": "jnq"}), EXAMPLE_LABELS)


FIELD_DOCS = {
    "id": "stable 64-bit hash of the normalized question, as a string",
    "question": "NFKC-normalized query",
    "variant": f"class label: {label_codes(EXAMPLE_LABELS, {})['variant']}",
    "variants": "original spellings, most frequent first (at most 5)",
    "users_in_window": "distinct users who issued the question in the log window",
    "revision": "Wikipedia revision id (oldid) of the page, 0 when unknown",
    "search_rank": "rank of the page among the top-5 search results (1 = first)",
    "snippet": "the search engine's snippet of the page, the candidates are ranked against",
    "words": "fugashi/unidic-lite words (symbols excluded unless --count-symbols)",
    "patterns": "JNQ §3.1 patterns matched: 1 topic は + interrogative, 2 final ?, 3 keyword",
    "document_title": "top-ranked ja.wikipedia.org article among the top-5 search results",
    "document_url": "revision-pinned URL (NQ form)",
    "paragraphs": "every body paragraph of the document with its id",
    "candidate_paragraph_ids": "JNQ §3.3: first paragraph + 4 most snippet-similar ones",
    "candidate_ranks": "0 for the first paragraph, then 1.. by similarity",
    "candidate_scores": "cosine of bag-of-words vectors of snippet and paragraph",
}

