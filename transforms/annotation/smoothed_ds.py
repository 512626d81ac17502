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
(numpy, votes sorted). Memory: a few arrays of the votes' length and ``workers x labels^2``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from filters.annotation.worker_models import Triple

SMOOTHING = 1.0
ITERATIONS = 100
TOLERANCE = 1e-6


def _index(values: Sequence[str]) -> tuple[list[str], np.ndarray]:
    names = sorted(set(values))
    position = {name: i for i, name in enumerate(names)}
    return names, np.array([position[v] for v in values], dtype=np.int64)


def fit_smoothed(triples: Sequence[Triple], known: Sequence[str] = (),
                 smoothing: float = SMOOTHING
                 ) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Posteriors per item (label -> probability) and each worker's balanced accuracy (the
    mean diagonal of their confusion matrix) of one decision kind's ``(item, worker,
    label)`` triples; ``known``: the kind's labels, also those no vote gave yet (a round
    where every vote says true is not sure of true)."""
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
    errors = np.full((n_workers, k, k), 1.0 / k)
    for _ in range(ITERATIONS):
        prior = (probas.sum(axis=0) + 1.0) / (n_items + k)
        counts = np.full((n_workers, k, k), smoothing)
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
