"""How the simulated NQ worker's parameters give its precision and recall, and the fit to NQ §4.

Per item, with ``L`` the share of examples with a true long answer (good x long:
``NQ_P_GOOD * NQ_P_LONG``), ``S`` those with a true short answer (``S_yn`` YES/NO,
``S_span`` a span), ``D = L - S`` and ``N = 1 - L``; an honest worker's mean error ``ē``
(``1 - accuracy``), spammer share ``s`` (``q = 1 - s``); spammers give no answer with
probability ``z = SPAM_BAD + SPAM_NO_ANSWER`` and hit the true candidate by ``chance``
(1 / candidates). With the rates ``m`` miss, ``o`` other, ``d`` drop short, ``w`` wrong short,
``a`` add short, ``f`` false long and ``φ = FALSE_LONG_SHORT``:

    long right      = q L (1 - (m + o) ē)                     + s (1 - z) L chance
    long given      = q (L (1 - m ē) + N f ē)                 + s (1 - z)
    short right     = q S (1 - (m + o + d + w) ē)             + s (1 - z) S_yn SPAM_YES_NO / 2
    short given     = q (S_span (1 - (m + d) ē) + S_yn (1 - (m + o + d) ē) + D a ē + N f φ ē)
                                                              + s (1 - z) (SPAM_SPAN + SPAM_YES_NO)

precision = right / given, recall = right / L (long) or right / S (short). Every term is
linear in the error, so only the pool's mean accuracy matters. Fixing the shape of the
mistakes (``OTHER_SHARE`` of the long-answer mistakes name another candidate, ``WRONG_SHARE``
of the short-answer ones are wrong rather than missing), the four figures of NQ §4 give the
four remaining rates in turn: long recall -> ``m + o``, long precision -> ``f``, short recall
-> ``d + w``, short precision -> ``a`` (``fit_nq_error_rates``).

Assumed: every page has long-answer candidates with text (so a chosen candidate can take a
span), and the spammers' chance hits are ``chance`` (0 for NQ's pages of hundreds of
candidates).
"""

from __future__ import annotations

from dataclasses import dataclass

from transforms.annotation.simulate import (
    NQ_P_GOOD,
    NQ_P_LONG,
    NQ_P_SHORT,
    NQ_P_YES_NO,
    WorkerPool,
)
from transforms.annotation.simulate_nq_errors import (
    FALSE_LONG_SHORT,
    SPAM_BAD,
    SPAM_NO_ANSWER,
    SPAM_SPAN,
    SPAM_YES_NO,
    NqErrorRates,
)
from transforms.annotation.simulate_scores import NQ_SINGLE_ANNOTATOR

OTHER_SHARE = 0.3  # of the long-answer mistakes on a true long answer, another candidate
WRONG_SHARE = 0.75  # of the short-answer mistakes under the right long answer, a wrong one
DEFAULT_POOL = WorkerPool()


@dataclass(frozen=True)
class Expected:
    """Expected single-annotator precision and recall of a pool (fractions)."""

    long_precision: float
    long_recall: float
    short_precision: float
    short_recall: float


def _truth_shares() -> tuple[float, float, float, float]:
    """(L, S_yn, S_span, N) of the truth model."""
    long = NQ_P_GOOD * NQ_P_LONG
    yes_no = long * NQ_P_YES_NO
    span = long * (1 - NQ_P_YES_NO) * NQ_P_SHORT
    return long, yes_no, span, 1 - long


def pool_error(pool: WorkerPool) -> tuple[float, float]:
    """(mean error of the honest workers, share of spammers) of a pool as drawn."""
    workers = pool.workers()
    honest = [w for w in workers if not w.spammer]
    error = sum(1 - w.accuracy for w in honest) / len(honest) if honest else 0.0
    return error, 1 - len(honest) / len(workers)


def nominal_error(pool: WorkerPool) -> float:
    """The mean error the pool's accuracy range promises (its middle)."""
    low, high = pool.accuracy
    return 1 - (low + high) / 2


def expected_scores(rates: NqErrorRates, error: float, spammers: float,
                    chance: float = 0.0) -> Expected:
    """The module docstring's formulas."""
    long, yes_no, span, none = _truth_shares()
    short = yes_no + span
    q, spam_answers = 1 - spammers, spammers * (1 - SPAM_BAD - SPAM_NO_ANSWER)
    m, o, d, w = rates.miss, rates.other, rates.drop_short, rates.wrong_short
    long_right = q * long * (1 - (m + o) * error) + spam_answers * long * chance
    long_given = q * (long * (1 - m * error) + none * rates.false_long * error) + spam_answers
    short_right = (q * short * (1 - (m + o + d + w) * error)
                   + spam_answers * yes_no * SPAM_YES_NO / 2)
    short_given = (q * (span * (1 - (m + d) * error) + yes_no * (1 - (m + o + d) * error)
                        + (long - short) * rates.add_short * error
                        + none * rates.false_long * FALSE_LONG_SHORT * error)
                   + spam_answers * (SPAM_SPAN + SPAM_YES_NO))
    return Expected(long_right / long_given, long_right / long, short_right / short_given,
                    short_right / short)


def fit_nq_error_rates(error: float | None = None, spammers: float | None = None,
                       chance: float = 0.0,
                       targets: dict[str, tuple[float, float]] = NQ_SINGLE_ANNOTATOR,
                       flip_good: float = NqErrorRates().flip_good) -> NqErrorRates:
    """The rates whose expected scores are ``targets`` (NQ §4's by default) for a pool of
    mean ``error`` and ``spammers`` share (the default pool's nominal ones by default).

    ``ValueError`` when no non-negative rates reach them with ``OTHER_SHARE`` and
    ``WRONG_SHARE``."""
    error = nominal_error(DEFAULT_POOL) if error is None else error
    spammers = DEFAULT_POOL.spammer_share if spammers is None else spammers
    if not 0 < error <= 1 or not 0 <= spammers < 1:
        raise ValueError("the fit needs 0 < error <= 1 and 0 <= spammers < 1")
    (long_p, long_r), (short_p, short_r) = targets["long"], targets["short"]
    long, yes_no, span, none = _truth_shares()
    short = yes_no + span
    q, spam_answers = 1 - spammers, spammers * (1 - SPAM_BAD - SPAM_NO_ANSWER)
    long_errors = (1 - (long_r - spam_answers * chance) / q) / error
    miss, other = (1 - OTHER_SHARE) * long_errors, OTHER_SHARE * long_errors
    false_long = (((long_r * long / long_p - spam_answers) / q - long * (1 - miss * error))
                  / (none * error))
    spam_short = spam_answers * yes_no * SPAM_YES_NO / 2
    short_errors = (1 - (short_r * short - spam_short) / (q * short)) / error - long_errors
    drop, wrong = (1 - WRONG_SHARE) * short_errors, WRONG_SHARE * short_errors
    given = (short_r * short / short_p - spam_answers * (SPAM_SPAN + SPAM_YES_NO)) / q
    add = ((given - span * (1 - (miss + drop) * error)
            - yes_no * (1 - (long_errors + drop) * error)
            - none * false_long * FALSE_LONG_SHORT * error) / ((long - short) * error))
    values = {"miss": miss, "other": other, "drop_short": drop, "wrong_short": wrong,
              "add_short": add, "false_long": false_long}
    negative = [name for name, value in values.items() if value < 0]
    if negative:
        raise ValueError(f"NQ §4's figures are out of reach of this pool: {negative} < 0")
    return NqErrorRates(**values, flip_good=flip_good)
