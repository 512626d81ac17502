"""JNQ §3.5's short-answer span majority over the workers' spans in one EXIST paragraph.

Each worker marks one character span in the paragraph, or none (``None``). The paper first
adds a vote for a span that contains a shorter voted span to that shorter span, then adopts the
span with the most votes, a tie going to the shorter span, and never adopts a span that only
one worker chose. Our reading of the points the paper leaves open:

* **Subsumption**: span A contains span B when ``A.start <= B.start``, ``B.end <= A.end`` and
  ``A != B``. Every vote for A is added to *every* distinct voted span A contains, at any depth
  (a vote for (0, 10) counts for (2, 8) and for (3, 5) alike), and a span's own votes are
  counted once. Only voted spans receive votes: no new span is made up.
* **Winner**: the span with the highest support (own votes plus the votes of the spans
  containing it); a tie goes to the shortest span, then to the earliest start.
* **Adoption**: the winner is adopted when its support is at least ``min_votes`` (2: "a single
  vote is never adopted"), so a span chosen by one worker can still win through the votes of
  the longer spans containing it. "Majority" is over the spans: the ``None`` ("no span") votes
  count toward the number of workers but never win, and the winner need not outnumber them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

Span = tuple[int, int]


def contains(outer: Span, inner: Span) -> bool:
    """Whether ``outer`` strictly contains ``inner`` (JNQ §3.5 subsumption)."""
    return outer != inner and outer[0] <= inner[0] and inner[1] <= outer[1]


def span_support(spans: Sequence[Span | None]) -> dict[Span, int]:
    """Each voted span's votes after subsumption (JNQ §3.5): its own plus its containers'."""
    own = Counter(tuple(span) for span in spans if span is not None)
    return {span: count + sum(other_count for other, other_count in own.items()
                              if contains(other, span))
            for span, count in own.items()}


def majority_span(spans: Sequence[Span | None], min_votes: int = 2) -> Span | None:
    """The adopted short-answer span of one paragraph, or ``None`` (JNQ §3.5).

    ``spans`` holds one vote per worker, ``None`` for "no span". The winner is the span with
    the highest support after subsumption (ties: shortest, then earliest); it is adopted only
    if its support is at least ``min_votes``, otherwise the paragraph has no short answer."""
    support = span_support(spans)
    if not support:
        return None
    best = min(support, key=lambda span: (-support[span], span[1] - span[0], span[0]))
    return best if support[best] >= min_votes else None
