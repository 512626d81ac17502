"""The ReQA release's names and columns: sources, drop reasons, the Arrow schemas with their
field docs, and the stable ids of questions, paragraphs and candidates."""

from __future__ import annotations

import hashlib

import pyarrow as pa

SOURCES = ("squad", "nq", "nlquad")

# Drop reasons (``examples.dropped.<reason>``).
NO_ANNOTATION = "no_annotation"
NULL_LONG_ANSWER = "null_long_answer"
LONG_ANSWER_NOT_PARAGRAPH = "long_answer_not_paragraph"
NOT_ONE_SHORT_ANSWER = "not_one_short_answer"
SHORT_ANSWER_OUTSIDE_LONG_ANSWER = "short_answer_outside_long_answer"
EMPTY_SHORT_ANSWER = "empty_short_answer"
EMPTY_QUESTION = "empty_question"
NO_ANSWER = "no_answer"
ANSWER_OFFSET_MISMATCH = "answer_offset_mismatch"
INVALID_ANSWER_SPAN = "invalid_answer_span"
ANSWER_NOT_IN_SENTENCES = "answer_not_in_sentences"
MALFORMED_ANSWER = "malformed_answer"  # an answer of the wrong shape: its question is dropped
# A lone surrogate (a JSON "\\ud800" escape) in a question, its id or its paragraph/document:
# not encodable as UTF-8, so it could be neither hashed into an id nor written to Parquet.
INVALID_UNICODE = "invalid_unicode"

# Dead-letter reasons of malformed input (``reason`` of the dead letter).
MALFORMED_FILE = "malformed_file"  # not {"data": [articles]}
MALFORMED_ARTICLE = "malformed_article"  # not {"title": ..., "paragraphs": [...]}
MALFORMED_PARAGRAPH = "malformed_paragraph"  # context not a string or qas not a list
MALFORMED_QUESTION = "malformed_question"  # qa not {"id": ..., "question": str, ...}

QUESTIONS_SCHEMA = pa.schema(
    [
        pa.field("qid", pa.string(), nullable=False),
        pa.field("question", pa.string(), nullable=False),
        pa.field("correct_candidate_ids", pa.list_(pa.string()), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("document", pa.string(), nullable=False),
        pa.field("example_ids", pa.list_(pa.string()), nullable=False),
    ],
    metadata={"dataset": "reqa", "group": "questions"},
)

CANDIDATES_SCHEMA = pa.schema(
    [
        pa.field("candidate_id", pa.string(), nullable=False),
        pa.field("sentence", pa.string(), nullable=False),
        pa.field("context", pa.string(), nullable=False),
        pa.field("paragraph_id", pa.string(), nullable=False),
        pa.field("document", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("sentence_start", pa.int32(), nullable=False),
        pa.field("sentence_end", pa.int32(), nullable=False),
    ],
    metadata={"dataset": "reqa", "group": "candidates",
              "offsets": "context[sentence_start:sentence_end] == sentence (characters)"},
)

FIELD_DOCS = {
    "qid": "questions: stable id, sha256 of source and question text (first 24 hex digits)",
    "question": "questions: the question text; one row per distinct text within the source",
    "correct_candidate_ids": "questions: candidate_id of every sentence containing an answer "
                             "span of any occurrence of the question, sorted",
    "example_ids": "questions: ids of the input examples merged into this question, sorted",
    "candidate_id": "candidates: stable id, sha256 of source, paragraph_id and the sentence "
                    "offsets",
    "sentence": "candidates: one sentence of a paragraph (the retrieval unit)",
    "context": "candidates: the paragraph holding the sentence (the candidate's context)",
    "paragraph_id": "candidates: stable id, sha256 of source, document and paragraph text",
    "document": "both: SQuAD article title, NQ document_title, NLQuAD document_id (for a "
                "question asked in several documents: the first in sorted order)",
    "source": "both: squad, nq or nlquad",
    "sentence_start": "candidates: character offset of the sentence in context",
    "sentence_end": "candidates: character end offset (exclusive) of the sentence in context",
}


def _schema_union(*schemas: pa.Schema) -> pa.Schema:
    fields: dict[str, pa.Field] = {}
    for schema in schemas:
        for field in schema:
            fields.setdefault(field.name, field)
    return pa.schema(list(fields.values()))


# Both groups' columns, for the manifest's schema description (``source``, ``document`` once).
RELEASE_SCHEMA = _schema_union(QUESTIONS_SCHEMA, CANDIDATES_SCHEMA)


def stable_id(*parts: str) -> str:
    """First 24 hex digits (96 bits) of the sha256 of the parts joined by U+001F."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:24]


def question_id(source: str, question: str) -> str:
    """The ``qid`` of a question text within a source."""
    return stable_id("question", source, question)


def paragraph_id(source: str, document: str, text: str) -> str:
    """The ``paragraph_id`` of a paragraph text of a document."""
    return stable_id("paragraph", source, document, text)


def candidate_id(source: str, paragraph: str, start: int, end: int) -> str:
    """The ``candidate_id`` of the sentence ``[start, end)`` of a paragraph (by its id)."""
    return stable_id("candidate", source, paragraph, str(start), str(end))
