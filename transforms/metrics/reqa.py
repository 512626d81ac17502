"""ReQA retrieval metrics (Ahmad, Constant, Yang, Cer: "ReQA: An Evaluation for End-to-End
Answer Retrieval Models", MRQA 2019, §3): mean reciprocal rank and recall at N.

For each question with at least one correct candidate:

* reciprocal rank = 1 / rank of the first correct candidate in the question's ranking (ranks
  start at 1), 0 when no correct candidate was retrieved; MRR is its mean over questions;
* R@N = the share of the question's correct candidates found in its top N, averaged over
  questions (N = 1, 5, 10).

At the **sentence** level the items are the candidate sentences. At the **paragraph** level a
ranking of sentences becomes a ranking of their paragraphs, each kept at its first (best) rank
(later duplicates removed, so the list is shorter); a paragraph is correct when it contains a
correct sentence. Repeated ids in a sentence ranking are removed the same way. A ranked id that
is not a known candidate keeps its rank as a wrong item at both levels (it is counted).
Questions without correct candidates are skipped (counted); a question without a ranking
scores 0 (counted).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass

DEFAULT_KS: tuple[int, ...] = (1, 5, 10)


def dedupe(ranking: Sequence[Hashable]) -> list[Hashable]:
    """The ranking with repeated items removed, each kept at its first rank."""
    seen: set[Hashable] = set()
    result = []
    for item in ranking:
        if item not in seen:
            seen.add(item)
            result.append(item)
    return result


def reciprocal_rank(correct: Collection[Hashable], ranking: Sequence[Hashable]) -> float:
    """1 / rank of the first correct item (ranks from 1), 0.0 if none is ranked."""
    for rank, item in enumerate(ranking, 1):
        if item in correct:
            return 1.0 / rank
    return 0.0


def recall_at(correct: Collection[Hashable], ranking: Sequence[Hashable], n: int) -> float:
    """Share of the correct items among the first ``n`` of a deduplicated ranking."""
    if not correct:
        raise ValueError("recall needs at least one correct item")
    return len(set(ranking[:n]) & set(correct)) / len(set(correct))


@dataclass(frozen=True)
class _Unknown:
    """A ranked id that is no known candidate: a wrong paragraph of its own."""

    candidate_id: Hashable


def paragraph_ranking(ranking: Sequence[Hashable], paragraph_of: Mapping[Hashable, Hashable]
                      ) -> list[Hashable]:
    """Paragraphs of a sentence ranking, each at its first rank."""
    return dedupe([paragraph_of[c] if c in paragraph_of else _Unknown(c) for c in ranking])


def _level_metrics(pairs: list[tuple[set, list]], ks: Sequence[int]) -> dict[str, float]:
    n = len(pairs)
    metrics = {"mrr": sum(reciprocal_rank(c, r) for c, r in pairs) / n if n else 0.0}
    for k in ks:
        metrics[f"r@{k}"] = sum(recall_at(c, r, k) for c, r in pairs) / n if n else 0.0
    return metrics


def reqa_metrics(questions: Mapping[Hashable, Collection[Hashable]],
                 rankings: Mapping[Hashable, Sequence[Hashable]],
                 paragraph_of: Mapping[Hashable, Hashable] | None = None,
                 ks: Sequence[int] = DEFAULT_KS) -> dict[str, float | int]:
    """ReQA MRR and R@N at the sentence level and, given ``paragraph_of`` (candidate id ->
    paragraph key), at the paragraph level.

    ``questions``: ``{qid: correct candidate ids}``; ``rankings``: ``{qid: candidate ids, best
    first}``. Keys: ``sentence_mrr``, ``sentence_r@N``, ``paragraph_mrr``, ``paragraph_r@N``,
    ``n_questions`` (scored), ``n_questions_without_correct`` (skipped),
    ``n_missing_rankings``, ``n_unknown_prediction_ids`` (ranked questions not in
    ``questions``) and ``n_unknown_candidate_ids`` (ranked ids not in ``paragraph_of``).
    """
    sentence_pairs: list[tuple[set, list]] = []
    paragraph_pairs: list[tuple[set, list]] = []
    skipped = missing = unknown_candidates = 0
    for qid, correct in questions.items():
        correct = set(correct)
        if not correct:
            skipped += 1
            continue
        ranking = rankings.get(qid)
        if ranking is None:
            missing += 1
            ranking = []
        ranking = dedupe(ranking)
        sentence_pairs.append((correct, ranking))
        if paragraph_of is not None:
            unknown_candidates += sum(c not in paragraph_of for c in ranking)
            gold_paragraphs = {paragraph_of[c] if c in paragraph_of else _Unknown(c)
                               for c in correct}
            paragraph_pairs.append((gold_paragraphs, paragraph_ranking(ranking, paragraph_of)))
    result: dict[str, float | int] = {
        f"sentence_{k}": v for k, v in _level_metrics(sentence_pairs, ks).items()}
    if paragraph_of is not None:
        result.update({f"paragraph_{k}": v
                       for k, v in _level_metrics(paragraph_pairs, ks).items()})
        result["n_unknown_candidate_ids"] = unknown_candidates
    result.update(n_questions=len(sentence_pairs), n_questions_without_correct=skipped,
                  n_missing_rankings=missing,
                  n_unknown_prediction_ids=len(set(rankings) - set(questions)))
    return result
