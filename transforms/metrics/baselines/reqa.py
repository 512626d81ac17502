"""ReQA's untrained BM25 baselines (ReQA Table 6) as rankings ``evaluate reqa`` reads.

The card (``transforms.reqa.baselines``) scores two bm25s indexes by exact ranks; these are
the same scores written out as one ranking per question, ``{qid: [candidate ids, best
first]}``:

* ``bm25-sentences``: every candidate sentence by its BM25 score against the question, ties
  to the lower candidate id (the card's sentence-level ranks exactly);
* ``bm25-paragraphs``: the paragraphs by their BM25 score, ties to the lower paragraph id,
  each followed by its sentences in candidate id order (the card's paragraph-level ranks
  exactly, the paper's Table 6 measure).

A ranking is one order, where the card ranks each level on its own: where scores tie
across paragraphs, the other level's figures can differ from the card's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Tokenize = Callable[[list[str]], list[list[str]]]
#: ``evaluate baseline reqa --method`` names -> the card's row names (``stats.json``).
METHODS: dict[str, str] = {"bm25-sentences": "BM25 over sentences",
                           "bm25-paragraphs": "BM25 over paragraphs (context)"}
CHUNK = 256  # questions per sparse product, as the card's


class Bm25Matrix:
    """A bm25s index and its token-document score matrix (tokens x documents): a question's
    scores are one row of a sparse product, the sum bm25s's ``get_scores`` computes."""

    def __init__(self, token_lists: list[list[str]]):
        import scipy.sparse as sp

        from filters.text.bm25 import bm25_retriever

        retriever, self.vocab = bm25_retriever(token_lists)
        scores = retriever.scores
        self.matrix = sp.csr_matrix((scores["data"], scores["indices"], scores["indptr"]),
                                    shape=(len(scores["indptr"]) - 1, scores["num_docs"]))

    def scores(self, token_lists: list[list[str]]) -> Any:
        """Dense (questions x documents) scores; a repeated question word counts each time."""
        import numpy as np
        import scipy.sparse as sp

        indptr, indices = [0], []
        for tokens in token_lists:
            indices.extend(self.vocab[t] for t in tokens if t in self.vocab)
            indptr.append(len(indices))
        query = sp.csr_matrix((np.ones(len(indices), dtype=self.matrix.dtype),
                               np.asarray(indices, dtype=np.int64), np.asarray(indptr)),
                              shape=(len(token_lists), self.matrix.shape[0]))
        query.sum_duplicates()
        return (query @ self.matrix).toarray()


def bm25_rankings(questions: Sequence[Mapping[str, Any]],
                  candidates: Sequence[Mapping[str, Any]], method: str, tokenize: Tokenize,
                  top: int | None = None) -> dict[str, list[str]]:
    """``{qid: candidate ids, best first}`` of a :data:`METHODS` baseline for every question
    (``qid``, ``question``) over ``candidates`` (``candidate_id``, ``sentence``, ``context``,
    ``paragraph_id``); the first ``top`` of each ranking, or all of it."""
    import numpy as np

    if method not in METHODS:
        raise ValueError(f"unknown ReQA baseline {method!r} (one of {', '.join(METHODS)})")
    questions = sorted(questions, key=lambda q: q["qid"])
    candidates = sorted(candidates, key=lambda c: c["candidate_id"])
    if not questions or not candidates:
        return {str(q["qid"]): [] for q in questions}
    ids = [str(c["candidate_id"]) for c in candidates]
    paragraph_ids = sorted({c["paragraph_id"] for c in candidates})
    paragraph_index = {p: i for i, p in enumerate(paragraph_ids)}
    para_of = np.array([paragraph_index[c["paragraph_id"]] for c in candidates], dtype=np.int64)
    if method == "bm25-sentences":
        # indexed grouped by paragraph, as the card's index (the same vocabulary, same sums)
        columns = np.lexsort((np.arange(len(candidates)), para_of))
        index = Bm25Matrix(tokenize([candidates[i]["sentence"] for i in columns]))
    else:
        text = {c["paragraph_id"]: c["context"] for c in candidates}
        index = Bm25Matrix(tokenize([text[p] for p in paragraph_ids]))
        members = [np.flatnonzero(para_of == p) for p in range(len(paragraph_ids))]
    query_tokens = tokenize([q["question"] for q in questions])
    rankings: dict[str, list[str]] = {}
    for start in range(0, len(questions), CHUNK):
        dense = index.scores(query_tokens[start:start + CHUNK])
        for question, row in zip(questions[start:start + CHUNK], dense, strict=True):
            if method == "bm25-sentences":
                scores = np.empty(len(candidates), dtype=row.dtype)
                scores[columns] = row
                order = np.lexsort((np.arange(len(candidates)), -scores))
            else:
                paragraphs = np.lexsort((np.arange(len(paragraph_ids)), -row))
                order = np.concatenate([members[p] for p in paragraphs])
            rankings[str(question["qid"])] = [ids[i] for i in order[:top]]
    return rankings
