"""The confident stop rule's worker model, as ``annotate next`` and the import use it.

``Confident`` holds a round's fit: Dawid-Skene (``worker_fit.fit_campaign("ds", ...)``,
the model of ``--aggregate ds``) on every vote read so far, the rules that map its posteriors
to the paper's labels (``worker_rules.rules_for``) and the ``StopRule``. ``annotate next``
fits once per round on all the votes it reads (the import's ``FitWorkerModel`` fits the same
votes the same way), so when ``next`` says ``all decided`` the import closes the same stages
and publishes the labels ``next`` walked. Before any vote (the first round) nothing is fitted:
every item is asked its cold start (``StopRule.min_votes``).

JNQ / JBoolQ fits twice: first each stage with chance-centred priors, then each stage with
every worker's priors centred on their agreement with the first fit pooled over all stages
(``smoothed_ds``: a careful worker is careful on every stage, and the rare labels' rows hold
too few votes to show it). On 500 simulated questions (seed 2, ``--confidence 0.99``) this
took the confident rule from 46.9% of the full overlap's judgments at 1.69 points below its
accuracy to 40.0% at 1.09 below. NQ keeps one chance-centred fit: its kinds (has-answer,
candidate, short answer given) differ in what a worker's skill means, and the pooled centre
cost 1.4 points there (seed 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from filters.annotation.jnq import JnqResult, JnqThresholds, PaperRules
from filters.annotation.sequential import (
    StopRule,
    aggregate_confident,
    confident_state,
    nq_confident,
)
from filters.annotation.votes import JnqVote, NqVote, latest_votes
from filters.annotation.worker_models import FALSE, TRUE, jnq_items, nq_items
from transforms.annotation.smoothed_ds import agreement, fit_smoothed
from transforms.annotation.worker_fit import WorkerModel
from transforms.annotation.worker_rules import rules_for

MODEL = "ds"
POOLED = True
KNOWN_LABELS = {"yes_no_answer": ("YES", "NO", "NONE")}  # the other kinds: true / false


def _pooled_accuracy(kinds: Mapping[str, list[Any]]) -> dict[str, float]:
    """Each worker's agreement with a first fit (chance-centred priors), pooled over every
    decision kind: the centre of the second fit's priors (``smoothed_ds``)."""
    pooled: dict[str, tuple[float, int]] = {}
    for kind, triples in kinds.items():
        found, _ = fit_smoothed(triples, KNOWN_LABELS.get(kind, (TRUE, FALSE)))
        for worker, (total, count) in agreement(triples, found).items():
            before = pooled.get(worker, (0.0, 0))
            pooled[worker] = (before[0] + total, before[1] + count)
    return {worker: total / count for worker, (total, count) in pooled.items()}


def fit_confident(votes: Iterable[JnqVote | NqVote]) -> WorkerModel:
    """Smoothed Dawid-Skene (``smoothed_ds``) per decision kind on the latest vote of each
    worker and item, as ``worker_fit.fit_campaign`` formulates the kinds."""
    latest = latest_votes(list(votes))
    nq = [v for v in latest if isinstance(v, NqVote)]
    kinds = nq_items(nq) if nq else jnq_items(v for v in latest if isinstance(v, JnqVote))
    centre = _pooled_accuracy(kinds) if POOLED and not nq else None
    posteriors: dict[str, dict[str, float]] = {}
    skills: dict[str, list[float]] = {}
    for kind, triples in kinds.items():
        found, skill = fit_smoothed(triples, KNOWN_LABELS.get(kind, (TRUE, FALSE)),
                                    centre=centre)
        posteriors.update(found)
        for worker, value in skill.items():
            skills.setdefault(worker, []).append(value)
    return WorkerModel(MODEL, posteriors, {w: sum(v) / len(v) for w, v in sorted(skills.items())})


@dataclass(frozen=True)
class Confident:
    """A round's fitted model under the confident ``rule`` (module doc)."""

    rule: StopRule
    model: WorkerModel
    rules: PaperRules

    @property
    def posteriors(self) -> Mapping[str, Mapping[str, float]]:
        return self.model.posteriors

    def jnq_state(self, question_id: str, votes: Iterable[JnqVote],
                  candidates: list[int], order: str, ways: int) -> Any:
        """``confident_state`` of one question under this round's fit."""
        return confident_state(question_id, votes, candidates, order, ways, self.rules.t,
                               self.rules, self.posteriors, self.rule, self.model.skills)

    def aggregate(self, question_id: str, votes: Iterable[JnqVote], candidates: list[int],
                  order: str, ways: int) -> JnqResult:
        """``aggregate_confident`` of one question under this fit (the import's)."""
        return aggregate_confident(question_id, votes, candidates, order, ways, self.rules.t,
                                   self.rules, self.posteriors, self.rule, self.model.skills)

    def nq_more(self, example_id: str, votes: Iterable[NqVote], ways: int) -> int:
        """How many more annotations an NQ example needs (``nq_confident``)."""
        return nq_confident(example_id, [v.long_answer_candidate for v in votes], ways,
                            self.posteriors, self.rule)


def confident_round(rule: StopRule, votes: Iterable[JnqVote | NqVote],
                    t: JnqThresholds) -> Confident:
    """The round's fit on every vote so far (none: an empty model, the cold start)."""
    votes = list(votes)
    model = fit_confident(votes) if votes else WorkerModel(MODEL)
    return Confident(rule, model, rules_for(model, t))


def confident_of(rule: StopRule, model: WorkerModel | None, t: JnqThresholds) -> Confident:
    """The import's ``Confident`` from its fitted side-input model."""
    model = model or WorkerModel(MODEL)
    return Confident(rule, model, rules_for(model, t))

