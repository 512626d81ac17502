"""Inter-annotator agreement for the annotated release cards: Fleiss' kappa and each worker's
agreement with the aggregate (so spammers stand out). No Beam.

Fleiss (1971), "Measuring nominal scale agreement among many raters", generalised to items
with different numbers of raters: with ``n_i`` ratings of item i, ``n_ij`` of them in category
j,

* ``P_i = sum_j n_ij (n_ij - 1) / (n_i (n_i - 1))``, the agreeing rater pairs of item i;
* ``P_bar``, the mean of ``P_i`` over the items with ``n_i >= 2``;
* ``p_j``, the share of category j among all ratings of those items, and
  ``P_e = sum_j p_j ** 2``;
* ``kappa = (P_bar - P_e) / (1 - P_e)``.

With the same number of raters on every item this is Fleiss' original kappa. Items with one
rating carry no agreement and are left out entirely (of ``P_bar`` and of ``p_j``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence


def fleiss_kappa(items: Sequence[Sequence[Hashable]]) -> float | None:
    """Fleiss' kappa of ``items``, each the list of labels its raters gave.

    ``None`` when undefined: no item with two or more ratings, or every rating in one
    category (``P_e == 1``)."""
    rated = [Counter(labels) for labels in items if len(labels) >= 2]
    if not rated:
        return None
    totals: Counter[Hashable] = Counter()
    agreement = 0.0
    for counts in rated:
        n = sum(counts.values())
        agreement += sum(c * (c - 1) for c in counts.values()) / (n * (n - 1))
        totals.update(counts)
    if len(totals) == 1:
        return None
    ratings = sum(totals.values())
    p_e = sum((count / ratings) ** 2 for count in totals.values())
    return (agreement / len(rated) - p_e) / (1 - p_e)


def worker_agreement(judgments: Iterable[tuple[str, Hashable, Hashable]],
                     aggregate: Mapping[Hashable, Hashable]) -> dict[str, dict]:
    """Per worker: ``judgments`` (all of them), ``compared`` (those on items that have an
    aggregate) and ``agreement``, the share of the compared ones equal to the aggregate
    (``None`` when nothing was compared). ``judgments`` are ``(worker, item, label)``;
    workers come out sorted."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for worker, item, label in judgments:
        total = counts[worker]
        total[0] += 1
        if item in aggregate:
            total[1] += 1
            total[2] += label == aggregate[item]
    return {worker: {"judgments": n, "compared": compared,
                     "agreement": agreed / compared if compared else None}
            for worker, (n, compared, agreed) in sorted(counts.items())}
