"""Single-annotator precision and recall of simulated NQ votes against the hidden truth.

NQ §4 (Kwiatkowski et al. 2019) measures one annotator against 25-way annotations: long
answer P/R 80.4/67.6, short answer 63.4/52.6. Here each vote is measured against the truth
the simulator drew (``simulate_truth``), with the same definitions:

* precision: of the non-null answers given, the share that are right;
* recall: of the (vote, item) pairs whose item has a true non-null answer, the share that
  gave the right one.

A long answer is non-null when it names a candidate and right when it is the true candidate.
A short answer is non-null when it has a span or YES/NO and right when its spans and YES/NO
are the truth's (NQ's evaluation scores short answers on their own, whatever the long one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

NQ_SINGLE_ANNOTATOR = {"long": (0.804, 0.676), "short": (0.634, 0.526)}  # NQ §4: (P, R)


@dataclass(frozen=True)
class PrecisionRecall:
    """Counts of one answer kind: ``right`` non-null answers, ``given`` non-null answers,
    ``expected`` judgments of items with a true non-null answer."""

    right: int
    given: int
    expected: int

    @property
    def precision(self) -> float:
        return self.right / self.given if self.given else 0.0

    @property
    def recall(self) -> float:
        return self.right / self.expected if self.expected else 0.0


def _short(record: Mapping[str, Any]) -> tuple[tuple[tuple[int, int], ...], str]:
    spans = tuple(sorted((int(s["start_token"]), int(s["end_token"]))
                         for s in record.get("short_answers") or ()))
    return spans, str(record.get("yes_no_answer") or "NONE")


def _has_short(short: tuple[tuple[tuple[int, int], ...], str]) -> bool:
    return bool(short[0]) or short[1] != "NONE"


def nq_single_annotator_scores(votes: Iterable[Mapping[str, Any]],
                               truths: Mapping[str, Mapping[str, Any]]
                               ) -> dict[str, PrecisionRecall]:
    """``{"long": ..., "short": ...}`` over every vote whose example has a truth record
    (``truths`` by ``example_id``)."""
    counts = {kind: [0, 0, 0] for kind in ("long", "short")}
    for vote in votes:
        truth = truths.get(str(vote["example_id"]))
        if truth is None:
            continue
        true_long = int(truth["long_answer_candidate"])
        given_long = int(vote["long_answer_candidate"])
        true_short, given_short = _short(truth), _short(vote)
        for kind, has_truth, given, right in (
                ("long", true_long >= 0, given_long >= 0, given_long == true_long),
                ("short", _has_short(true_short), _has_short(given_short),
                 given_short == true_short)):
            counts[kind][0] += has_truth and given and right
            counts[kind][1] += given
            counts[kind][2] += has_truth
    return {kind: PrecisionRecall(*numbers) for kind, numbers in counts.items()}
