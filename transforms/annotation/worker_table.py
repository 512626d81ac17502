"""The annotated release's ``workers/all/`` and ``decisions/<split>/`` tables.

``workers/``: one row per worker, recomputed by every import from what the release holds:
the judgments of its ``votes/`` table (carried ones included) compared with the published
rows' decisions (carried rows included), so a ``--previous`` refresh gives the same table as
importing all the votes anew; gold judgments (``--gold``) give an accuracy. ``decisions/``:
one row per decision the aggregation made, with its confidence (``worker_rules``).

Which decision a judgment is compared with (``row_decisions``): a kept question is good
(``true``); its yes/no-question label; each paragraph's long answer, ``true`` for EXIST and
``false`` for NONE (AMBIGUOUS is no decision, so those judgments are not compared); on EXIST
paragraphs the YES/NO/NONE answer or the ``[start, end]`` span (``null`` for none). Judgments
of dropped questions are counted but not compared (their rows are not published). NQ
(``filters.annotation.nq_decisions.compare``): each annotation's has-answer against the
example's, and its candidate against the decided long answer when both have one; NQ's
decisions of carried examples are recomputed from their carried votes by the paper's rule.

``likely_spammer`` (``spammer_flag``): with at least ``MIN_GOLD`` gold judgments, a gold
accuracy below ``SPAMMER_BELOW``; otherwise, with at least ``MIN_COMPARED`` compared
judgments, an estimated skill below ``SPAMMER_BELOW`` (0.6: a yes/no judgment right by chance
is 0.5); null with fewer judgments (too few to tell).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from filters.annotation.worker_models import PAPER

DECISIONS_TAG = "decisions"  # the imports' tagged output of decisions-table rows
MIN_GOLD = 5
MIN_COMPARED = 10
SPAMMER_BELOW = 0.6
WORKERS_GROUP = "all"  # workers/all/: the table has no splits

WORKER_SCHEMA = pa.schema([
    pa.field("annotator_id", pa.string(), nullable=False),
    pa.field("judgments", pa.int64(), nullable=False),
    pa.field("compared", pa.int64(), nullable=False),
    pa.field("agreement", pa.float64()),
    pa.field("gold_judgments", pa.int64(), nullable=False),
    pa.field("gold_accuracy", pa.float64()),
    pa.field("skill", pa.float64()),
    pa.field("skill_source", pa.string(), nullable=False),
    pa.field("likely_spammer", pa.bool_()),
], metadata={"dataset": "workers"})
WORKER_FIELD_DOCS = {
    "judgments": "the worker's judgments in this release's votes table (carried ones "
                 "included) plus their judgments of gold items",
    "compared": "judgments compared with a published decision (not AMBIGUOUS paragraphs, "
                "not dropped questions)",
    "agreement": "share of the compared judgments equal to the published decision (null "
                 "when none was compared)",
    "gold_judgments": "judgments of gold items (--gold)",
    "gold_accuracy": "share of the gold judgments equal to the gold answer (null without)",
    "skill": "estimated skill in [0, 1]: the worker model's (ds: balanced accuracy; mace: "
             "probability of not spamming; glad: sigmoid(ability)), or under paper the "
             "agreement",
    "skill_source": "what skill is: paper (agreement), ds, mace or glad",
    "likely_spammer": f"gold accuracy below {SPAMMER_BELOW} (with >= {MIN_GOLD} gold "
                      f"judgments), else skill below {SPAMMER_BELOW} (with >= {MIN_COMPARED} "
                      "compared judgments); null when too few judgments",
}

def _decision_schema(item: str, where: pa.Field, dataset: str) -> pa.Schema:
    """The ``decisions`` table: one row per decision of an item (``item``), at ``where``
    (JNQ's paragraph, NQ's candidate; null for a decision of the whole item)."""
    return pa.schema([
        pa.field(item, pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("decision", pa.string(), nullable=False),
        where,
        pa.field("label", pa.string(), nullable=False),
        pa.field("confidence", pa.float64()),
        pa.field("aggregate", pa.string(), nullable=False),
    ], metadata={"dataset": dataset})


DECISION_SCHEMA = _decision_schema("question_id", pa.field("paragraph", pa.int32()),
                                   "decisions")
NQ_DECISION_SCHEMA = _decision_schema("example_id", pa.field("candidate", pa.int64()),
                                      "nq_decisions")
DECISION_FIELD_DOCS = {
    "decision": "what was decided: JNQ/JBoolQ good_question, yes_no_question, long_answer "
                "(per paragraph), yes_no_answer or span (on EXIST paragraphs); NQ has_answer, "
                "long_answer and short_answer (filters.annotation.nq_decisions)",
    "candidate": "NQ: the long-answer candidate index decided, or the short answer's "
                 "(null for has_answer)",
    "label": "the decision: true/false/ambiguous, EXIST/AMBIGUOUS/NONE, YES/NO/NONE, "
             "[start, end] or null; NQ true/false, the candidate index, or the short answer "
             "([[start, end], ...] token offsets, YES/NO or null)",
    "confidence": "in [0, 1]: under paper the share of the judgments that gave the most "
                  "common value (a 7-of-10 EXIST is 0.7); under ds/mace/glad the model's "
                  "posterior of the label (the largest posterior for AMBIGUOUS); for a span "
                  "the share of judgments giving exactly that span",
    "aggregate": "how it was decided: paper, ds, mace or glad (--aggregate), or carried "
                 "(from --previous: no confidence)",
}


CARD_LINES = (
    "- `decisions/<split>/*.parquet`: every decision of the aggregation (`--aggregate`) with "
    "its confidence in [0, 1] (paper: the vote share of the most common value; ds/mace/glad: "
    "the model's posterior).",
    "- `workers/all/*.parquet`: one row per worker: judgments, agreement with the published "
    "decisions, gold accuracy (`--gold`), estimated skill and `likely_spammer`.",
)


def _span(annotation: dict[str, Any]) -> str:
    start, end = annotation["span_start"], annotation["span_end"]
    return "null" if start < 0 else f"[{start}, {end}]"


def row_decisions(row: dict[str, Any]) -> dict[tuple[str, int | None], str]:
    """``(stage, paragraph) -> value text`` of a published annotated row (module doc)."""
    yes_no = bool(row["is_yes_no_question"])
    decided: dict[tuple[str, int | None], str] = {
        ("good_question", None): "true",
        ("yes_no_question", None): "true" if yes_no else "false"}
    for annotation in row["annotations"]:
        paragraph, label = annotation["paragraph_id"], annotation["label"]
        if label in ("EXIST", "NONE"):
            decided[("long_answer", paragraph)] = "true" if label == "EXIST" else "false"
        if label != "EXIST":
            continue
        if yes_no:
            decided[("yes_no_answer", paragraph)] = annotation["yes_no_answer"]
        else:
            decided[("span", paragraph)] = _span(annotation)
    return decided


def spammer_flag(gold_judgments: int, gold_accuracy: float | None, compared: int,
                 skill: float | None) -> bool | None:
    """``likely_spammer`` (module doc)."""
    if gold_judgments >= MIN_GOLD and gold_accuracy is not None:
        return gold_accuracy < SPAMMER_BELOW
    if compared >= MIN_COMPARED and skill is not None:
        return skill < SPAMMER_BELOW
    return None


def worker_row(worker: str, totals: tuple[int, int, int, int, int], aggregate: str,
               skills: dict[str, float]) -> dict[str, Any]:
    """The ``workers/`` row of ``worker`` from its ``(judgments, compared, agreed,
    gold_judgments, gold_right)`` and the model's ``skills``."""
    judgments, compared, agreed, gold_judgments, gold_right = totals
    agreement = round(agreed / compared, 6) if compared else None
    gold_accuracy = round(gold_right / gold_judgments, 6) if gold_judgments else None
    skill = agreement if aggregate == PAPER else skills.get(worker)
    return {"annotator_id": worker, "judgments": judgments, "compared": compared,
            "agreement": agreement, "gold_judgments": gold_judgments,
            "gold_accuracy": gold_accuracy,
            "skill": None if skill is None else round(skill, 6), "skill_source": aggregate,
            "likely_spammer": spammer_flag(gold_judgments, gold_accuracy, compared, skill)}
