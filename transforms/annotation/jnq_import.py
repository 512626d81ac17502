"""Join JNQ / JBoolQ votes with the release's rows and aggregate them as the papers did.

Per question id: votes for an unknown id are dead-lettered (``unknown_question``), as are votes
from another release (``other_release``), votes whose Label Studio task shows another question
or paragraph text than the row's (``task_page_mismatch``, ``label_studio.task_map``) and votes
that do not fit the row (``unknown_paragraph``, ``span_outside_paragraph``). A question held
by two merged releases (JBoolQ and JNQ) is annotated from the JBoolQ release's votes; the
other's count as ``votes.not_needed``. ``filters.annotation.jnq`` then applies
JNQ §3.2-3.5 (or JBoolQ §4's order) and the outcome is counted as ``examples.<outcome>``:
``kept``, ``bad_question``, ``ambiguous_yes_no``, ``not_yes_no_question`` or ``pending``
(listed in ``rejected/pending_examples/``). A JNQ question the workers judged yes/no is kept
in JNQ with its YES/NO short answers (JNQ §3.5, Table 2) and merged into JBoolQ by the
JBoolQ import (§4). Dropped questions are listed in
``rejected/dropped_questions/`` with their reason and the ``content`` digest of what the
workers saw (``content.content_digest``: a later ``--previous`` import carries the judgment
while it is unchanged).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import apache_beam as beam
import pyarrow as pa

from filters.annotation.curtail import aggregate_curtailed
from filters.annotation.jnq import (
    JnqResult,
    JnqThresholds,
    JnqVoteError,
    aggregate_question,
    check_vote,
)
from filters.annotation.sequential import EXACT_RULE, StopRule
from filters.annotation.votes import JnqVote, latest_votes
from transforms.annotation.confident import confident_of
from transforms.annotation.content import content_digest
from transforms.annotation.counters import (
    DUPLICATE_QUESTION,
    GOLD_QUESTIONS,
    KEPT_LONG_ANSWER_ONLY,
    KEPT_NO_LONG_ANSWER,
    NOT_NEEDED,
    OUTCOME,
    PENDING_AT,
    TASK_PAGE_MISMATCH,
    USED,
    VOTES_GOLD,
    VOTES_PENDING,
)
from transforms.annotation.judgment_counts import judgment_tallies
from transforms.annotation.label_studio.task_map import vote_mismatch
from transforms.annotation.read_votes import of_release
from transforms.annotation.read_votes_beam import count_repeats, refuse
from transforms.annotation.worker_rules import decisions, rules_for
from transforms.annotation.worker_table import DECISIONS_TAG
from transforms.core.accounting import rejected, tally
from transforms.jnq.labels import VOTE_LABELS
from transforms.release.features import label_codes, with_class_labels

JUDGMENTS = "judgments"
DECISIONS = DECISIONS_TAG  # (split, decisions-table row): worker_table.DECISION_SCHEMA

VOTE_SCHEMA = with_class_labels(pa.schema([
    pa.field("question_id", pa.string(), nullable=False),
    pa.field("split", pa.string(), nullable=False),
    pa.field("annotator_id", pa.string(), nullable=False),
    pa.field("stage", pa.int64(), nullable=False),
    pa.field("paragraph", pa.int32()),
    pa.field("value", pa.string(), nullable=False),
], metadata={"dataset": "jnq_votes"}), VOTE_LABELS)
VOTE_FIELD_DOCS = {
    "question_id": "the JNQ example judged (its id)",
    "split": "the example's split",
    "annotator_id": "the worker",
    "stage": f"class label: {label_codes(VOTE_LABELS, {})['stage']}",
    "paragraph": "the paragraph judged (null for per-question stages)",
    "value": "the judgment as JSON text: true/false, YES/NO/NONE, [start, end] or null",
}


def _context(vote: JnqVote) -> dict[str, Any]:
    return {"question_id": vote.question_id, "annotator_id": vote.annotator_id,
            "judgment": vote.stage, "paragraph": vote.paragraph, "file": vote.order[1],
            "line": vote.order[2]}


def _value_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return f"[{value[0]}, {value[1]}]"
    return str(value)


def consulted(vote: JnqVote, result: Any) -> bool:
    """Whether the aggregation of ``result`` read this vote: a stage it needed, and for the
    short-answer stages a paragraph it found EXIST."""
    if vote.stage not in result.stage_votes:
        return False
    if vote.stage in ("good_question", "yes_no_question", "long_answer"):
        return vote.stage != "long_answer" or any(
            p.paragraph_id == vote.paragraph for p in result.paragraphs)
    return any(p.paragraph_id == vote.paragraph and p.label == "EXIST"
               for p in result.paragraphs)


def annotated_row(row: dict[str, Any], result: Any) -> dict[str, Any]:
    """The release row with the aggregate's columns."""
    texts = {p["id"]: p["text"] for p in row["paragraphs"]}
    annotations = []
    for judged in result.paragraphs:
        start, end = judged.span if judged.span else (-1, -1)
        annotations.append({
            "paragraph_id": judged.paragraph_id, "label": judged.label,
            "yes_votes": judged.yes_votes, "votes": judged.votes,
            "short_answer_type": judged.short_answer_type, "span_start": start,
            "span_end": end,
            "span_text": texts[judged.paragraph_id][start:end] if judged.span else "",
            "yes_no_answer": judged.yes_no_answer})
    return {**row, "is_yes_no_question": bool(result.is_yes_no_question),
            "num_annotators": result.annotators, "annotations": annotations,
            "gold_paragraph_ids": [a["paragraph_id"] for a in annotations
                                   if a["label"] == "EXIST"]}


def import_outcome(dataset: str, order: str, result: JnqResult) -> str:
    """The outcome ``result`` counts as in a ``dataset`` (jnq or jboolq) import of a row
    annotated in ``order``: a JNQ question is kept in JNQ whether or not it is yes/no (JNQ
    §3.5, Table 2); in JBoolQ a kept JNQ question is merged when it is yes/no (§4) and is
    ``not_yes_no_question`` otherwise."""
    if (dataset == "jboolq" and order == "jnq" and result.outcome == "kept"
            and not result.is_yes_no_question):
        return "not_yes_no_question"
    return result.outcome


class AnnotateJnqRows(beam.DoFn):
    """``(question id, {"examples": [(split, row, order, fingerprint)], "votes": [JnqVote]})``
    -> ``(split, annotated row)`` for the questions ``dataset`` (jnq or jboolq) keeps, plus
    ``JUDGMENTS`` rows and accounting (``import_outcome``: JNQ keeps its yes/no questions,
    and a JBoolQ import merges them).

    ``order`` is the order the row's release was annotated in (``jnq`` or ``jboolq``); when
    two releases hold the question, the one whose order is ``prefer`` wins.

    ``model`` (a side input): the campaign's fitted worker model (``--aggregate ds|mace|glad``,
    ``worker_fit``), which decides the stages; None decides by the paper's thresholds. Each
    decision is also a ``DECISIONS`` row with its confidence. A question of ``gold`` (control
    questions, ``--gold``) is not aggregated nor published: ``examples.gold``, its votes
    ``votes.gold``. ``stop`` confident: votes of ``annotate next --stop confident`` rounds,
    aggregated by ``sequential.aggregate_confident`` under ``model``."""

    def __init__(self, dataset: str, ways: Mapping[str, int], thresholds: JnqThresholds,
                 curtailed: bool = False, aggregate: str = "paper",
                 gold: frozenset[str] = frozenset(), stop: StopRule = EXACT_RULE):
        self.dataset = dataset
        self.prefer = dataset
        self.ways = dict(ways)
        self.thresholds = thresholds
        self.curtailed = curtailed  # votes of annotate next rounds (filters.annotation.curtail)
        self.aggregate = aggregate
        self.gold = gold
        self.stop = stop

    def process(self, element: tuple[str, dict[str, list]], model: Any = None
                ) -> Iterator[Any]:
        question_id, grouped = element
        votes: list[JnqVote] = list(grouped["votes"])
        if question_id in self.gold:
            yield tally(GOLD_QUESTIONS)
            yield tally(VOTES_GOLD, len(votes))
            return
        if not grouped["examples"]:
            for vote in votes:
                yield from refuse("unknown_question", f"no question {question_id} in the "
                                  "release", **_context(vote))
            return
        held = sorted(grouped["examples"], key=lambda e: (e[2] != self.prefer, e[0]))
        if len(held) > 1:
            yield tally(DUPLICATE_QUESTION, len(held) - 1)
        split, row, order, fingerprint = held[0]
        candidates = list(row["candidate_paragraph_ids"])
        lengths = {p["id"]: len(p["text"]) for p in row["paragraphs"]}
        ours = []
        for vote in votes:
            if not of_release(vote, fingerprint):
                if any(vote.release == other[3] for other in held[1:]):
                    yield tally(NOT_NEEDED)  # the other release's copy is used
                    continue
                yield from refuse("other_release", f"the vote names release {vote.release}, "
                                  f"not {fingerprint}", **_context(vote))
                continue
            if message := vote_mismatch(order, vote, row):
                yield from refuse(TASK_PAGE_MISMATCH, message, **_context(vote))
                continue
            ours.append(vote)
        yield from count_repeats(ours)
        usable = []
        for vote in latest_votes(ours):
            try:
                check_vote(vote, candidates, lengths)
            except JnqVoteError as error:
                yield from refuse(error.reason, str(error), **_context(vote))
                continue
            usable.append(vote)
        ways = self.ways.get(split, 10)
        confident = confident_of(self.stop, model, self.thresholds) if self.stop.confident \
            else None
        if confident is not None:
            result = confident.aggregate(question_id, usable, candidates, order, ways)
        elif self.curtailed:
            result = aggregate_curtailed(question_id, usable, candidates, order, ways,
                                         self.thresholds)
        else:
            result = aggregate_question(question_id, usable, candidates, order, ways,
                                        self.thresholds, rules_for(model, self.thresholds))
        outcome = import_outcome(self.dataset, order, result)
        yield tally(OUTCOME[outcome])
        if result.outcome == "pending":
            yield tally(VOTES_PENDING, len(usable))
            yield tally(PENDING_AT.member(result.pending_stage))
            yield rejected("pending_examples", {
                "question_id": question_id, "split": split, "stage": result.pending_stage,
                "required": ways, "question": row["question"]})
            return
        if self.curtailed or confident is not None:
            state = (confident.jnq_state(question_id, usable, candidates, order, ways)
                     if confident is not None else None)
            yield from judgment_tallies(question_id, usable, candidates, order, ways,
                                        self.thresholds, result, state)
        for decided in decisions(result, usable, model):
            yield beam.pvalue.TaggedOutput(DECISIONS, (split, {
                "question_id": question_id, "split": split, "decision": decided["stage"],
                "paragraph": decided["paragraph"], "label": decided["label"],
                "confidence": decided["confidence"], "aggregate": self.aggregate}))
        used = [vote for vote in usable if consulted(vote, result)]
        yield tally(USED, len(used))
        if len(usable) > len(used):
            yield tally(NOT_NEEDED, len(usable) - len(used))
        for vote in used:
            yield beam.pvalue.TaggedOutput(JUDGMENTS, (split, {
                "question_id": question_id, "split": split, "annotator_id": vote.annotator_id,
                "stage": vote.stage, "paragraph": vote.paragraph,
                "value": _value_text(vote.value)}))
        if outcome != "kept":
            yield rejected("dropped_questions", {"question_id": question_id, "split": split,
                                                 "reason": outcome,
                                                 "question": row["question"],
                                                 "content": content_digest(order, row)})
            return
        exist = [p for p in result.paragraphs if p.label == "EXIST"]
        if not exist:
            yield tally(KEPT_NO_LONG_ANSWER)
        elif all(p.short_answer_type == "none" for p in exist):
            yield tally(KEPT_LONG_ANSWER_ONLY)
        yield split, annotated_row(row, result)
