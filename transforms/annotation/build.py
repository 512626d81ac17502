"""The import pipeline: release examples + votes -> an annotated release (Beam).

``AnnotateRelease`` reads the examples of the chosen splits of each input, reads the votes,
joins them by item id and aggregates per item (``nq_import`` / ``jnq_import``). With a
previous annotated release (``--previous``), what it judged joins too, and ``carry`` carries the
judgments that still hold before the rest are aggregated. It returns the annotated examples
keyed by split, the per-vote judgment rows, and the accounting results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import apache_beam as beam

from filters.annotation.gold import gold_questions
from filters.annotation.jnq import JnqThresholds
from filters.annotation.sequential import EXACT_RULE, StopRule
from filters.annotation.worker_models import PAPER
from transforms.annotation import carry, jnq_import, nq_import
from transforms.annotation.previous import PreviousAnnotations
from transforms.annotation.read_votes import holds_label_studio_export
from transforms.annotation.read_votes_beam import ReadVotes
from transforms.annotation.release_examples_beam import ReadReleaseExamples
from transforms.annotation.workers_beam import (
    FitWorkerModel,
    NqWorkersTable,
    WorkersTable,
    carried_decisions,
    carried_nq_decisions,
)
from transforms.core.accounting import SIDE_OUTPUTS


@dataclass(frozen=True)
class ImportInput:
    """One input to annotate: a release directory (or files), its kind and fingerprint, and
    its files as ``(split, path, index, count)``."""

    path: str
    base: str
    fingerprint: str | None
    splits: tuple[str, ...]
    files: tuple[tuple[str, str, int, int], ...] = field(default=())
    version: str = "-"


class AnnotateRelease(beam.PTransform):
    """Inputs + votes -> ``(annotated, judgments by split, accounting results)``.

    ``annotated`` is ``(example id, annotations)`` for NQ (``nq_attach`` writes the files)
    and ``(split, annotated row)`` for JNQ / JBoolQ.

    ``dataset`` is nq, jnq or jboolq; for jboolq, inputs may include a JNQ release whose
    questions the workers judged yes/no (JNQ's yes/no questions are merged into JBoolQ).

    ``previous``: the annotated release to carry unchanged judgments from (``carry``; with
    ``recompute_all`` none is carried). ``curtailed``: JNQ / JBoolQ votes of ``annotate
    next`` rounds, aggregated with exact curtailment (``filters.annotation.curtail``)."""

    def __init__(self, dataset: str, inputs: list[ImportInput], vote_patterns: list[str],
                 ways: dict[str, int], thresholds: JnqThresholds | None = None,
                 previous: PreviousAnnotations | None = None, recompute_all: bool = False,
                 curtailed: bool = False, aggregate: str = "paper",
                 gold: dict[str, str] | None = None, stop: StopRule = EXACT_RULE):
        super().__init__()
        self.dataset = dataset
        self.inputs = inputs
        self.vote_patterns = vote_patterns
        self.ways = ways
        self.thresholds = thresholds or JnqThresholds()
        self.previous = previous
        self.recompute_all = recompute_all
        self.curtailed = curtailed
        self.aggregate = aggregate  # --aggregate: paper, or a worker model (workers_beam)
        self.gold = dict(gold or {})  # --gold: item_key -> answer (filters.annotation.gold)
        self.stop = stop  # --stop confident: rounds stopped by a worker model (sequential)
        self.tables: dict[str, Any] = {}  # JNQ: "workers" and "decisions", set by expand

    def expand(self, pbegin):
        results = []
        keyed = []
        task_maps = self.dataset == "nq" and holds_label_studio_export(self.vote_patterns)
        for number, item in enumerate(self.inputs):
            read = pbegin | f"Examples{number}" >> ReadReleaseExamples(
                list(item.files), item.base, digest=self.previous is not None,
                task_maps=task_maps)
            results.append(read)
            if self.dataset == "nq":
                keyed.append(read.main)
            else:
                order, fingerprint = item.base, item.fingerprint
                keyed.append(read.main | f"Order{number}" >> beam.MapTuple(
                    lambda key, pair, o=order, f=fingerprint: (key, (*pair, o, f))))
        examples = keyed | "AllExamples" >> beam.Flatten()
        votes = pbegin | "Votes" >> ReadVotes(self.vote_patterns, self.dataset)
        results.append(votes)
        joined = {"examples": examples, "votes": votes.main}
        if self.previous is not None:
            judged = pbegin | "Previous" >> carry.ReadPreviousAnnotations(self.previous)
            results.append(judged)
            joined.update({"previous": judged.main,
                           carry.PREVIOUS_VOTES: judged[carry.PREVIOUS_VOTES]})
        grouped = joined | "JoinVotes" >> beam.CoGroupByKey()
        fingerprint = self.inputs[0].fingerprint
        carried = None
        if self.previous is not None:
            carried = grouped | "Carry" >> beam.ParDo(carry.CarryAnnotations(
                self.dataset, fingerprint, self.recompute_all)).with_outputs(
                    *SIDE_OUTPUTS, carry.CARRIED_TAG, carry.JUDGMENTS, main="main")
            results.append(carried)
            grouped = carried.main
        model, side, tags = None, {}, ()
        if self.dataset == "nq":
            aggregate = nq_import.AnnotateNqExamples(self.ways, fingerprint, self.aggregate,
                                                     self.stop)
            tag, tags = nq_import.JUDGMENTS, (nq_import.DECISIONS,)
        else:
            aggregate = jnq_import.AnnotateJnqRows(
                self.dataset, self.ways, self.thresholds, self.curtailed, self.aggregate,
                gold_questions(self.gold), self.stop)
            tag, tags = jnq_import.JUDGMENTS, (jnq_import.DECISIONS,)
        if self.aggregate != PAPER:
            model = votes.main | "FitWorkerModel" >> FitWorkerModel(self.aggregate,
                                                                        self.stop.confident)
            side = {"model": beam.pvalue.AsSingleton(model)}
        annotated = grouped | "Annotate" >> beam.ParDo(aggregate, **side).with_outputs(
            *SIDE_OUTPUTS, tag, *tags, main="main")
        results.append(annotated)
        if carried is None:
            rows, judgments = annotated.main, annotated[tag]
        else:
            rows = ((annotated.main, carried[carry.CARRIED_TAG])
                    | "WithCarried" >> beam.Flatten())
            judgments = ((annotated[tag], carried[carry.JUDGMENTS])
                         | "WithCarriedVotes" >> beam.Flatten())
        if self.dataset == "nq":
            self.tables = self._nq_worker_tables(annotated, carried, judgments, model)
        else:
            self.tables = self._worker_tables(annotated, carried, rows, judgments,
                                              votes.main, model)
        return rows, judgments, results

    def _nq_worker_tables(self, annotated, carried, judgments, model) -> dict[str, Any]:
        """NQ's ``workers`` and ``decisions`` PCollections (``nq_decisions``)."""
        decisions = annotated[nq_import.DECISIONS]
        if carried is not None:
            again = (carried[carry.JUDGMENTS]
                     | "CarriedByExample" >> beam.MapTuple(
                         lambda _split, row: (row["example_id"], row))
                     | "GroupCarried" >> beam.GroupByKey()
                     | "CarriedDecisions" >> beam.FlatMap(carried_nq_decisions))
            decisions = (decisions, again) | "WithCarriedDecisions" >> beam.Flatten()
        workers = ({"judgments": judgments, "decisions": decisions}
                   | "Workers" >> NqWorkersTable(self.aggregate, model))
        return {"workers": workers, "decisions": decisions}

    def _worker_tables(self, annotated, carried, rows, judgments, votes, model
                       ) -> dict[str, Any]:
        """The ``workers`` and ``decisions`` PCollections (``worker_table``)."""
        decisions = annotated[jnq_import.DECISIONS]
        if carried is not None:
            decisions = ((decisions, carried[carry.CARRIED_TAG]
                          | "CarriedDecisions" >> beam.FlatMap(carried_decisions))
                         | "WithCarriedDecisions" >> beam.Flatten())
        workers = ({"judgments": judgments, "rows": rows, "votes": votes}
                   | "Workers" >> WorkersTable(self.aggregate, model, self.gold))
        return {"workers": workers, "decisions": decisions}
