"""Join NQ votes with the release's examples and turn each example's votes into annotations.

Per example id (after ``CoGroupByKey``): votes for an id the release does not have are
dead-lettered (``unknown_example``); a vote exported from another release (``other_release``), one
whose Label Studio task is not the example's page and candidate map (``task_page_mismatch``,
``label_studio.task_map``) or one that does not fit the example (``candidate_out_of_range``,
``short_answer_outside_long_answer``) likewise. Of the rest, the latest vote per annotator
counts, chosen before it is checked (``votes.superseded`` counts the others, ``votes.duplicate``
exact repeats, e.g. an export imported twice); annotations are ordered by when they were given
(``submitted_at``, then file and line). An example with fewer annotators than its split needs
(``ways``) is pending: listed in ``rejected/pending_examples/``, never published half-annotated.
Every other example is emitted with NQ's ``annotations`` list (NQ §3.2, §5), one entry per
annotator, and one row per annotation for the release's ``votes`` table.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import apache_beam as beam
import pyarrow as pa

from filters.annotation.jnq import JnqThresholds
from filters.annotation.nq import NqVoteError, check_nq_vote, long_answer_type, nq_annotation
from filters.annotation.nq_decisions import nq_vote_decisions
from filters.annotation.sequential import EXACT_RULE, StopRule
from filters.annotation.votes import NqVote, latest_votes
from transforms.annotation.confident import confident_of
from transforms.annotation.counters import (
    ANNOTATED,
    ANNOTATED_NO_LONG_ANSWER,
    JUDGMENTS_FULL_OVERLAP,
    JUDGMENTS_USED,
    PENDING,
    TASK_PAGE_MISMATCH,
    USED,
    VOTES_PENDING,
    WAYS,
)
from transforms.annotation.label_studio.task_map import vote_mismatch
from transforms.annotation.read_votes import of_release
from transforms.annotation.read_votes_beam import count_repeats, refuse
from transforms.annotation.worker_table import DECISIONS_TAG
from transforms.core.accounting import rejected, tally

JUDGMENTS = "judgments"
DECISIONS = DECISIONS_TAG  # (split, decisions row): worker_table.NQ_DECISION_SCHEMA

VOTE_SCHEMA = pa.schema([
    pa.field("example_id", pa.string(), nullable=False),
    pa.field("split", pa.string(), nullable=False),
    pa.field("annotator_id", pa.string(), nullable=False),
    pa.field("annotation_id", pa.string(), nullable=False),
    pa.field("question_good", pa.bool_(), nullable=False),
    pa.field("long_answer_candidate", pa.int64(), nullable=False),
    pa.field("long_answer_type", pa.string(), nullable=False),
    pa.field("short_answers", pa.int64(), nullable=False),
    pa.field("yes_no_answer", pa.string(), nullable=False),
    pa.field("ways", pa.int64(), nullable=False),
], metadata={"dataset": "nq_votes"})
VOTE_FIELD_DOCS = {
    "example_id": "the NQ example judged",
    "split": "the example's split",
    "question_good": "the worker judged the question good (NQ §3.2 step 1)",
    "long_answer_candidate": "index of the chosen long-answer candidate, -1 for none",
    "yes_no_answer": "YES, NO or NONE",
    "annotator_id": "the worker (completed_by in Label Studio)",
    "annotation_id": "stable uint64 of (example, annotator), as in the examples' annotations",
    "long_answer_type": "paragraph, table, table_row, list, list_item, other or none",
    "short_answers": "number of short-answer spans",
    "ways": "annotators of this example",
}


def vote_context(vote: NqVote) -> dict[str, Any]:
    return {"example_id": vote.example_id, "annotator_id": vote.annotator_id,
            "file": vote.order[1], "line": vote.order[2]}


class AnnotateNqExamples(beam.DoFn):
    """``(example id, {"examples": [(split, view)], "votes": [NqVote]})`` -> ``(example id,
    annotations)``, plus ``JUDGMENTS`` rows and accounting. ``view`` is the example without
    its document (``release_examples.nq_view``); ``nq_attach`` writes the annotations into
    the examples. Each annotated example's has-answer and long-answer decisions are
    ``DECISIONS`` rows (``filters.annotation.nq_decisions``), by the paper's rule or by
    ``model`` (a side input: the fitted worker model of ``--aggregate``); the annotations
    are the same under every aggregate. ``stop`` confident (``annotate next --stop
    confident``): an example with fewer than its split's ways is annotated once ``model`` is
    sure of its decisions (``sequential.nq_confident``), else pending."""

    def __init__(self, ways: Mapping[str, int], fingerprint: str | None,
                 aggregate: str = "paper", stop: StopRule = EXACT_RULE):
        self.ways = dict(ways)
        self.fingerprint = fingerprint
        self.aggregate = aggregate
        self.stop = stop

    def process(self, element: tuple[str, dict[str, list]], model: Any = None
                ) -> Iterator[Any]:
        example_id, grouped = element
        votes: list[NqVote] = list(grouped["votes"])
        if not grouped["examples"]:
            for vote in votes:
                yield from refuse("unknown_example", f"no example {example_id} in the release",
                                  **vote_context(vote))
            return
        split, example = min(grouped["examples"], key=lambda pair: pair[0])
        ours = []
        for vote in votes:
            if not of_release(vote, self.fingerprint):
                yield from refuse("other_release", f"the vote names release {vote.release}, "
                                  f"not {self.fingerprint}", **vote_context(vote))
            elif message := vote_mismatch("nq", vote, example):
                yield from refuse(TASK_PAGE_MISMATCH, message, **vote_context(vote))
            else:
                ours.append(vote)
        yield from count_repeats(ours)
        latest = []
        for vote in latest_votes(ours):
            try:
                check_nq_vote(vote, example)
            except NqVoteError as error:
                yield from refuse(error.reason, str(error), **vote_context(vote))
                continue
            latest.append(vote)
        latest.sort(key=lambda v: (v.order, v.annotator_id))
        needed = self.ways.get(split, 1)
        confident = confident_of(self.stop, model, JnqThresholds()) if self.stop.confident \
            else None
        if (len(latest) < needed if confident is None
                else confident.nq_more(example_id, latest, needed) > 0):
            yield tally(PENDING)
            yield tally(VOTES_PENDING, len(latest))
            yield rejected("pending_examples", {
                "example_id": example_id, "split": split, "annotators": len(latest),
                "required": needed, "question": example.get("question_text", "")})
            return
        yield tally(USED, len(latest))
        if confident is not None:
            yield tally(JUDGMENTS_USED, len(latest))
            yield tally(JUDGMENTS_FULL_OVERLAP, max(needed, len(latest)))
        yield tally(ANNOTATED)
        yield tally(WAYS.member(str(len(latest))))
        if all(v.long_answer_candidate < 0 for v in latest):
            yield tally(ANNOTATED_NO_LONG_ANSWER)
        annotations = [nq_annotation(vote, example) for vote in latest]
        for vote, annotation in zip(latest, annotations, strict=True):
            yield beam.pvalue.TaggedOutput(JUDGMENTS, (split, {
                "example_id": example_id, "split": split, "annotator_id": vote.annotator_id,
                "annotation_id": str(annotation["annotation_id"]),
                "question_good": vote.question_good,
                "long_answer_candidate": vote.long_answer_candidate,
                "long_answer_type": long_answer_type(example, vote.long_answer_candidate),
                "short_answers": len(vote.short_answers), "yes_no_answer": vote.yes_no_answer,
                "ways": len(latest)}))
        posteriors = model.posteriors if model is not None else None
        for decided in nq_vote_decisions(example_id, latest, self.aggregate, posteriors,
                                         model.skills if model is not None else None):
            yield beam.pvalue.TaggedOutput(DECISIONS, (split, {
                **decided, "example_id": example_id, "split": split,
                "aggregate": self.aggregate}))
        yield example_id, annotations

