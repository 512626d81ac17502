"""Beam stages of ``--aggregate`` and the ``workers/`` table (JNQ / JBoolQ imports).

``FitWorkerModel``: crowd-kit's EM is global across items (a worker's skill comes from every
item they judged), so every vote of the campaign is collected in one place
(``combiners.ToList``), the model is fitted once, and the fit reaches the per-question
aggregation as a singleton side input (``AnnotateJnqRows``'s ``model``). Memory is the
campaign's votes on one worker: about 400 bytes a vote in Python (measured), 0.4 GB for
10^6 judgments (the fit's pandas frame adds tens of bytes a judgment); beyond 10^7, an EM
written as Beam combines would be needed (docs/design/decisions.md).

``WorkersTable``: ``worker_table``'s per-worker rows from the release's judgments and rows
(carried ones included: a ``--previous`` refresh recomputes the same table), the gold votes
and the model's skills.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import apache_beam as beam

from filters.annotation.gold import answer_text
from filters.annotation.nq_decisions import compare, nq_decisions
from filters.annotation.worker_models import item_key
from transforms.annotation.confident import fit_confident
from transforms.annotation.worker_fit import fit_campaign
from transforms.annotation.worker_table import WORKERS_GROUP, row_decisions, worker_row

Totals = tuple[int, int, int, int, int]  # judgments, compared, agreed, gold, gold right


class FitWorkerModel(beam.PTransform):
    """``(question id, JnqVote)`` -> one ``WorkerModel`` (module doc); ``confident``: the
    smoothed Dawid-Skene of ``--stop confident`` (``confident.fit_confident``), the fit
    ``annotate next`` made."""

    def __init__(self, aggregate: str, confident: bool = False):
        super().__init__()
        self.aggregate = aggregate
        self.confident = confident

    def expand(self, votes):
        aggregate = self.aggregate
        fit = fit_confident if self.confident else (
            lambda all_votes: fit_campaign(aggregate, all_votes))
        return (votes
                | "Votes" >> beam.Values()
                | "AllVotes" >> beam.combiners.ToList()
                | "Fit" >> beam.Map(fit))


def _compared(element: tuple[str, dict[str, list]]) -> Iterator[tuple[str, Totals]]:
    _question_id, grouped = element
    decided = row_decisions(grouped["rows"][0]) if grouped["rows"] else {}
    for vote in grouped["votes"]:
        label = decided.get((vote["stage"], vote["paragraph"]))
        yield vote["annotator_id"], (1, int(label is not None), int(label == vote["value"]),
                                     0, 0)


def _sum(totals) -> Totals:
    return tuple(sum(column) for column in zip(*totals, strict=True))  # type: ignore[return-value]


def _row(element: tuple[str, Totals], aggregate: str, model: Any) -> tuple[str, dict]:
    worker, totals = element
    skills = model.skills if model is not None else {}
    return WORKERS_GROUP, worker_row(worker, totals, aggregate, skills)


class WorkersTable(beam.PTransform):
    """``{"judgments": (split, votes row), "rows": (split, annotated row), "votes":
    (question id, JnqVote)}``
    -> ``("workers", workers row)``; ``model`` a singleton PCollection or None (paper);
    ``gold``: ``item_key -> answer`` (``filters.annotation.gold``)."""

    def __init__(self, aggregate: str, model=None, gold: dict[str, str] | None = None):
        super().__init__()
        self.aggregate = aggregate
        self.model = model
        self.gold = dict(gold or {})

    def expand(self, inputs: dict[str, Any]):
        gold = self.gold
        compared = ({"votes": inputs["judgments"]
                     | "VoteByQuestion" >> beam.Map(lambda kv: (kv[1]["question_id"], kv[1])),
                     "rows": inputs["rows"]
                     | "RowByQuestion" >> beam.Map(lambda kv: (kv[1]["id"], kv[1]))}
                    | "JoinDecisions" >> beam.CoGroupByKey()
                    | "Compare" >> beam.FlatMap(_compared))
        gold_votes = (inputs["votes"]
                      | "VoteValues" >> beam.Values()
                      | "GoldVotes" >> beam.Filter(
                          lambda v: item_key(v.question_id, v.stage, v.paragraph) in gold)
                      | "ByGoldItem" >> beam.Map(lambda v: ((v.question_id, v.stage,
                                                             v.paragraph, v.annotator_id), v))
                      | "GroupGoldItem" >> beam.GroupByKey()
                      | "LatestGold" >> beam.MapTuple(
                          lambda _key, votes: max(votes, key=lambda v: (v.order, repr(v))))
                      | "Score" >> beam.Map(lambda v: (v.annotator_id, (
                          1, 0, 0, 1, int(answer_text(v.value) == gold[
                              item_key(v.question_id, v.stage, v.paragraph)])))))
        totals = ((compared, gold_votes)
                  | "AllTotals" >> beam.Flatten()
                  | "PerWorker" >> beam.CombinePerKey(_sum))
        model = (beam.pvalue.AsSingleton(self.model) if self.model is not None else None)
        return totals | "WorkerRow" >> beam.Map(_row, self.aggregate, model)


def _nq_compared(element: tuple[str, dict[str, list]]) -> Iterator[tuple[str, Totals]]:
    _example_id, grouped = element
    decided = list(grouped["decisions"])
    for vote in grouped["votes"]:
        compared, agreed = compare(decided, vote["long_answer_candidate"])
        yield vote["annotator_id"], (1, compared, agreed, 0, 0)


class NqWorkersTable(beam.PTransform):
    """NQ: ``{"judgments": (split, votes row), "decisions": (split, decisions row)}`` ->
    ``("all", workers row)`` (no gold: ``--gold`` is JNQ / JBoolQ's)."""

    def __init__(self, aggregate: str, model=None):
        super().__init__()
        self.aggregate = aggregate
        self.model = model

    def expand(self, inputs: dict[str, Any]):
        totals = ({"votes": inputs["judgments"]
                   | "VoteByExample" >> beam.Map(lambda kv: (kv[1]["example_id"], kv[1])),
                   "decisions": inputs["decisions"]
                   | "DecisionByExample" >> beam.Map(lambda kv: (kv[1]["example_id"], kv[1]))}
                  | "JoinDecisions" >> beam.CoGroupByKey()
                  | "Compare" >> beam.FlatMap(_nq_compared)
                  | "PerWorker" >> beam.CombinePerKey(_sum))
        model = (beam.pvalue.AsSingleton(self.model) if self.model is not None else None)
        return totals | "WorkerRow" >> beam.Map(_row, self.aggregate, model)


def carried_nq_decisions(element: tuple[str, list[dict[str, Any]]]
                         ) -> Iterator[tuple[str, dict]]:
    """NQ decision rows of an example carried from ``--previous``, from its carried votes
    by the paper's rule (``aggregate`` ``carried``, no confidence)."""
    example_id, votes = element
    votes = sorted(votes, key=lambda v: v["annotator_id"])
    split = votes[0]["split"]
    for row in nq_decisions(example_id, [v["long_answer_candidate"] for v in votes]):
        yield split, {**row, "example_id": example_id, "split": split, "confidence": None,
                      "aggregate": "carried"}


def carried_decisions(element: tuple[str, dict[str, Any]]) -> Iterator[tuple[str, dict]]:
    """Decision rows of a row carried from ``--previous`` (``aggregate`` ``carried``, no
    confidence: it was decided by the previous import)."""
    split, row = element
    for (stage, paragraph), label in sorted(row_decisions(row).items(),
                                            key=lambda kv: (kv[0][0], kv[0][1] or -1)):
        yield split, {"question_id": row["id"], "split": split, "decision": stage,
                      "paragraph": paragraph, "label": label, "confidence": None,
                      "aggregate": "carried"}
