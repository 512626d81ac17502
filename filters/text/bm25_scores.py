"""BM25 scores of a few short texts against one query, without building a bm25s index.

``bm25s.BM25().index(...)`` followed by ``get_scores(query)`` (``filters.text.bm25``) scores
every token of every text and builds a sparse matrix, then reads the query's columns. For
the NLQuAD card's BM25 window (a handful of windows and a question of a few tokens, once per
question) that set-up is most of the cost. ``query_scores`` computes the same numbers for the
query's tokens only, with bm25s's own scoring functions and its dtypes, step for step:

* each text's length is its token count, and the mean length ``np.array(lengths).mean()``;
* a token's idf is bm25s's (``method="lucene"``) of its document frequency, stored as
  float32 as bm25s stores its idf array;
* a token's score in a text is ``idf * tfc(tf)`` with tf as float32 and the text's length an
  int, as bm25s computes a document's row, stored as float32;
* a text's score adds, in float32, the score of each query token in query order (repeated
  tokens count again, as bm25s's ``np.add.at`` over the query's ids does); a text without
  the token adds nothing.

So the scores are bm25s's bit for bit, ties included (tested against bm25s on randomized
texts and queries).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from filters.text.bm25 import import_bm25s


def query_scores(token_lists: Sequence[Sequence[str]], query: Sequence[str]) -> list[float]:
    """The BM25 score of each text (``token_lists``) against ``query`` (tokens, each one in
    at least one text), as ``bm25s.BM25()`` indexed over the texts scores it."""
    k1, b, dtype, idf_of, tfc_of = _bm25s_defaults()
    counts = [Counter(tokens) for tokens in token_lists]
    l_avg = np.array([len(tokens) for tokens in token_lists]).mean()
    wanted = list(dict.fromkeys(query))
    idf = np.zeros(len(wanted), dtype=dtype)
    for column, token in enumerate(wanted):
        idf[column] = idf_of(sum(1 for count in counts if token in count), N=len(counts))
    rows = []
    for tokens, count in zip(token_lists, counts, strict=True):
        present = [column for column, token in enumerate(wanted) if token in count]
        row = np.zeros(len(wanted), dtype=dtype)
        if present:
            tf = np.array([count[wanted[column]] for column in present], dtype=dtype)
            tfc = tfc_of(tf_array=tf, l_d=len(tokens), l_avg=l_avg, k1=k1, b=b)
            row[present] = idf[present] * tfc
        rows.append(row)
    order = [wanted.index(token) for token in query]
    scores = []
    for row in rows:
        total = np.zeros(1, dtype=dtype)
        for column in order:
            total += row[column]
        scores.append(float(total[0]))
    return scores


@functools.cache
def _bm25s_defaults() -> tuple[float, float, str, Callable, Callable]:
    """k1, b, dtype and the idf and tf scorers of ``bm25s.BM25()`` as ``bm25_retriever``
    makes it (its defaults)."""
    bm25s = import_bm25s()
    from bm25s.scoring import _select_idf_scorer, _select_tfc_scorer

    model = bm25s.BM25()
    return (model.k1, model.b, model.dtype, _select_idf_scorer(model.idf_method),
            _select_tfc_scorer(model.method))
