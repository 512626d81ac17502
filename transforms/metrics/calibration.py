"""Expected calibration error of label confidences against a known truth. No Beam.

A confidence ``c`` of a decision says "this decision is right with probability c". Over many
decisions, those with confidence near 0.8 should be right about 80% of the time. The expected
calibration error (Naeini et al. 2015; Guo et al. 2017) measures the gap:

* the decisions are put into ``bins`` equal-width bins of confidence over [0, 1]:
  bin ``k`` (0-based) holds ``k/bins < c <= (k+1)/bins``, and bin 0 also holds ``c == 0``;
* in each bin, ``acc_k`` is the share of its decisions that are correct and ``conf_k`` the mean
  confidence;
* ``ECE = sum_k (n_k / n) * |acc_k - conf_k|`` (empty bins add nothing).

0 is perfectly calibrated; it is at most 1. The simulated campaigns (``annotate simulate
--truth``) compare each aggregated decision's confidence with whether it equals the hidden
truth.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

DEFAULT_BINS = 10


def bin_index(confidence: float, bins: int = DEFAULT_BINS) -> int:
    """The 0-based equal-width bin of ``confidence`` (right-closed; 0 goes to bin 0)."""
    if confidence <= 0:
        return 0
    return min(bins - 1, math.ceil(confidence * bins) - 1)


def calibration_bins(pairs: Iterable[tuple[float, bool]], bins: int = DEFAULT_BINS
                     ) -> list[dict[str, float | int]]:
    """Per bin: ``count``, mean ``confidence`` and ``accuracy`` (0.0 for an empty bin) of the
    ``(confidence, correct)`` pairs. ``ValueError`` for a confidence outside [0, 1] or NaN."""
    if bins < 1:
        raise ValueError("bins must be at least 1")
    counts = [0] * bins
    confidence_sums = [0.0] * bins
    correct_sums = [0] * bins
    for confidence, correct in pairs:
        if not 0.0 <= confidence <= 1.0:  # NaN fails too
            raise ValueError(f"a confidence must be in [0, 1], not {confidence!r}")
        k = bin_index(confidence, bins)
        counts[k] += 1
        confidence_sums[k] += confidence
        correct_sums[k] += bool(correct)
    return [{"count": n, "confidence": s / n if n else 0.0, "accuracy": c / n if n else 0.0}
            for n, s, c in zip(counts, confidence_sums, correct_sums, strict=True)]


def expected_calibration_error(confidences: Iterable[float], correct: Iterable[bool],
                               bins: int = DEFAULT_BINS) -> float | None:
    """ECE of the decisions' ``confidences`` given whether each was ``correct`` (module doc);
    ``None`` without decisions. The two sequences must have the same length."""
    pairs = list(zip(confidences, correct, strict=True))
    if not pairs:
        return None
    total = len(pairs)
    return sum(b["count"] / total * abs(b["accuracy"] - b["confidence"])
               for b in calibration_bins(pairs, bins) if b["count"])
