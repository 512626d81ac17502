"""The relevance floor of NQ's question-to-page linking (issue 37, docs/design/decisions.md).

NQ §3.1 keeps a question when a Wikipedia page is in the top 5 hits. Over a small or
unrelated index every question has *some* top hit ("when did the first man land on the moon"
-> *Berlin Wall*), so the chosen page must also be relevant enough: its score at least
``min_score`` and, when ``min_margin`` > 0, ahead of the next hit by that share of its score.
A backend that reports no scores (``SearchHit.score is None``) cannot be floored: its hits
pass, and the card says the floor did not apply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from filters.nq.search_hits import SearchHit

DEFAULT_MIN_SCORE = 0.2  # share of the query weight; measured on NQ-open (decision record)
DEFAULT_MIN_MARGIN = 0.0  # off: the measured margin cost recall for little precision


@dataclass(frozen=True)
class FloorCheck:
    """What the floor saw: the chosen hit's score, its margin over the next hit (a share of
    its score; None without a next scored hit), and whether it passed."""

    score: float | None
    margin: float | None
    passed: bool


def margin_over_next(hit: SearchHit, hits: Sequence[SearchHit]) -> float | None:
    """``(score - next score) / score`` of ``hit`` over the hit ranked just after it (1.0
    when none follows); None when ``hit`` has no positive score."""
    if hit.score is None or hit.score <= 0:
        return None
    following = [h for h in hits if h.rank > hit.rank and h.score is not None]
    if not following:
        return 1.0
    following.sort(key=lambda h: h.rank)
    return (hit.score - following[0].score) / hit.score


@dataclass(frozen=True)
class RelevanceFloor:
    """``min_score``: the chosen hit's lowest score (0: off); ``min_margin``: its lowest
    margin over the next hit (0: off)."""

    min_score: float = DEFAULT_MIN_SCORE
    min_margin: float = DEFAULT_MIN_MARGIN

    @property
    def active(self) -> bool:
        """Whether the floor can drop anything."""
        return self.min_score > 0 or self.min_margin > 0

    def check(self, hit: SearchHit, hits: Sequence[SearchHit]) -> FloorCheck:
        """The floor's verdict on the chosen ``hit`` among ``hits``; an unscored hit passes."""
        margin = margin_over_next(hit, hits)
        if hit.score is None:
            return FloorCheck(None, None, True)
        passed = hit.score >= self.min_score and (
            self.min_margin <= 0 or (margin is not None and margin >= self.min_margin))
        return FloorCheck(hit.score, margin, passed)
