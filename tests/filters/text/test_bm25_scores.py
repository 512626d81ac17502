"""``query_scores`` gives bm25s's scores bit for bit, ties included."""

import random

import pytest

from filters.text.bm25 import bm25_retriever
from filters.text.bm25_scores import query_scores


def _random_case(rng: random.Random) -> tuple[list[list[str]], list[str]]:
    vocab = [f"w{i}" for i in range(rng.randint(1, 30))]
    texts = [[rng.choice(vocab) for _ in range(rng.choice([0, rng.randint(1, 8),
                                                            rng.randint(1, 70)]))]
             for _ in range(rng.randint(1, 12))]
    if len(texts) > 1 and rng.random() < 0.3:
        texts[rng.randrange(len(texts))] = list(texts[0])  # equal texts: tied scores
    present = sorted({token for text in texts for token in text}) or ["w0"]
    if not any(texts):
        texts[0] = ["w0"]
    return texts, [rng.choice(present) for _ in range(rng.randint(1, 8))]


@pytest.mark.parametrize("seed", range(4))
def test_the_scores_of_bm25s_on_random_texts(seed):
    rng = random.Random(seed)
    ties = 0
    for _ in range(600):
        texts, query = _random_case(rng)
        retriever, _ = bm25_retriever(texts)
        expected = [float(score) for score in retriever.get_scores(query)]
        assert query_scores(texts, query) == expected, (texts, query)
        ties += len(set(expected)) < len(expected)
    assert ties > 100  # the cases exercise tie-breaks


def test_repeated_query_tokens_count_again():
    texts = [["harbour", "bridge", "ferry"], ["ferry", "ferry", "pier"], ["storm"]]
    once, twice = query_scores(texts, ["ferry"]), query_scores(texts, ["ferry", "ferry"])
    assert twice[0] == pytest.approx(2 * once[0]) and twice[2] == once[2] == 0.0
    retriever, _ = bm25_retriever(texts)
    assert twice == [float(s) for s in retriever.get_scores(["ferry", "ferry"])]
