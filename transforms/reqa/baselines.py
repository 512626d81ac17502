"""ReQA's untrained baselines for the card (ReQA Table 6): BM25 over the candidate sentences
and BM25 over the paragraphs, each scored at the **sentence level** (the rank of the first
correct sentence among all candidate sentences) and at the **paragraph level** (the rank of
the first paragraph holding a correct sentence among all paragraphs), for every question.

ReQA (Ahmad, Constant, Yang, Cer 2019) Table 6 gives BM25 at the paragraph level on ReQA
SQuAD (MRR 0.602, R@1 0.517, R@5 0.702, R@10 0.755) on the first 10,000 questions only,
"due to slow scoring speed". Here every question is scored, with exact (untruncated) ranks:

* the two indexes are bm25s indexes (``filters.text.bm25``, ``IndexTokenizer("en")``): one
  over the sentences (sorted by candidate id), one over the distinct paragraphs (by
  ``paragraph_id``); a question's scores against every indexed text are one row of the
  sparse product of the questions' token counts and bm25s's precomputed token-document score
  matrix (the sum bm25s's ``get_scores`` computes, in batches of ``CHUNK`` questions);
* rank of item ``i`` = 1 + the items scoring higher + the items scoring the same with a lower
  position (ties to the lower candidate id / paragraph id), so a question sharing no word
  with the index ranks its answer by id;
* sentence index at the paragraph level: a paragraph scores its best sentence (as
  ``squad_eval.py``'s document rank); paragraph index at the sentence level: every sentence
  scores its paragraph;
* MRR = mean of 1 / the rank of the first correct item; R@N = the share of a question's
  correct items ranked in the first N, averaged (as ``transforms.metrics.reqa``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from transforms.metrics.baselines.reqa import Bm25Matrix

# Questions per sparse product, made dense: CHUNK x candidates x 4 bytes (92 MB at SQuAD
# train's 91,707 sentences); a question's row has a third of the candidates nonzero there.
CHUNK = 256
KS = (1, 5, 10)
LEVELS = ("sentence", "paragraph")
METRICS = [f"{level}_{m}" for level in LEVELS for m in ("mrr", *(f"r@{k}" for k in KS))]
# Row names (the browser's ``transforms/browse/renderers/reqa.py`` BM25_FIELDS use them).
SENTENCE_ROW = "BM25 over sentences"
PARAGRAPH_ROW = "BM25 over paragraphs (context)"


def reqa_baselines(staging_dir: str, max_questions: int | None = None) -> dict[str, Any]:
    """ReQA Table 6-style untrained baselines of the staged release (module doc): every
    question (or the first ``max_questions`` by qid), two rows, sentence- and paragraph-level
    MRR and R@1/5/10."""
    from transforms.release import read_group_rows

    questions = sorted(read_group_rows(staging_dir, "questions"), key=lambda q: q["qid"])
    if max_questions is not None:
        questions = questions[:max_questions]
    candidates = read_group_rows(staging_dir, "candidates")
    return baseline_table(questions, candidates)


def baseline_table(questions: list[dict], candidates: list[dict],
                   tokenize: Callable[[list[str]], list[list[str]]] | None = None
                   ) -> dict[str, Any]:
    """The baselines table of ``questions`` (``qid``, ``question``,
    ``correct_candidate_ids``) against ``candidates`` (``candidate_id``, ``sentence``,
    ``context``, ``paragraph_id``)."""
    if not questions or not candidates:
        return {"split": "all", "n": len(questions), "metrics": METRICS, "rows": []}
    import numpy as np

    from transforms.clients.local_search import IndexTokenizer

    tokenize = tokenize or IndexTokenizer("en")
    candidates = sorted(candidates, key=lambda c: c["candidate_id"])
    position = {c["candidate_id"]: i for i, c in enumerate(candidates)}
    paragraph_ids = sorted({c["paragraph_id"] for c in candidates})
    paragraph_index = {p: i for i, p in enumerate(paragraph_ids)}
    paragraph_text = {c["paragraph_id"]: c["context"] for c in candidates}
    para_of = np.array([paragraph_index[c["paragraph_id"]] for c in candidates], dtype=np.int64)
    gold = []
    for question in questions:
        correct = sorted({position[c] for c in question["correct_candidate_ids"]
                          if c in position})
        gold.append((np.array(correct, dtype=np.int64),
                     np.unique(para_of[correct]) if correct else np.zeros(0, np.int64)))
    scored = [g for g in gold if len(g[0])]
    texts = [q["question"] for q, g in zip(questions, gold, strict=True) if len(g[0])]
    query_tokens = tokenize(texts)
    # The sentence index's columns are grouped by paragraph (a paragraph's best sentence is
    # a slice of the row); ``order[col]`` is the column's candidate position,
    # ``column[i]`` candidate i's column, so ties still go to the lower candidate id.
    order = np.lexsort((np.arange(len(candidates)), para_of))
    column = np.empty_like(order)
    column[order] = np.arange(len(order))
    col_para = para_of[order]  # nondecreasing
    sentences = Bm25Matrix(tokenize([candidates[i]["sentence"] for i in order]))
    paragraphs = Bm25Matrix(tokenize([paragraph_text[p] for p in paragraph_ids]))
    sizes = np.bincount(para_of, minlength=len(paragraph_ids))
    members = np.split(order, np.cumsum(sizes)[:-1])  # each paragraph's positions, sorted
    starts = np.r_[0, np.cumsum(sizes)[:-1]]  # each paragraph's first sentence column
    identity = np.arange(len(paragraph_ids))
    sentence_rows, paragraph_rows = [], []
    for start in range(0, len(scored), CHUNK):
        batch = scored[start:start + CHUNK]
        dense = sentences.scores(query_tokens[start:start + CHUNK])
        for row, (correct, correct_paragraphs) in zip(dense, batch, strict=True):
            sentence_rows.append((
                _ranks(row, column[correct], order),
                _best_sentence_ranks(row, correct_paragraphs, col_para, starts, sizes)))
        dense = paragraphs.scores(query_tokens[start:start + CHUNK])
        for row, (correct, correct_paragraphs) in zip(dense, batch, strict=False):
            paragraph_rows.append((_spread_ranks(row, correct, para_of, sizes, members),
                                   _ranks(row, correct_paragraphs, identity)))
    table = [{"name": SENTENCE_ROW, **_metrics(sentence_rows)},
             {"name": PARAGRAPH_ROW, **_metrics(paragraph_rows)}]
    skipped = len(questions) - len(scored)
    return {"split": "all", "n": len(scored), "metrics": METRICS, "rows": table,
            "note": "ReQA Table 6: BM25 (bm25s) over the candidate sentences and over the "
                    f"{len(paragraph_ids)} distinct paragraphs; `sentence_*`: rank of the "
                    f"first correct sentence among all {len(candidates)} sentences, "
                    "`paragraph_*`: rank of the first paragraph holding one among all "
                    "paragraphs (the paper's Table 6 measure; a paragraph scores its best "
                    "sentence in the sentence index, a sentence its paragraph in the "
                    "paragraph index). Exact ranks, ties to the lower id, every question"
                    + (f" ({skipped} without a correct candidate skipped)." if skipped
                       else ".")}


def _ranks(scores: Any, columns: Any, position: Any) -> list[int]:
    """1-based ranks of the items in ``columns`` of a dense score row: higher scores first,
    ties to the lower ``position`` (``position[column]``: the item's place in id order)."""
    ranks = []
    for col in columns:
        s = scores[col]
        rank = 1 + int((scores > s).sum())
        equal = scores == s
        if int(equal.sum()) > 1:
            rank += int((position[equal] < position[col]).sum())
        ranks.append(rank)
    return ranks


def _distinct(sorted_values: Any) -> Any:
    import numpy as np

    if not len(sorted_values):
        return sorted_values
    return sorted_values[np.r_[True, sorted_values[1:] != sorted_values[:-1]]]


def _best_sentence_ranks(scores: Any, paragraphs: Any, col_para: Any, starts: Any,
                         sizes: Any) -> list[int]:
    """Ranks of ``paragraphs`` when a paragraph scores its best sentence (``scores``: a dense
    sentence score row whose columns are grouped by paragraph, ``col_para`` nondecreasing);
    ties to the lower paragraph id. Counts paragraphs instead of reducing every one."""
    import numpy as np

    ranks = []
    for p in paragraphs:
        s = scores[starts[p]:starts[p] + sizes[p]].max()
        higher = _distinct(col_para[scores > s])
        equal = _distinct(col_para[scores == s])
        tied = equal[equal < p]
        tied = len(tied) - int(np.isin(tied, higher, assume_unique=True).sum())
        ranks.append(1 + len(higher) + tied)
    return ranks


def _spread_ranks(scores: Any, items: Any, para_of: Any, sizes: Any,
                  members: list[Any]) -> list[int]:
    """Ranks of sentences ``items`` (positions) when every sentence scores its paragraph's
    score (``scores``: a dense paragraph score row; ``members[p]``: paragraph ``p``'s
    sentence positions, sorted); ties to the lower sentence position."""
    import numpy as np

    ranks = []
    for i in items:
        s = scores[para_of[i]]
        higher = int(sizes[scores > s].sum())
        tied_paragraphs = np.flatnonzero(scores == s)
        if len(tied_paragraphs) < 64:
            tied = sum(int(np.searchsorted(members[p], i)) for p in tied_paragraphs)
        else:
            tied = int((scores[para_of[:i]] == s).sum())
        ranks.append(1 + higher + tied)
    return ranks


def _metrics(rows: list[tuple[list[int], list[int]]]) -> dict[str, float]:
    out: dict[str, float] = {}
    n = len(rows)
    for level, column in zip(LEVELS, (0, 1), strict=True):
        ranks = [row[column] for row in rows]
        out[f"{level}_mrr"] = sum(1.0 / min(r) for r in ranks) / n
        for k in KS:
            out[f"{level}_r@{k}"] = sum(sum(x <= k for x in r) / len(r) for r in ranks) / n
    return out


def _bm25_rankings(texts: list[str], ids: list[str], questions: list[dict],
                   tokenize: Callable[[list[str]], list[list[str]]]) -> dict[str, list[str]]:
    """The top 10 of every candidate for each question by bm25s ``get_scores`` over
    ``texts`` (one per candidate, ``ids`` sorted), ties to the lower id: the reference the
    browser's ranks are tested against."""
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
