"""How sure a JNQ §3.5 span decision is, from the workers' estimated skills (``--stop
confident``).

A span stage's values are one character span per worker or ``None`` ("no span"), and no two
questions share a label set, so Dawid-Skene has no confusion matrix to fit for it (as for
NQ's candidates, ``filters.annotation.nq_short``). ``span_posterior`` scores the label the
paper's rule adopts (``spans.majority_span``, with §3.5's subsumption) under a one-coin model:
each worker gives the true value with their skill ``s`` (the skill the worker model estimated
on the campaign's other stages, clipped to [0.51, 0.99] as ``nq_short.vote_weight`` clips it;
a worker it has not seen counts as chance) and otherwise one of ``ERROR_VALUES`` wrong values
alike. The hypotheses are every value voted, ``None`` (the rule can always adopt it) and one
value nobody voted, under a flat prior:

    P(t | votes) = prod_w P(v_w | t) / sum_h prod_w P(v_w | h),
    P(v | t) = s if v == t else (1 - s) / ERROR_VALUES.

One vote of a 0.9 worker gives its value 0.96; two agreeing 0.9 workers 0.997, two agreeing
0.8 workers 0.986 (a third is asked at 0.99). Subsumption does not enter the posterior: a vote
for a span containing the adopted one counts as a vote for another value, so the posterior
of a label adopted through subsumption is low and the stage is asked further (the rule stays
conservative where §3.5 and the model disagree). ``ERROR_VALUES`` = 3 was chosen on simulated
campaigns of seed 1 (``benchmarks/bench_annotation_rounds.py``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

ERROR_VALUES = 3
SKILL_FLOOR, SKILL_CEILING = 0.51, 0.99
_UNSEEN = object()


def _skill(skill: float | None) -> float:
    return min(SKILL_CEILING, max(SKILL_FLOOR, 0.5 if skill is None else skill))


def span_posterior(values: Sequence[Hashable], workers: Sequence[str],
                   skills: Mapping[str, float], label: Any,
                   error_values: int = ERROR_VALUES) -> float:
    """The posterior of ``label`` (a span or ``None``) given one value per worker and the
    workers' skills (module doc); 0.0 without values."""
    if not values:
        return 0.0
    hypotheses: list[Any] = list(dict.fromkeys([*values, None, _UNSEEN]))
    if label not in hypotheses:
        return 0.0
    logs = []
    for hypothesis in hypotheses:
        total = 0.0
        for value, worker in zip(values, workers, strict=True):
            s = _skill(skills.get(worker))
            total += math.log(s if value == hypothesis else (1.0 - s) / error_values)
        logs.append(total)
    top = max(logs)
    weights = [math.exp(v - top) for v in logs]
    return weights[hypotheses.index(label)] / sum(weights)
