"""Training-ready configs of annotated JNQ / JBoolQ releases: ``squad_v2`` and ``boolq``.

Both are question-paragraph pairs cut from the annotated rows (``annotations``: one entry per
candidate paragraph, ``transforms.annotation.jnq_import``):

* ``squad_v2`` (annotated JNQ): JNQ's short-answer task, "a SQuAD 2.0 like task" (JNQ §5):
  a question with one candidate paragraph as ``context``. A paragraph labeled EXIST with a
  majority span (JNQ §3.5) is answerable, with that span (``answer_start`` is a character
  offset into ``context``); a paragraph labeled NONE (at most 3 of 10 workers found the
  answer in it, §3.3) is unanswerable, with empty ``answers``. Left out: AMBIGUOUS paragraphs
  (4-6 of 10: neither), EXIST paragraphs without a majority span, and yes/no questions,
  whose short answers are YES/NO, not spans (they are JBoolQ's, §4).
* ``boolq`` (annotated JBoolQ): BoolQ's shape, one row per question and long-answer
  paragraph (JBoolQ §4: the yes/no answer is asked of each EXIST paragraph and aggregated
  per paragraph, so two paragraphs of one question may answer differently): ``question``,
  ``passage`` (the EXIST paragraph), ``answer`` YES or NO (at least 8 of 10 workers) or NONE
  (no such majority: a long answer only), a class label stored as 1, 0 or -1
  (``transforms.jnq.labels``).

Rows are keyed ``<question id>_<paragraph id>`` and written as further tables of the release
(``<config>/<split>/*.parquet``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from transforms.jnq.labels import BOOLQ_LABELS, BOOLQ_UNLABELED
from transforms.release.features import with_class_labels

SQUAD_V2 = "squad_v2"
BOOLQ = "boolq"

SQUAD_V2_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("title", pa.string(), nullable=False),
    pa.field("context", pa.string(), nullable=False),
    pa.field("question", pa.string(), nullable=False),
    pa.field("answers", pa.struct([pa.field("text", pa.list_(pa.string())),
                                   pa.field("answer_start", pa.list_(pa.int32()))]),
             nullable=False),
], metadata={"dataset": "jnq_annotated", "layout": "squad_v2"})
BOOLQ_SCHEMA = with_class_labels(pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("question", pa.string(), nullable=False),
    pa.field("title", pa.string(), nullable=False),
    pa.field("passage", pa.string(), nullable=False),
    pa.field("answer", pa.int64(), nullable=False),
], metadata={"dataset": "jboolq_annotated", "layout": "boolq"}), BOOLQ_LABELS, BOOLQ_UNLABELED)

FIELD_DOCS = {
    f"{SQUAD_V2}.id": "<question id>_<paragraph id>: one question-paragraph pair",
    f"{SQUAD_V2}.title": "the Wikipedia article the paragraph is from",
    f"{SQUAD_V2}.context": "one candidate paragraph's text (JNQ §3.3)",
    f"{SQUAD_V2}.question": "the question",
    f"{SQUAD_V2}.answers": "the majority span of an EXIST paragraph (JNQ §3.5): text and "
                           "answer_start, a character offset into context; empty for a "
                           "NONE paragraph (unanswerable, as in SQuAD 2.0)",
    f"{BOOLQ}.id": "<question id>_<paragraph id>: one question-paragraph pair",
    f"{BOOLQ}.question": "the yes/no question (JBoolQ §4)",
    f"{BOOLQ}.title": "the Wikipedia article the passage is from",
    f"{BOOLQ}.passage": "a long-answer paragraph: a candidate labeled EXIST (>= 7 of 10)",
    f"{BOOLQ}.answer": "class label 1 YES or 0 NO (>= 8 of 10 workers, JBoolQ §4), -1 NONE "
                       "without that majority (no label)",
}

CARD_LINES = {
    SQUAD_V2: (
        "- `squad_v2` (`squad_v2/<split>/*.parquet`, the config `squad_v2`): JNQ's "
        "short-answer task, \"a SQuAD 2.0 like task\" (JNQ §5), in SQuAD v2's columns `id`, "
        "`title`, `context`, `question`, `answers{text, answer_start}`. One row per question "
        "and candidate paragraph: an EXIST paragraph with its majority span (§3.5; "
        "`answer_start` is a character offset into `context`), or a NONE paragraph with empty "
        "`answers` (unanswerable). AMBIGUOUS paragraphs, EXIST paragraphs without a majority "
        "span and yes/no questions (their answers are YES/NO, see JBoolQ) are left out."),
    BOOLQ: (
        "- `boolq` (`boolq/<split>/*.parquet`, the config `boolq`): BoolQ's shape, "
        "`id`, `question`, `title`, `passage`, `answer`. One row per question and EXIST "
        "paragraph, because JBoolQ §4 aggregates the yes/no answer per long-answer paragraph: "
        "`answer` is YES or NO when at least 8 of 10 workers agree, NONE otherwise (filter it "
        "out for BoolQ's binary task). `answer` is a class label, as NQ's `yes_no_answer`: "
        "0 NO, 1 YES, -1 NONE (no label)."),
}


def _texts(row: dict[str, Any]) -> dict[int, str]:
    return {p["id"]: p["text"] for p in row["paragraphs"]}


def squad_v2_rows(row: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The ``squad_v2`` pairs of one annotated JNQ row (see the module docstring)."""
    if row["is_yes_no_question"]:
        return
    texts = _texts(row)
    for annotation in row["annotations"]:
        paragraph = annotation["paragraph_id"]
        if annotation["label"] == "EXIST" and annotation["short_answer_type"] == "span":
            start = annotation["span_start"]
            answers = {"text": [texts[paragraph][start:annotation["span_end"]]],
                       "answer_start": [start]}
        elif annotation["label"] == "NONE":
            answers = {"text": [], "answer_start": []}
        else:
            continue
        yield {"id": f"{row['id']}_{paragraph}", "title": row["document_title"],
               "context": texts[paragraph], "question": row["question"], "answers": answers}


def boolq_rows(row: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The ``boolq`` pairs of one annotated JBoolQ row: its EXIST paragraphs."""
    if not row["is_yes_no_question"]:
        return
    texts = _texts(row)
    for annotation in row["annotations"]:
        if annotation["label"] == "EXIST":
            paragraph = annotation["paragraph_id"]
            yield {"id": f"{row['id']}_{paragraph}", "question": row["question"],
                   "title": row["document_title"], "passage": texts[paragraph],
                   "answer": annotation["yes_no_answer"]}


# the configs an annotated release of each dataset adds: name -> (rows of a row, schema)
TRAINING_TABLES = {
    "jnq": {SQUAD_V2: (squad_v2_rows, SQUAD_V2_SCHEMA)},
    "jboolq": {BOOLQ: (boolq_rows, BOOLQ_SCHEMA)},
}
