"""NQ's decisions and their confidences, for ``decisions/`` and ``workers/`` (``--aggregate``).

NQ publishes every annotation as given (its evaluation decides from all of them, NQ §5.1), so
an aggregate changes no annotation: it adds up to three decisions per annotated example,
formulated as ``filters.annotation.worker_models.nq_items`` fits them:

* ``has_answer``: under ``paper`` NQ §5.1's rule, a long answer exists when at least 2
  annotators (1 for a 1-way example) gave one; confidence the vote share of the decided side.
  Under a model, true when P(has answer) >= 0.5; confidence the posterior of the decided side.
* ``long_answer``: only when ``has_answer`` is true, the candidate index: under ``paper`` the
  most chosen candidate (ties to the lowest index), confidence the share of the annotators who
  gave a long answer that chose it; under a model the chosen candidate with the largest
  skill-weighted vote (``filters.annotation.nq_short.vote_weight``: candidates exclude each
  other, which per-candidate posteriors do not know), confidence P(has answer) times the
  vote's ``weighted_share`` of it. Without skills, the chosen candidate with the largest
  P(candidate is the answer), confidence that posterior.
* ``short_answer`` (when the annotations' short answers are given): only when
  ``has_answer`` is true, ``null`` or the short answer (``nq_short.short_label``). Under
  ``paper`` NQ §5.1's rule on every annotation (at least 2 gave one, the one most gave);
  confidence its share of the short answers given (for ``null`` the share of annotations
  without one). Under a model the short answer is read from the annotators who chose the
  decided candidate only (one who missed the long answer says nothing about its short
  answer): one exists when P(short given | candidate) >= 0.5, and it is their skill-weighted
  choice; confidence that posterior times the vote's ``weighted_share`` of the choice (for
  ``null``, 1 - the posterior).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from filters.annotation.nq_short import (
    NqShort,
    nq_short,
    paper_short,
    short_label,
    vote_weight,
    weighted_choice,
    weighted_share,
)
from filters.annotation.votes import NqVote
from filters.annotation.worker_models import PAPER, TRUE, item_key

MODEL_HAS_ANSWER = 0.5
MODEL_SHORT_GIVEN = 0.5
Decided = list[tuple[str, int | None, str, float]]


def _paper(candidates: Sequence[int], shorts: Sequence[NqShort] | None) -> Decided:
    chosen = [c for c in candidates if c >= 0]
    n = len(candidates)
    has = len(chosen) >= min(2, n)
    share = (len(chosen) if has else n - len(chosen)) / n
    decided: Decided = [("has_answer", None, "true" if has else "false", share)]
    if has:
        counts = Counter(chosen)
        best = min(counts, key=lambda c: (-counts[c], c))
        decided.append(("long_answer", best, str(best), counts[best] / len(chosen)))
        if shorts is not None:
            short, confidence = paper_short(shorts)
            where = best if short is None else min(
                c for c, s in zip(candidates, shorts, strict=True) if s == short)
            decided.append(("short_answer", where, short_label(short), confidence))
    return decided


def _p_true(posteriors: Mapping[str, Mapping[str, float]], key: str) -> float | None:
    posterior = posteriors.get(key)
    return None if posterior is None else float(posterior.get(TRUE, 0.0))


def _model_short(example_id: str, best: int, candidates: Sequence[int],
                 shorts: Sequence[NqShort], weights: Sequence[float],
                 posteriors: Mapping[str, Mapping[str, float]]
                 ) -> tuple[str, int | None, str, float]:
    """The short answer of the annotators who chose ``best`` (module doc)."""
    mine = [(s, w) for c, s, w in zip(candidates, shorts, weights, strict=True) if c == best]
    given = [(s, w) for s, w in mine if s is not None]
    p = _p_true(posteriors, item_key(example_id, "short_given", best))
    if p is None:
        p = len(given) / len(mine)
    if p < MODEL_SHORT_GIVEN or not given:
        return ("short_answer", best, short_label(None), 1.0 - p)
    values, weights_given = [s for s, _ in given], [w for _, w in given]
    short = weighted_choice(values, weights_given)
    return ("short_answer", best, short_label(short),
            p * weighted_share(values, weights_given, short))


def _model(example_id: str, candidates: Sequence[int],
           posteriors: Mapping[str, Mapping[str, float]], shorts: Sequence[NqShort] | None,
           skills: Sequence[float | None] | None) -> Decided | None:
    p = _p_true(posteriors, item_key(example_id, "has_answer"))
    if p is None:
        return None
    has = p >= MODEL_HAS_ANSWER
    decided: Decided = [("has_answer", None, "true" if has else "false", p if has else 1.0 - p)]
    chosen = [i for i, c in enumerate(candidates) if c >= 0]
    if not has or not chosen:
        return decided
    scored = {candidates[i]: _p_true(posteriors, item_key(example_id, "candidate",
                                                          candidates[i])) or 0.0
              for i in chosen}
    weights = [1.0] * len(candidates) if skills is None else [vote_weight(s) for s in skills]
    if skills is None:
        best = max(sorted(scored), key=lambda c: scored[c])
        confidence = scored[best]
    else:
        values, weights_chosen = [candidates[i] for i in chosen], [weights[i] for i in chosen]
        best = weighted_choice(values, weights_chosen)
        confidence = p * weighted_share(values, weights_chosen, best)
    decided.append(("long_answer", best, str(best), confidence))
    if shorts is not None:
        decided.append(_model_short(example_id, best, candidates, shorts, weights, posteriors))
    return decided


def nq_decisions(example_id: str, candidates: Sequence[int], aggregate: str = PAPER,
                 posteriors: Mapping[str, Mapping[str, float]] | None = None,
                 shorts: Sequence[NqShort] | None = None,
                 skills: Sequence[float | None] | None = None) -> list[dict[str, Any]]:
    """The decisions of one annotated example from its annotators' long-answer candidates
    (-1 for none), and optionally their short answers (``nq_short.nq_short``) and estimated
    skills, in the same order: ``decision``, ``candidate``, ``label``, ``confidence``
    (module doc). A model that did not see the example falls back to the paper's rule."""
    if not candidates:
        return []
    for name, given in (("shorts", shorts), ("skills", skills)):
        if given is not None and len(given) != len(candidates):
            raise ValueError(f"{name} must have one entry per annotation")
    decided = None
    if aggregate != PAPER and posteriors is not None:
        decided = _model(example_id, candidates, posteriors, shorts, skills)
    if decided is None:
        decided = _paper(candidates, shorts)
    return [{"decision": d, "candidate": c, "label": label, "confidence": round(conf, 6)}
            for d, c, label, conf in decided]


def nq_vote_decisions(example_id: str, votes: Sequence[NqVote], aggregate: str = PAPER,
                      posteriors: Mapping[str, Mapping[str, float]] | None = None,
                      skills: Mapping[str, float] | None = None) -> list[dict[str, Any]]:
    """``nq_decisions`` of an example's latest ``votes``: their candidates, short answers
    and (with a model's ``skills`` by worker) their workers' skills."""
    return nq_decisions(
        example_id, [v.long_answer_candidate for v in votes], aggregate, posteriors,
        [nq_short(v.short_answers, v.yes_no_answer) for v in votes],
        None if skills is None else [skills.get(v.annotator_id) for v in votes])


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
