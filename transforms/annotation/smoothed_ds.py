"""Dawid-Skene with a Dirichlet prior on the confusion matrices, for the confident stop rule.

crowd-kit's ``DawidSkene`` estimates each worker's confusion matrix by maximum likelihood: an
error a worker has not made yet in the campaign gets probability 1e-10, so one vote of theirs
against five others decides an item at 0.99999. At the full overlap that rarely matters
(every item has ten votes); under the confident rule it stops items on exactly such votes
(measured, ``benchmarks/bench_annotation_rounds.py``: JNQ accuracy 2.5 points below the full
overlap's at ``--confidence 0.99``). Here every M step adds ``SMOOTHING`` pseudo-judgments to
each cell of each worker's matrix (a Laplace / symmetric Dirichlet prior, the MAP estimate of
the same model), and the class prior gets one per label. Otherwise as crowd-kit: majority-vote
start, EM until the posteriors move less than ``TOLERANCE`` or ``ITERATIONS``; deterministic
(numpy, votes sorted).

``centre`` moves the prior from chance to a worker's own accuracy: the same ``SMOOTHING * k``
pseudo-judgments per row, the share ``accuracy`` of them on the diagonal (at most
``CENTRE_CEILING``).
With chance-centred priors a row of a rare label (a bad question: 15% of JNQ's) holds few
votes, so it stays near chance and a good worker's vote for that label counts for little
(measured: a 0.90-accurate worker's skill estimated at 0.58 on 500 simulated JNQ questions,
seed 2, and the confident rule 1.7 points below the full overlap's ds); the confident rule
centres each JNQ worker's priors on their agreement with a first, chance-centred fit pooled
over every stage (``transforms.annotation.confident``). Memory: a few arrays of the votes'
length and ``workers x labels^2``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from filters.annotation.worker_models import Triple

SMOOTHING = 1.0
CENTRE_CEILING = 0.95  # a centred prior never claims a worker is surer than this
ITERATIONS = 100
TOLERANCE = 1e-6


def _index(values: Sequence[str]) -> tuple[list[str], np.ndarray]:
    names = sorted(set(values))
    position = {name: i for i, name in enumerate(names)}
    return names, np.array([position[v] for v in values], dtype=np.int64)


def _pseudo_counts(workers: Sequence[str], k: int, smoothing: float,
                   centre: Mapping[str, float] | None) -> np.ndarray:
    """Each worker's prior counts: ``smoothing * k`` per row, spread as a worker of accuracy
    ``centre[worker]`` would (the diagonal that share, the rest alike); chance without."""
    counts = np.full((len(workers), k, k), smoothing)
    if centre is None or k < 2:
        return counts
    for i, worker in enumerate(workers):
        accuracy = min(max(centre.get(worker, 1.0 / k), 1.0 / k), CENTRE_CEILING)
        counts[i] = smoothing * k * (1.0 - accuracy) / (k - 1)
        np.fill_diagonal(counts[i], smoothing * k * accuracy)
    return counts


def agreement(triples: Sequence[Triple], posteriors: Mapping[str, Mapping[str, float]]
              ) -> dict[str, tuple[float, int]]:
    """Per worker, the summed posterior of the labels they gave and how many they gave."""
    found: dict[str, tuple[float, int]] = {}
    for item, worker, label in triples:
        total, count = found.get(worker, (0.0, 0))
        found[worker] = (total + posteriors.get(item, {}).get(label, 0.0), count + 1)
    return found


def fit_smoothed(triples: Sequence[Triple], known: Sequence[str] = (),
                 smoothing: float = SMOOTHING, centre: Mapping[str, float] | None = None
                 ) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Posteriors per item (label -> probability) and each worker's balanced accuracy (the
    mean diagonal of their confusion matrix) of one decision kind's ``(item, worker,
    label)`` triples; ``known``: the kind's labels, also those no vote gave yet (a round
    where every vote says true is not sure of true). ``centre``: each worker's accuracy the
    prior is centred on (module doc); without it, chance (every cell ``smoothing``)."""
    if not triples:
        return {}, {}
    triples = sorted(triples)
    items, task = _index([t[0] for t in triples])
    workers, worker = _index([t[1] for t in triples])
    labels = sorted({t[2] for t in triples} | set(known))
    position = {name: i for i, name in enumerate(labels)}
    label = np.array([position[t[2]] for t in triples], dtype=np.int64)
    n_items, n_workers, k = len(items), len(workers), len(labels)
    probas = np.full((n_items, k), 1e-9)
    np.add.at(probas, (task, label), 1.0)
    probas /= probas.sum(axis=1, keepdims=True)
    pseudo = _pseudo_counts(workers, k, smoothing, centre)
    errors = np.full((n_workers, k, k), 1.0 / k)
    for _ in range(ITERATIONS):
        prior = (probas.sum(axis=0) + 1.0) / (n_items + k)
        counts = pseudo.copy()
        np.add.at(counts, (worker, label), probas[task])
        errors = counts / counts.sum(axis=1, keepdims=True)
        log = np.tile(np.log(prior), (n_items, 1))
        np.add.at(log, task, np.log(errors[worker, label]))
        log -= log.max(axis=1, keepdims=True)
        fresh = np.exp(log)
        fresh /= fresh.sum(axis=1, keepdims=True)
        moved = float(np.abs(fresh - probas).max())
        probas = fresh
        if moved < TOLERANCE:
            break
    posteriors = {items[i]: {labels[j]: float(probas[i, j]) for j in range(k)}
                  for i in range(n_items)}
    diagonal = np.einsum("wkk->wk", errors).mean(axis=1)
    skills: dict[str, float] = defaultdict(float)
    for i, name in enumerate(workers):
        skills[name] = float(diagonal[i])
    return posteriors, dict(skills)
