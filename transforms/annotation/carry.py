"""Carry a previous annotated release's judgments to a new one (``annotate import --previous``).

``ReadPreviousAnnotations`` reads what the previous annotated release judged
(``previous_items``) keyed by item id; the import joins it with the new release's examples
and the new votes, and ``CarryAnnotations`` decides per item, before any vote is aggregated:

* judged before, and what the worker saw is unchanged (``content``) in the same split: the
  previous annotations are **carried**: NQ's ``annotations`` list and JNQ's annotation columns
  (a JNQ question its rules dropped stays dropped, with its record), and every row of the
  previous ``votes`` table for it, all as they were. New votes for it are ``votes.not_needed``
  (those naming another release, or whose Label Studio task is not the item's, are refused, as
  always). It counts ``annotations.carried``
  and the outcome it had (``examples.annotated``, ``examples.kept``, ...);
* judged before but changed, moved to another split, or ``--recompute-all``: counted as
  ``annotations.invalidated.<reason>`` and aggregated from the new votes like a new item;
* judged before and not in the new release: ``annotations.invalidated.removed``;
* not judged before: passed on to the aggregation unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import apache_beam as beam

from transforms.annotation.content import UNKNOWN, content_digest
from transforms.annotation.counters import (
    ANNOTATED,
    ANNOTATED_NO_LONG_ANSWER,
    CARRIED,
    CARRIED_VOTES,
    DUPLICATE_QUESTION,
    INVALIDATED,
    KEPT_LONG_ANSWER_ONLY,
    KEPT_NO_LONG_ANSWER,
    NOT_NEEDED,
    OUTCOME,
    PREVIOUS,
    RECOMPUTE_ALL,
    REMOVED,
    TASK_PAGE_MISMATCH,
    WAYS,
)
from transforms.annotation.label_studio.task_map import vote_mismatch
from transforms.annotation.previous import PreviousAnnotations
from transforms.annotation.previous_items import (
    VOTES,
    dropped_for_unknown_reason,
    invalidation,
    previous_files,
    read_previous,
)
from transforms.annotation.read_votes import of_release
from transforms.annotation.read_votes_beam import refuse
from transforms.core.accounting import SIDE_OUTPUTS, rejected, tally

CARRIED_TAG = "carried"  # NQ: (example id, annotations); JNQ: (split, annotated row)
JUDGMENTS = "carried_judgments"  # (split, votes-table row) of the previous votes table
PREVIOUS_VOTES = "previous_votes"


class _ReadPreviousFile(beam.DoFn):
    def __init__(self, base: str):
        self.base = base

    def process(self, element: tuple[str, str, str]) -> Iterator[Any]:
        kind, split, path = element
        for key, item in read_previous(self.base, kind, split, path):
            if kind == VOTES:
                yield beam.pvalue.TaggedOutput(PREVIOUS_VOTES, (key, item))
            else:
                yield tally(PREVIOUS)
                yield key, item


class ReadPreviousAnnotations(beam.PTransform):
    """The previous annotated release -> ``(item id, item)`` (main) and ``(item id, votes
    row)`` (``PREVIOUS_VOTES``), with tallies (``annotations.previous``)."""

    def __init__(self, previous: PreviousAnnotations):
        super().__init__()
        self.previous = previous

    def expand(self, pbegin):
        return (pbegin
                | "PreviousFiles" >> beam.Create(previous_files(self.previous))
                | "ReadPrevious" >> beam.ParDo(_ReadPreviousFile(self.previous.base))
                .with_outputs(*SIDE_OUTPUTS, PREVIOUS_VOTES, main="main"))


def _held(base: str, examples: list, prefer: str) -> tuple[str, dict[str, Any], set]:
    """The example an item's votes are aggregated on, as the imports choose it: ``(split,
    example, release fingerprints of its copies)`` (NQ's fingerprint is the import's)."""
    if base == "nq":
        split, view = min(examples, key=lambda pair: pair[0])
        return split, view, set()
    held = sorted(examples, key=lambda e: (e[2] != prefer, e[0]))
    return held[0][0], held[0][1], {e[3] for e in held}


def _content(base: str, example: dict[str, Any]) -> Any:
    return example.get("content") if base == "nq" else content_digest(base, example)


class CarryAnnotations(beam.DoFn):
    """``(item id, {"examples", "votes", "previous", "previous_votes"})`` -> ``(item id,
    {"examples", "votes"})`` of the items to aggregate (main), ``CARRIED_TAG`` and
    ``JUDGMENTS`` of the carried ones, and accounting. ``base`` is nq, jnq or jboolq;
    ``fingerprint`` the NQ release's (JNQ rows carry their own)."""

    def __init__(self, base: str, fingerprint: str | None, recompute_all: bool = False):
        self.base = base
        self.fingerprint = fingerprint
        self.recompute_all = recompute_all

    def process(self, element: tuple[str, dict[str, list]]) -> Iterator[Any]:
        key, grouped = element
        rest = {"examples": list(grouped["examples"]), "votes": list(grouped["votes"])}
        previous = list(grouped["previous"])
        if not previous:
            yield key, rest
            return
        item = previous[0]
        if not rest["examples"]:
            yield tally(INVALIDATED.member(REMOVED))
            if rest["votes"]:
                yield key, rest  # refused there as votes for an unknown item
            return
        split, example, fingerprints = _held(self.base, rest["examples"], self.base)
        reason = RECOMPUTE_ALL if self.recompute_all else _invalidation(
            self.base, item, split, _content(self.base, example))
        if reason is not None:
            yield tally(INVALIDATED.member(reason))
            yield key, rest
            return
        yield tally(CARRIED)
        votes = list(grouped[PREVIOUS_VOTES])
        yield tally(CARRIED_VOTES, len(votes))
        for row in votes:
            yield beam.pvalue.TaggedOutput(JUDGMENTS, (row["split"], row))
        yield from self._new_votes(key, rest["votes"], fingerprints or {self.fingerprint},
                                   example)
        if self.base == "nq":
            yield from _carry_nq(key, item["annotations"])
            return
        if len(rest["examples"]) > 1:
            yield tally(DUPLICATE_QUESTION, len(rest["examples"]) - 1)
        yield from _carry_jnq(split, example, item)

    def _new_votes(self, key: str, votes: list, fingerprints: set, example: dict[str, Any]
                   ) -> Iterator[Any]:
        """Votes for a carried item: not needed, or refused when they name another release
        or their Label Studio task is not the item's (``task_page_mismatch``)."""
        ours = 0
        for vote in votes:
            context = {"item": key, "annotator_id": vote.annotator_id, "file": vote.order[1],
                       "line": vote.order[2]}
            if not any(of_release(vote, fingerprint) for fingerprint in fingerprints):
                yield from refuse("other_release", f"the vote names release {vote.release}, "
                                  f"not {' or '.join(sorted(map(str, fingerprints)))}",
                                  **context)
            elif message := vote_mismatch(self.base, vote, example):
                yield from refuse(TASK_PAGE_MISMATCH, message, **context)
            else:
                ours += 1
        if ours:
            yield tally(NOT_NEEDED, ours)


def _invalidation(base: str, item: dict[str, Any], split: str, content: Any) -> str | None:
    """``previous_items.invalidation``; a question ``dropped_for_unknown_reason`` cannot be
    carried either (``content_unknown``)."""
    reason = invalidation(base, item["split"], item["content"], split, content)
    if reason is None and dropped_for_unknown_reason(item):
        return UNKNOWN
    return reason


def _carry_nq(key: str, annotations: list[dict[str, Any]]) -> Iterator[Any]:
    yield tally(ANNOTATED)
    yield tally(WAYS.member(str(len(annotations))))
    if all(a["long_answer"]["candidate_index"] < 0 for a in annotations):
        yield tally(ANNOTATED_NO_LONG_ANSWER)
    yield beam.pvalue.TaggedOutput(CARRIED_TAG, (key, annotations))


def _carry_jnq(split: str, row: dict[str, Any], item: dict[str, Any]) -> Iterator[Any]:
    if "dropped" in item:
        yield tally(OUTCOME[item["dropped"]["reason"]])
        yield rejected("dropped_questions", item["dropped"])
        return
    columns = item["columns"]
    yield tally(OUTCOME["kept"])
    exist = [a for a in columns["annotations"] if a["label"] == "EXIST"]
    if not exist:
        yield tally(KEPT_NO_LONG_ANSWER)
    elif all(a["short_answer_type"] == "none" for a in exist):
        yield tally(KEPT_LONG_ANSWER_ONLY)
    yield beam.pvalue.TaggedOutput(CARRIED_TAG, (split, {**row, **columns}))
