"""Untrained NLQuAD baselines (NLQuAD §5, Table 4): first, last, random and BM25 windows.

Each baseline predicts a window of ``length`` words of the context (``context.split()``
positions, the unit of NLQuAD's IoU): the first window, the last one, a random one (seeded
by the question id, so it is reproducible) or the one with the highest BM25 score against the
question among windows sliding by half their length (bm25s; ties to the earlier window). The
window length is the mean gold answer length of the split, as the paper's sliding-window
baselines use a fixed answer-sized window.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def first_window(n_words: int, length: int) -> tuple[int, int]:
    return 0, min(length, n_words)


def last_window(n_words: int, length: int) -> tuple[int, int]:
    return max(0, n_words - length), n_words


def random_window(n_words: int, length: int, seed: str) -> tuple[int, int]:
    """A window starting at a position drawn from the SHA-256 of ``seed``."""
    starts = max(1, n_words - length + 1)
    start = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big") % starts
    return start, min(start + length, n_words)


def window_starts(n_words: int, length: int) -> list[int]:
    """Starts of windows sliding by ``length // 2``; the last window ends at the last word."""
    if n_words <= length:
        return [0]
    stride = max(1, length // 2)
    starts = list(range(0, n_words - length + 1, stride))
    if starts[-1] != n_words - length:
        starts.append(n_words - length)
    return starts


def bm25_window(words: Sequence[str], length: int, question: str,
                tokenize: Callable[[list[str]], list[list[str]]]) -> tuple[int, int]:
    """The window with the highest BM25 score against the question (bm25s's scores over the
    windows, ``filters.text.bm25_scores``)."""
    from filters.text.bm25_scores import query_scores

    starts = window_starts(len(words), length)
    windows = tokenize([" ".join(words[s:s + length]) for s in starts])
    vocab = {token for tokens in windows for token in tokens}
    query = [t for t in tokenize([question])[0] if t in vocab]
    if not query:
        return first_window(len(words), length)
    scores = query_scores(windows, query)
    best = max(range(len(starts)), key=lambda i: (scores[i], -i))
    start = starts[best]
    return start, min(start + length, len(words))


#: ``evaluate baseline nlquad --method`` names -> the card's row names (``stats.json``).
METHODS: dict[str, str] = {"first-window": "first window", "last-window": "last window",
                           "random-window": "random window", "bm25-window": "BM25 window"}


def window_length(rows: Sequence[Mapping[str, Any]]) -> int:
    """The baselines' window: the mean gold answer length of ``rows`` in words (at least 1)."""
    if not rows:
        return 1
    total = sum(r["answer_word_end"] - r["answer_word_start"] for r in rows)
    return max(1, round(total / len(rows)))


def window_predictions(rows: Sequence[Mapping[str, Any]], method: str,
                       tokenize: Callable[[list[str]], list[list[str]]] | None = None
                       ) -> dict[str, dict[str, int]]:
    """``{id: {"answer_word_start", "answer_word_end"}}`` of a :data:`METHODS` baseline over
    release rows (``id``, ``question``, ``context``, ``answer_word_start/end``): the windows
    the card scores (``bm25-window`` needs ``tokenize``, the card's ``IndexTokenizer("en")``)."""
    if method not in METHODS:
        raise ValueError(f"unknown NLQuAD baseline {method!r} (one of {', '.join(METHODS)})")
    if method == "bm25-window" and tokenize is None:
        raise ValueError("bm25-window needs a tokenizer")
    length = window_length(rows)
    predictions = {}
    for row in rows:
        words = row["context"].split()
        if method == "first-window":
            start, end = first_window(len(words), length)
        elif method == "last-window":
            start, end = last_window(len(words), length)
        elif method == "random-window":
            start, end = random_window(len(words), length, row["id"])
        else:
            start, end = bm25_window(words, length, row["question"], tokenize)
        predictions[str(row["id"])] = {"answer_word_start": start, "answer_word_end": end}
    return predictions
