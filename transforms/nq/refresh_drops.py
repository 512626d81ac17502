"""Carry the previous release's lasting drops of NQ and JNQ (a refresh, ``--previous``).

A question the previous release dropped for a reason that lasts (``LASTING_DROPS``: no
Wikipedia page among the top 5 hits, a missing or redirect page, a page without long-answer
candidates; JNQ adds a page without paragraphs) is not searched again: what its search and its
page said is kept as its example would have been. Its ``rejected/unlinked_questions`` record
is written again, as it was, and ``linking.previously_dropped`` counts it. Failures to ask
(a search or fetch that failed, dead-lettered) are not recorded there and are retried;
``--relink`` and ``--recompute-all`` retry every drop.

These questions made no row, so the ``refresh.*`` row counts do not see them; like
``transforms.release.refresh.carry``, the previous records' questions reach the filter as a
side input (a dict of question strings), and the records are joined with this run's
questions by key, in the join that counts the refresh (``carry.AlsoJoined``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import apache_beam as beam

from transforms.core.accounting import rejected, tally
from transforms.nq.counters import PREVIOUSLY_DROPPED
from transforms.release.refresh.carry import AlsoJoined
from transforms.release.refresh.checked_read import Release, read_file
from transforms.release.refresh.previous import PreviousRelease

UNLINKED = "unlinked_questions"
REJECTED_DIR = f"rejected/{UNLINKED}/"


def drop_files(previous: PreviousRelease) -> list[str]:
    """Release-relative names of the previous release's ``rejected/unlinked_questions``."""
    return [name for name in previous.all_files
            if name.startswith(REJECTED_DIR) and name.endswith(".jsonl")]


def read_drops(name: str, version_dir: Release,
               lasting: frozenset[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(question, record)`` of each lasting drop in one file of the previous release
    (checked against its verified manifest: ``checked_read``)."""
    data = read_file(version_dir, name)
    for line in data.split(b"\n"):
        if line:
            record = json.loads(line)
            if record.get("reason") in lasting:
                yield record["question"], record


class _NotDropped(beam.DoFn):
    """Question rows the previous release did not drop for a lasting reason."""

    def process(self, row: dict[str, Any], dropped: dict[str, int]):
        if row["question"] not in dropped:
            yield row


def _again(grouped: dict[str, list]):
    """One question's previous drop records, written again when this run has the question
    and has not carried an example of it (as ``CarryDrops.fresh`` let it through)."""
    if grouped["units"] and not grouped["previous"]:
        for record in grouped["drops"]:
            yield tally(PREVIOUSLY_DROPPED)
            yield rejected(UNLINKED, record)


class CarryDrops:
    """The lasting drops of the previous release (see the module docstring): ``fresh``
    filters the questions to link, ``joined`` is what the refresh's count joins to write the
    kept drops again (``carry.AlsoJoined``: the drop records, joined by question with this
    run's question keys in the same shuffle). A pass-through without a previous release or
    when every question is relinked. ``drops``: the ``(question, record)`` of ``read_drops``
    when the dataset reads them itself (``transforms.nq.previous_read``)."""

    def __init__(self, pbegin, previous: PreviousRelease | None, lasting: frozenset[str], *,
                 relink: bool, label: str = "RefreshDrops", drops=None):
        self.active = previous is not None and not relink
        self.label = label
        if not self.active:
            return
        self.drops = drops if drops is not None else (
            pbegin
            | f"{label}Files" >> beam.Create(drop_files(previous))
            | f"{label}Read" >> beam.FlatMap(read_drops, previous.pinned, lasting))

    def fresh(self, questions):
        """The question rows to link: those the previous release did not drop for good."""
        if not self.active:
            return questions
        label = self.label
        dropped = self.drops | f"{label}Dropped" >> beam.Map(lambda kv: (kv[0], 1))
        return questions | f"{label}Keep" >> beam.ParDo(
            _NotDropped(), beam.pvalue.AsDict(dropped))

    def joined(self) -> AlsoJoined | None:
        """The drops to join with the refresh's keys (None when inactive)."""
        return AlsoJoined({"drops": self.drops}, _again) if self.active else None
