"""How a simulated NQ worker errs: one rate per kind of mistake, scaled by the worker's error.

A worker's ``accuracy`` is the chance of a right *binary* judgment (a JNQ stage). An NQ
judgment is several decisions at once (is there a long answer, which candidate, is there a
short answer, which span), so an honest worker with error ``e = 1 - accuracy`` makes each kind
of mistake with probability ``rate * e`` (the rates below), and reports the truth otherwise.
Should a worker's rates add up to more than 1 (a very poor worker), they are scaled to 1: the
worker then never reports the truth. Because every probability is linear in ``e``, a pool's
single-annotator precision and recall depend on its workers' *mean* accuracy only, not on
the spread (``transforms.annotation.simulate_calibration`` works them out and fits the
defaults to NQ §4).

Mistakes, by the kind of truth (``TRUTH_KINDS``):

* ``bad`` question / ``no_long`` answer: ``false_long`` (a plausible candidate, with a short
  span ``FALSE_LONG_SHORT`` of the time), ``flip_good`` (the question judged the other way:
  still no answer);
* ``long_short`` (a long answer with a span or YES/NO): ``miss`` (no answer), ``other`` (a
  nested or neighbouring candidate, a span of it when the truth has a span), ``drop_short``
  (the right long answer without a short one), ``wrong_short`` (a shifted or longer span,
  the other YES/NO);
* ``long_only`` (a long answer without a short one): ``miss``, ``other``, ``add_short``
  (the right long answer with a spurious span).

Spammers answer without reading: ``SPAM_BAD`` of the time "bad question", ``SPAM_NO_ANSWER``
"no answer" (the quickest click), else a candidate at random with a random span
(``SPAM_SPAN``) or YES/NO (``SPAM_YES_NO``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields

TRUTH_KINDS = ("bad", "no_long", "long_short", "long_only")
MISTAKES = {
    "bad": ("false_long", "flip_good"),
    "no_long": ("false_long", "flip_good"),
    "long_short": ("miss", "other", "drop_short", "wrong_short"),
    "long_only": ("miss", "other", "add_short"),
}

FALSE_LONG_SHORT = 0.7  # a false long answer comes with a span as often as a true one does
SPAM_BAD = 0.15
SPAM_NO_ANSWER = 0.55
SPAM_SPAN = 0.4
SPAM_YES_NO = 0.1


@dataclass(frozen=True)
class NqErrorRates:
    """Mistake rates per unit of error (``1 - accuracy``) of an honest NQ worker.

    The defaults are fitted to NQ §4's single-annotator precision and recall (long answer
    80.4/67.6, short answer 63.4/52.6) for the default pool (accuracy 0.75-0.95, 10%
    spammers): ``simulate_calibration.fit_nq_error_rates`` gives them back, rounded."""

    miss: float = 1.161
    other: float = 0.498
    drop_short: float = 0.278
    wrong_short: float = 0.834
    add_short: float = 0.889
    false_long: float = 0.187
    flip_good: float = 0.5

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if not value >= 0:
                raise ValueError(f"NQ error rate {item.name} must be >= 0, not {value}")

    def rounded(self, digits: int = 3) -> NqErrorRates:
        """The same rates rounded to ``digits`` decimals."""
        return NqErrorRates(**{item.name: round(getattr(self, item.name), digits)
                               for item in fields(self)})


NQ_ERRORS = NqErrorRates()


def draw_mistake(rates: NqErrorRates, kind: str, error: float,
                 rng: random.Random) -> str | None:
    """The mistake an honest worker with ``error`` makes on a truth of ``kind``, or None for
    the truth (one draw of ``rng``)."""
    names = MISTAKES[kind]
    weights = [getattr(rates, name) * error for name in names]
    draw = rng.random() * max(1.0, sum(weights))
    for name, weight in zip(names, weights, strict=True):
        if draw < weight:
            return name
        draw -= weight
    return None
