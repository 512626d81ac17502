"""The pyarrow schema of NLQuAD release rows (one row per question-answer pair).

SQuAD-compatible columns (``id``, ``title``, ``context``, ``question``, ``answers``) load
directly with HuggingFace ``datasets``; the rest keep provenance and exact offsets.
"""

from __future__ import annotations

import pyarrow as pa

NLQUAD_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("document_id", pa.string(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("date", pa.string(), nullable=False),
        pa.field("published", pa.string(), nullable=False),
        pa.field("url", pa.string(), nullable=False),
        pa.field("capture_url", pa.string(), nullable=False),
        pa.field("capture_timestamp", pa.string(), nullable=False),
        pa.field("layout_era", pa.string(), nullable=False),
        pa.field("question", pa.string(), nullable=False),
        pa.field("question_index", pa.int32(), nullable=False),
        pa.field("context", pa.string(), nullable=False),
        pa.field("answer_text", pa.string(), nullable=False),
        pa.field("answer_start", pa.int32(), nullable=False),
        pa.field("answer_end", pa.int32(), nullable=False),
        pa.field("answer_word_start", pa.int32(), nullable=False),
        pa.field("answer_word_end", pa.int32(), nullable=False),
        pa.field("answer_paragraphs", pa.int32(), nullable=False),
        pa.field(
            "answers",
            pa.struct([
                pa.field("text", pa.list_(pa.string())),
                pa.field("answer_start", pa.list_(pa.int32())),
            ]),
            nullable=False,
        ),
    ],
    metadata={
        "dataset": "nlquad",
        "offsets": "answer_start/answer_end: characters of context, end exclusive; "
                   "answer_word_start/answer_word_end: indices into context.split(), "
                   "end exclusive",
    },
)

FIELD_DOCS = {
    "id": "stable question id: <document_id>-q<question_index>",
    "document_id": "bbc-<asset id>: one article, however many captures or URLs it had",
    "title": "headline (h1) of the article",
    "date": "publication date YYYY-MM-DD (UTC), empty when the page has none",
    "published": "publication time YYYY-MM-DDTHH:MM:SSZ",
    "url": "canonical article URL (https://www.bbc.co.uk/news/...)",
    "capture_url": "URL of the capture the text comes from",
    "capture_timestamp": "Wayback timestamp YYYYMMDDhhmmss of that capture",
    "layout_era": "A, B, C or D (BBC page layout of the capture), or generic (any other "
                  "site, read by the main-content extractor: --layout)",
    "question": "the interrogative sub-heading, original text",
    "question_index": "1-based position among the article's interrogative sub-headings",
    "context": "article body text without sub-headings, templates and break-lines",
    "answer_text": "the paragraphs under the sub-heading: context[answer_start:answer_end]",
    "answer_start": "character offset of the answer in context",
    "answer_end": "character end offset (exclusive) of the answer in context",
    "answer_word_start": "offset of the answer's first word in context.split()",
    "answer_word_end": "end offset (exclusive) of the answer's words in context.split()",
    "answer_paragraphs": "number of paragraphs in the answer",
    "answers": "SQuAD-style {text: [...], answer_start: [...]} for HuggingFace datasets",
}
