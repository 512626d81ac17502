"""ReQA's untrained baselines for the card: BM25 ranking every candidate sentence by its
sentence text and by its paragraph text, scored with MRR and R@N at the sentence level."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BASELINE_QUESTIONS = 1000


def reqa_baselines(staging_dir: str, max_questions: int = BASELINE_QUESTIONS) -> dict[str, Any]:
    """ReQA Table 6-style untrained baselines: BM25 (bm25s) ranking every candidate sentence
    by its sentence text, and by its paragraph text (the context), scored with MRR and R@N at
    the sentence level (``transforms.metrics.reqa``). ReQA sets have no splits; ranking the whole
    index costs O(questions x candidates), so the first ``max_questions`` questions by qid
    (a stable, hash-random sample) are scored."""
    from transforms.clients.local_search import IndexTokenizer
    from transforms.metrics.reqa import reqa_metrics
    from transforms.release import read_group_rows

    questions = read_group_rows(staging_dir, "questions")
    candidates = read_group_rows(staging_dir, "candidates")
    questions = sorted(questions, key=lambda q: q["qid"])[:max_questions]
    metrics = ["sentence_mrr", "sentence_r@1", "sentence_r@5", "sentence_r@10"]
    if not questions or not candidates:
        return {"split": "all", "n": len(questions), "metrics": metrics, "rows": []}
    candidates.sort(key=lambda c: c["candidate_id"])
    ids = [c["candidate_id"] for c in candidates]
    gold = {q["qid"]: set(q["correct_candidate_ids"]) for q in questions}
    tokenize = IndexTokenizer("en")
    table = []
    for name, field in (("BM25 over sentences", "sentence"),
                        ("BM25 over paragraphs (context)", "context")):
        rankings = _bm25_rankings([c[field] for c in candidates], ids, questions, tokenize)
        scores = reqa_metrics(gold, rankings)
        table.append({"name": name, **{m: float(scores[m]) for m in metrics}})
    return {"split": "all", "n": len(questions), "metrics": metrics, "rows": table,
            "note": f"Every candidate ranked for each question (at most {max_questions} "
                    "questions, by qid); ties to the lower candidate id."}


def _bm25_rankings(texts: list[str], ids: list[str], questions: list[dict],
                   tokenize: Callable[[list[str]], list[list[str]]]) -> dict[str, list[str]]:
    from filters.text.bm25 import bm25_retriever

    retriever, vocab = bm25_retriever(tokenize(texts))
    import numpy as np

    rankings = {}
    for question in questions:
        query = [t for t in tokenize([question["question"]])[0] if t in vocab]
        scores = np.asarray(retriever.get_scores(query) if query else np.zeros(len(ids)))
        # ids are sorted, so a stable sort on the score breaks ties by the lower id
        order = np.argsort(-scores, kind="stable")[:10]
        rankings[question["qid"]] = [ids[i] for i in order]
    return rankings
