"""NQ's short answer as a decision, and the skill-weighted vote NQ's model decisions use.

A short answer (NQ §3.2) is one or more token spans inside the long answer, or YES/NO. It is
compared as a whole (``nq_short``: the sorted spans and the yes/no answer, None for no short
answer), as NQ §5.1's evaluation and the benchmark compare it. ``short_label`` is its label
in ``decisions/``: ``null``, ``[[start, end], ...]`` (token offsets) or ``YES``/``NO``.

A model's candidate and short-answer values are chosen by a vote weighted by each worker's
estimated skill (``vote_weight``): the log-odds of the skill, clipped to [0.51, 0.99], so a
worker at chance (a spammer, skill 0.5) weighs almost nothing and a 0.99 worker as much as
about 7 workers at 0.6. Candidates are mutually exclusive (one long answer per page), which
independent per-candidate posteriors do not know: two candidates can both be near 1.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

NqShort = tuple[tuple[tuple[int, int], ...], str] | None
NO_SHORT = "null"
SKILL_FLOOR, SKILL_CEILING = 0.51, 0.99

Value = TypeVar("Value", bound=Hashable)


def nq_short(short_answers: Iterable[Sequence[int] | Mapping[str, int]],
             yes_no_answer: str) -> NqShort:
    """One annotation's short answer as compared: ``(sorted spans, yes/no)``, or None when it
    gives none (no span and NONE). Spans are ``(start, end)`` pairs or NQ's
    ``{"start_token", "end_token"}`` records."""
    spans = tuple(sorted((s["start_token"], s["end_token"]) if isinstance(s, Mapping)
                         else (int(s[0]), int(s[1])) for s in short_answers))
    return (spans, yes_no_answer) if spans or yes_no_answer != "NONE" else None


def short_label(short: NqShort) -> str:
    """The ``decisions/`` label of a short answer (module doc)."""
    if short is None:
        return NO_SHORT
    spans, yes_no = short
    return json.dumps([list(span) for span in spans]) if spans else yes_no


def vote_weight(skill: float | None) -> float:
    """A worker's vote weight from their estimated skill (module doc); an unknown skill
    counts as chance."""
    p = min(SKILL_CEILING, max(SKILL_FLOOR, 0.5 if skill is None else skill))
    return math.log(p / (1.0 - p))


def weighted_choice(values: Sequence[Value], weights: Sequence[float]) -> Value:
    """The value with the largest total weight; ties go to the one given more often, then to
    the first in sorted order (the paper's tie rule). ``values`` must not be empty."""
    total: dict[Value, float] = defaultdict(float)
    count: dict[Value, int] = defaultdict(int)
    for value, weight in zip(values, weights, strict=True):
        total[value] += weight
        count[value] += 1
    return min(sorted(total), key=lambda v: (-round(total[v], 9), -count[v]))


def weighted_share(values: Sequence[Value], weights: Sequence[float], chosen: Value) -> float:
    """How sure a weighted vote is of ``chosen``: ``exp(W_chosen) / sum_v exp(W_v)`` over the
    values given, ``W_v`` the total weight of ``v``. With log-odds weights this is the
    posterior of a one-coin model (each worker right with their skill, wrong alike) under a
    flat prior on the values given."""
    total: dict[Value, float] = defaultdict(float)
    for value, weight in zip(values, weights, strict=True):
        total[value] += weight
    top = max(total.values())
    return math.exp(total[chosen] - top) / sum(math.exp(w - top) for w in total.values())


def paper_short(shorts: Sequence[NqShort]) -> tuple[NqShort, float]:
    """NQ §5.1's short answer of an example's annotations: one when at least 2 of them (1 of
    a 1-way example) gave one, the one most gave (ties to the first in sorted order), with
    its share of the given ones; else None with the share of annotations without one."""
    given = [s for s in shorts if s is not None]
    if not shorts:
        return None, 0.0
    if len(given) < min(2, len(shorts)):
        return None, (len(shorts) - len(given)) / len(shorts)
    best = min(sorted(set(given)), key=lambda s: -given.count(s))
    return best, given.count(best) / len(given)
