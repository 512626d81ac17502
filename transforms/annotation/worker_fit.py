"""Fit a crowd-kit worker model on every vote of a campaign (``--aggregate ds|mace|glad``).

crowd-kit (``pip install '.[crowd]'``, docs/design/decisions.md) is imported only here and
only when a model is asked for; ``require_crowd_kit`` checks it is installed before any work.
``fit_campaign`` fits one model per decision kind (``filters.annotation.worker_models``) and
returns each item's posterior and each worker's estimated skill:

* ``ds``: the worker's balanced accuracy under its confusion matrix, the mean of its diagonal
  (``P(worker says l | truth l)`` averaged over the labels): 1/K (0.5 for yes/no) for a worker
  whose answers do not depend on the truth, such as one who always says yes;
* ``mace``: the posterior probability that the worker is not spamming (``spamming_[:, 1]``);
* ``glad``: ``sigmoid(alpha)``, the probability of a right label on an item of average
  difficulty (crowd-kit's beta = 0 means exp(beta) = 1).

A worker judged in several kinds gets the judgment-weighted mean of their skills. The models
are deterministic: crowd-kit's DS and GLAD start from majority votes, MACE is seeded
(``random_state=0``), and the votes are sorted before the fit. Memory and time grow with the
votes (measured on 10^5 judgments: DS 5 s, MACE 8 s a restart, GLAD 130 s; decisions.md).
"""

from __future__ import annotations

import importlib
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from filters.annotation.votes import JnqVote, NqVote, latest_votes
from filters.annotation.worker_models import PAPER, Triple, jnq_items, nq_items
from transforms.core.errors import UsageError

INSTALL_HINT = "pip install '.[crowd]'"
MACE_RESTARTS = 2
MODELS = {"ds": "DawidSkene", "mace": "MACE", "glad": "GLAD"}


@dataclass(frozen=True)
class WorkerModel:
    """A fitted campaign: ``posteriors[item][label]`` and ``skills[worker]`` (in [0, 1])."""

    aggregate: str
    posteriors: dict[str, dict[str, float]] = field(default_factory=dict)
    skills: dict[str, float] = field(default_factory=dict)


def require_crowd_kit(aggregate: str) -> None:
    """``UsageError`` (exit 2, before any work) when ``aggregate`` needs crowd-kit and it is
    not installed."""
    if aggregate == PAPER:
        return
    try:
        importlib.import_module("crowdkit.aggregation")
    except ImportError:
        raise UsageError(f"--aggregate {aggregate} needs crowd-kit, an optional extra: "
                         f"{INSTALL_HINT}") from None


def _model(aggregate: str) -> Any:
    aggregation = importlib.import_module("crowdkit.aggregation")
    if aggregate == "ds":
        return aggregation.DawidSkene(n_iter=100)
    if aggregate == "mace":
        return aggregation.MACE(n_restarts=MACE_RESTARTS, random_state=0)
    return aggregation.GLAD()


def _skills(aggregate: str, model: Any, frame: Any) -> dict[str, float]:
    if aggregate == "ds":
        errors = model.errors_
        labels = list(errors.columns)
        skills: dict[str, float] = defaultdict(float)
        for (worker, observed), row in errors.iterrows():
            if observed in row.index:
                skills[str(worker)] += float(row[observed]) / len(labels)
        return dict(skills)
    if aggregate == "mace":
        _codes, names = importlib.import_module("pandas").factorize(frame["worker"])
        return {str(w): float(model.spamming_[i, 1]) for i, w in enumerate(names)}
    return {str(w): 1.0 / (1.0 + math.exp(-float(a))) for w, a in model.alphas_.items()}


def fit_kind(aggregate: str, triples: list[Triple]) -> tuple[dict[str, dict[str, float]],
                                                            dict[str, float]]:
    """Posteriors per item and skills per worker of one decision kind's triples."""
    pandas = importlib.import_module("pandas")
    frame = pandas.DataFrame(sorted(triples), columns=["task", "worker", "label"])
    model = _model(aggregate)
    probabilities = model.fit_predict_proba(frame)
    posteriors = {str(task): {str(label): float(p) for label, p in row.items()}
                  for task, row in probabilities.iterrows()}
    return posteriors, _skills(aggregate, model, frame)


def fit_campaign(aggregate: str, votes: Iterable[JnqVote | NqVote]) -> WorkerModel:
    """The fitted ``aggregate`` model of a campaign's votes (the latest per worker and item
    count); ``paper`` fits nothing."""
    if aggregate == PAPER:
        return WorkerModel(PAPER)
    latest = latest_votes(list(votes))
    nq = [v for v in latest if isinstance(v, NqVote)]
    kinds = nq_items(nq) if nq else jnq_items(v for v in latest if isinstance(v, JnqVote))
    posteriors: dict[str, dict[str, float]] = {}
    weighted: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for _kind, triples in kinds.items():
        found, skills = fit_kind(aggregate, triples)
        posteriors.update(found)
        judged: dict[str, int] = defaultdict(int)
        for _item, worker, _label in triples:
            judged[worker] += 1
        for worker, n in judged.items():
            weighted[worker] += skills.get(worker, 0.0) * n
            counts[worker] += n
    skills = {w: min(1.0, max(0.0, weighted[w] / counts[w])) for w in sorted(counts)}
    return WorkerModel(aggregate, posteriors, skills)


def skill_of(model: WorkerModel | None, worker: str) -> float | None:
    """The worker's estimated skill under ``model`` (None for paper or an unseen worker)."""
    if model is None:
        return None
    return model.skills.get(worker)


def posterior_of(model: WorkerModel | None, item: str) -> Mapping[str, float] | None:
    """The item's posterior under ``model`` (None for paper or an item it did not fit)."""
    if model is None:
        return None
    return model.posteriors.get(item)
