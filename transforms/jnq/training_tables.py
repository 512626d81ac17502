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
* ``boolq`` (annotated JBoolQ): exactly ``google/boolq``'s features first (``question``
  string, ``answer`` bool, ``passage`` string), then ours (``id``, ``title``): one row per
  question and long-answer paragraph (JBoolQ §4: the yes/no answer is asked of each EXIST
  paragraph and aggregated per paragraph, so two paragraphs of one question may answer
  differently), ``answer`` True for YES and False for NO (at least 8 of 10 workers). A
  paragraph without that majority (NONE: a long answer only) has no BoolQ answer: it is left
  out of the config (a cast to ``bool`` would have made it True) and counted per split
  (``left_out.none_answer`` of ``stats.json``'s ``training_configs``, and on the card); the
  main table keeps it, as ``annotations.yes_no_answer`` -1 NONE.

Rows are keyed ``<question id>_<paragraph id>`` and written as further tables of the release
(``<config>/<split>/*.parquet``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pyarrow as pa

from transforms.jnq.labels import NO_YES_NO, YES_NO_NAMES
from transforms.release.features import decoder

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
BOOLQ_SCHEMA = pa.schema([
    pa.field("question", pa.string(), nullable=False),
    pa.field("answer", pa.bool_(), nullable=False),
    pa.field("passage", pa.string(), nullable=False),
    pa.field("id", pa.string(), nullable=False),
    pa.field("title", pa.string(), nullable=False),
], metadata={"dataset": "jboolq_annotated", "layout": "boolq"})
# google/boolq's features, in its order (huggingface.co/datasets/google/boolq, dataset card
# dataset_info: question string, answer bool, passage string): the config's first columns
BOOLQ_FEATURES = (("question", "string"), ("answer", "bool"), ("passage", "string"))
NONE_ANSWER = "none_answer"  # the reason a boolq pair is left out: a NONE answer
TRAINING_STATS_KEY = "training_configs"  # stats.json: rows and left-out pairs per config

FIELD_DOCS = {
    f"{SQUAD_V2}.id": "<question id>_<paragraph id>: one question-paragraph pair",
    f"{SQUAD_V2}.title": "the Wikipedia article the paragraph is from",
    f"{SQUAD_V2}.context": "one candidate paragraph's text (JNQ §3.3)",
    f"{SQUAD_V2}.question": "the question",
    f"{SQUAD_V2}.answers": "the majority span of an EXIST paragraph (JNQ §3.5): text and "
                           "answer_start, a character offset into context; empty for a "
                           "NONE paragraph (unanswerable, as in SQuAD 2.0)",
    f"{BOOLQ}.question": "the yes/no question (JBoolQ §4)",
    f"{BOOLQ}.answer": "True YES, False NO: at least 8 of 10 workers (JBoolQ §4); a "
                       "paragraph without that majority (NONE) is left out of this config",
    f"{BOOLQ}.passage": "a long-answer paragraph: a candidate labeled EXIST (>= 7 of 10)",
    f"{BOOLQ}.id": "<question id>_<paragraph id>: one question-paragraph pair",
    f"{BOOLQ}.title": "the Wikipedia article the passage is from",
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
        "- `boolq` (`boolq/<split>/*.parquet`, the config `boolq`): exactly `google/boolq`'s "
        "features first, `question` (string), `answer` (bool), `passage` (string), then `id` "
        "and `title`. One row per question and EXIST paragraph, because JBoolQ §4 aggregates "
        "the yes/no answer per long-answer paragraph: `answer` is True (YES) or False (NO) "
        "when at least 8 of 10 workers agree. A paragraph without that majority (NONE) has "
        "no BoolQ answer and is left out of this config; the main table keeps it "
        "(`annotations.yes_no_answer` -1 NONE)."),
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


_YES_NO = decoder(YES_NO_NAMES, NO_YES_NO)  # an index (as stored) or a name -> its name


def _boolq_pairs(row: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """Each EXIST paragraph of an annotated JBoolQ row as a ``boolq`` row (``answer`` still
    the name) and its yes/no answer's name."""
    if not row["is_yes_no_question"]:
        return
    texts = _texts(row)
    for annotation in row["annotations"]:
        if annotation["label"] == "EXIST":
            paragraph = annotation["paragraph_id"]
            answer = _YES_NO(annotation["yes_no_answer"])
            yield {"question": row["question"], "answer": answer == "YES",
                   "passage": texts[paragraph], "id": f"{row['id']}_{paragraph}",
                   "title": row["document_title"]}, answer


def boolq_rows(row: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The ``boolq`` pairs of one annotated JBoolQ row: its EXIST paragraphs answered YES or
    NO (a NONE answer, or none at all, is no BoolQ row: ``boolq_left_out`` counts it)."""
    for pair, answer in _boolq_pairs(row):
        if answer in YES_NO_NAMES:
            yield pair


def boolq_left_out(row: dict[str, Any]) -> int:
    """How many EXIST paragraphs of an annotated JBoolQ row (its labels as names:
    ``transforms.jnq.labels.as_names`` of a stored row) ``boolq_rows`` leaves out: their answer
    is NONE (or missing)."""
    return sum(answer not in YES_NO_NAMES for _, answer in _boolq_pairs(row))


# the configs an annotated release of each dataset adds: name -> (rows of a row, schema)
TRAINING_TABLES = {
    "jnq": {SQUAD_V2: (squad_v2_rows, SQUAD_V2_SCHEMA)},
    "jboolq": {BOOLQ: (boolq_rows, BOOLQ_SCHEMA)},
}


def training_stats(base: str, splits: list[str],
                   read: Callable[[str], Iterable[dict[str, Any]]]) -> dict[str, Any] | None:
    """``stats.json``'s ``training_configs`` of an annotated JBoolQ release (``None`` for any
    other, whose rows are not read): the ``boolq`` rows per split and the EXIST paragraphs
    left out of it for a NONE answer (``left_out.none_answer``); ``read(split)`` gives the
    split's annotated rows, labels as names."""
    if base != "jboolq":
        return None
    rows, left_out = {}, {}
    for split in splits:
        annotated = list(read(split))
        rows[split] = sum(1 for row in annotated for _ in boolq_rows(row))
        left_out[split] = sum(boolq_left_out(row) for row in annotated)
    return {BOOLQ: {"rows": rows, "left_out": {NONE_ANSWER: left_out}}}


def card_lines(base: str, stats: dict[str, Any]) -> list[str]:
    """The card's lines on the training configs of an annotated ``base`` release, with the
    pairs ``boolq`` left out for a NONE answer, per split, when ``stats`` counts them."""
    counted = stats.get(TRAINING_STATS_KEY) or {}
    lines = []
    for config in TRAINING_TABLES.get(base, {}):
        line = CARD_LINES[config]
        left_out = counted.get(config, {}).get("left_out", {}).get(NONE_ANSWER)
        if left_out is not None:
            per_split = ", ".join(f"{split} {n}" for split, n in left_out.items())
            line += (f" Left out for a NONE answer: {sum(left_out.values())} pairs "
                     f"({per_split}).")
        lines.append(line)
    return lines
