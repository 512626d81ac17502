"""NQ's decisions and their confidences, for ``decisions/`` and ``workers/`` (``--aggregate``).

NQ publishes every annotation as given (its evaluation decides from all of them, NQ §5.1), so
an aggregate changes no annotation: it adds two decisions per annotated example, formulated as
``filters.annotation.worker_models.nq_items`` fits them:

* ``has_answer``: under ``paper`` NQ §5.1's rule, a long answer exists when at least 2
  annotators (1 for a 1-way example) gave one; confidence the vote share of the decided side.
  Under a model, true when P(has answer) >= 0.5; confidence the posterior of the decided side.
* ``long_answer``: only when ``has_answer`` is true, the candidate index: under ``paper`` the
  most chosen candidate (ties to the lowest index), confidence the share of the annotators who
  gave a long answer that chose it; under a model the chosen candidate with the largest
  P(candidate is the answer), confidence that posterior.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from filters.annotation.worker_models import PAPER, TRUE, item_key

MODEL_HAS_ANSWER = 0.5


def _paper(candidates: Sequence[int]) -> list[tuple[str, int | None, str, float]]:
    chosen = [c for c in candidates if c >= 0]
    n = len(candidates)
    has = len(chosen) >= min(2, n)
    share = (len(chosen) if has else n - len(chosen)) / n
    decided = [("has_answer", None, "true" if has else "false", share)]
    if has:
        counts = Counter(chosen)
        best = min(counts, key=lambda c: (-counts[c], c))
        decided.append(("long_answer", best, str(best), counts[best] / len(chosen)))
    return decided


def _model(example_id: str, candidates: Sequence[int],
           posteriors: Mapping[str, Mapping[str, float]]
           ) -> list[tuple[str, int | None, str, float]] | None:
    posterior = posteriors.get(item_key(example_id, "has_answer"))
    if posterior is None:
        return None
    p = float(posterior.get(TRUE, 0.0))
    has = p >= MODEL_HAS_ANSWER
    decided = [("has_answer", None, "true" if has else "false", p if has else 1.0 - p)]
    chosen = sorted({c for c in candidates if c >= 0})
    scored = [(float(posteriors.get(item_key(example_id, "candidate", c), {}).get(TRUE, 0.0)),
               c) for c in chosen]
    if has and scored:
        score, best = max(scored, key=lambda sc: (sc[0], -sc[1]))
        decided.append(("long_answer", best, str(best), score))
    return decided


def nq_decisions(example_id: str, candidates: Sequence[int], aggregate: str = PAPER,
                 posteriors: Mapping[str, Mapping[str, float]] | None = None
                 ) -> list[dict[str, Any]]:
    """The decisions of one annotated example from its annotators' long-answer candidates
    (-1 for none): ``decision``, ``candidate``, ``label``, ``confidence`` (module doc). A
    model that did not see the example falls back to the paper's rule."""
    if not candidates:
        return []
    decided = None
    if aggregate != PAPER and posteriors is not None:
        decided = _model(example_id, candidates, posteriors)
    if decided is None:
        decided = _paper(candidates)
    return [{"decision": d, "candidate": c, "label": label, "confidence": round(conf, 6)}
            for d, c, label, conf in decided]


def compare(decisions: Sequence[Mapping[str, Any]], candidate: int) -> tuple[int, int]:
    """``(compared, agreed)`` of one annotator's long-answer ``candidate`` against an
    example's decisions: has-answer always, the candidate when both found an answer."""
    by_kind = {d["decision"]: d for d in decisions}
    has = by_kind.get("has_answer")
    if has is None:
        return 0, 0
    compared, agreed = 1, int((candidate >= 0) == (has["label"] == "true"))
    chosen = by_kind.get("long_answer")
    if chosen is not None and candidate >= 0:
        compared += 1
        agreed += int(candidate == chosen["candidate"])
    return compared, agreed
