import os

import numpy as np
import pytest

from filters.text.bm25 import bm25_retriever, import_bm25s
from transforms.clients import bm25_index
from transforms.clients.bm25_index import IMPACT_DATA, Bm25Index, Bm25IndexWriter


def corpus(seed: int = 0, docs: int = 600, vocab: int = 200) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    return [[f"w{int(x)}" for x in rng.zipf(1.3, size=int(rng.integers(0, 50))) if x < vocab]
            for _ in range(docs)]


def write(directory, token_lists, batch=37, **options) -> Bm25Index:
    writer = Bm25IndexWriter(str(directory), **options)
    for start in range(0, len(token_lists), batch):
        writer.add(token_lists[start:start + batch])
    assert writer.close() == len(token_lists)
    return Bm25Index(str(directory))


class BruteForce:
    """Top k by bm25s's own full scoring over ``token_lists`` (indexed once, for every query):
    positive scores, ties to the lower id."""

    def __init__(self, token_lists):
        self.retriever, _ = bm25_retriever(token_lists)

    def __call__(self, query, k):
        known = [t for t in query if t in self.retriever.vocab_dict]
        if not known:
            return []
        scores = self.retriever.get_scores(known)
        ranked = sorted((-float(s), i) for i, s in enumerate(scores) if s > 0)[:k]
        return [(i, -s) for s, i in ranked]


def brute_force(token_lists, query, k):
    return BruteForce(token_lists)(query, k)


@pytest.mark.parametrize("options", [
    {},  # one chunk, one pass
    {"chunk_postings": 500, "pass_postings": 300},  # many chunks and term-range passes
])
def test_files_are_byte_identical_to_bm25s(tmp_path, options):
    docs = corpus()
    retriever, _ = bm25_retriever(docs)
    retriever.save(str(tmp_path / "bm25s"))
    write(tmp_path / "ours", docs, **options)
    for name in os.listdir(tmp_path / "bm25s"):
        assert (tmp_path / "ours" / name).read_bytes() == (tmp_path / "bm25s" / name).read_bytes()
    assert not [n for n in os.listdir(tmp_path / "ours") if n.startswith(".postings")]


@pytest.mark.parametrize("depth", [1, 4, 512])  # 1 and 4: the block grows several times
def test_threshold_top_k_is_exact(tmp_path, depth):
    docs = corpus(seed=1)
    write(tmp_path, docs)
    index = Bm25Index(str(tmp_path), depth=depth)
    oracle = BruteForce(docs)
    rng = np.random.default_rng(2)
    for _ in range(300):
        query = [f"w{int(x)}" for x in rng.zipf(1.2, size=int(rng.integers(1, 7)))]
        k = int(rng.integers(1, 25))
        assert index.top_k_threshold(query, k) == oracle(query, k), query


@pytest.mark.skipif(not bm25_index.NATIVE_TOP_K, reason="the C extension is not built")
@pytest.mark.parametrize("seed", [1, 4])
def test_maxscore_top_k_in_c_is_exact(tmp_path, seed):
    docs = corpus(seed=seed)
    write(tmp_path, docs)
    index = Bm25Index(str(tmp_path))
    oracle = BruteForce(docs)
    rng = np.random.default_rng(seed + 10)
    for _ in range(400):  # repeated terms, unknown ones, k from 1 to beyond the matches
        query = [f"w{int(x)}" for x in rng.zipf(1.2, size=int(rng.integers(1, 9)))]
        k = int(rng.integers(1, 40))
        expected = oracle(query, k)
        assert index.top_k(query, k) == expected == index.top_k_threshold(query, k), query


@pytest.mark.skipif(not bm25_index.NATIVE_TOP_K, reason="the C extension is not built")
def test_maxscore_top_k_rejects_bad_arguments(tmp_path):
    index = write(tmp_path, [["river", "nile"], ["lake"]])
    native = bm25_index._bm25_topk
    with pytest.raises(ValueError, match="outside the index"):
        native.top_k(index._data, index._indices, [(0, 99, 1.0, 1.0)], [0], 5)
    with pytest.raises(ValueError, match="not among the terms"):
        native.top_k(index._data, index._indices, [(0, 1, 1.0, 1.0)], [3], 5)
    with pytest.raises(TypeError, match="tuple"):
        native.top_k(index._data, index._indices, [[0, 1, 1.0, 1.0]], [0], 5)
    assert index.top_k(["nile"], 2**70) == index.top_k_threshold(["nile"], 2**70)
    with pytest.raises(TypeError, match="float32"):
        native.top_k(index._indices, index._indices, [(0, 1, 1.0, 1.0)], [0], 5)
    assert native.top_k(index._data, index._indices, [(0, 1, 1.0, 1.0)], [0], 0) == []


@pytest.mark.skipif(not bm25_index.NATIVE_TOP_K, reason="the C extension is not built")
def test_maxscore_top_k_with_a_huge_k(tmp_path):
    """k far beyond the postings: the heap is sized by the postings, not by k (a k of 2**40
    once raised MemoryError)."""
    docs = corpus(seed=3, docs=50)
    index = write(tmp_path, docs)
    query = ["w1", "w2", "w3", "w2"]
    expected = index.top_k_threshold(query, 1000)
    assert expected
    for k in (2**31, 2**40, 2**62, 2**63 - 1):
        assert index.top_k(query, k) == expected
    native = bm25_index._bm25_topk
    assert native.top_k(index._data, index._indices, [(0, 0, 0.0, 1.0)], [0], 2**62) == []


def test_ties_repeated_and_unknown_tokens(tmp_path):
    docs = [["river", "nile"], ["river", "amazon"], ["river", "nile"], ["lake"]]
    index = write(tmp_path, docs)
    for top_k in (index.top_k, index.top_k_threshold):
        ranked = top_k(["nile", "river"], 3)
        assert [doc for doc, _ in ranked] == [0, 2, 1]  # equal scores: lower id first
        assert ranked[0][1] == ranked[1][1] > ranked[2][1] > 0
        assert top_k(["nile", "nile", "amazon"], 2) == brute_force(
            docs, ["nile", "nile", "amazon"], 2)
        assert top_k(["unknown"], 5) == [] and top_k([], 5) == []
        assert top_k(["", "zzz"], 5) == []  # bm25s's empty token has no column


def test_bm25s_opens_our_index_memory_mapped(tmp_path):
    docs = corpus(seed=3)
    write(tmp_path, docs)
    loaded = import_bm25s().BM25.load(str(tmp_path), mmap=True)
    ids, scores = loaded.retrieve([["w1", "w7"]], k=3, show_progress=False)
    assert list(ids[0]) == [doc for doc, _ in brute_force(docs, ["w1", "w7"], 3)]


def test_impact_order_is_best_score_first_per_term(tmp_path):
    docs = corpus(seed=5)
    write(tmp_path, docs, pass_postings=100)
    indptr = np.load(tmp_path / "indptr.csc.index.npy")
    data, indices = (np.load(tmp_path / n) for n in ("data.csc.index.npy",
                                                       "indices.csc.index.npy"))
    impact, impact_docs = np.load(tmp_path / IMPACT_DATA), np.load(tmp_path / "impact_indices.npy")
    for term in range(len(indptr) - 1):
        run = slice(indptr[term], indptr[term + 1])
        expected = sorted(zip(-data[run], indices[run], strict=True))
        assert list(zip(-impact[run], impact_docs[run], strict=True)) == expected


def test_an_index_saved_by_bm25s_without_impact_files_is_read(tmp_path):
    docs = corpus(seed=4)
    retriever, _ = bm25_retriever(docs)
    retriever.save(str(tmp_path))
    assert not (tmp_path / IMPACT_DATA).exists()
    assert Bm25Index(str(tmp_path)).top_k(["w2", "w5"], 4) == brute_force(docs, ["w2", "w5"], 4)


def test_empty_documents_count_in_the_average_length(tmp_path):
    docs = [[], ["alpha", "beta"], [], ["beta"]]
    index = write(tmp_path, docs, batch=1)
    assert index.num_docs == 4
    assert index.top_k(["beta"], 5) == brute_force(docs, ["beta"], 5)


@pytest.mark.skipif(not bm25_index.NATIVE_TOP_K, reason="the C extension is not built")
def test_maxscore_top_k_survives_terms_changed_while_parsed(tmp_path):
    """Parsing a bound runs ``__float__``, which here empties the terms list: the search
    reads a copy (it once read the emptied list's freed items and crashed)."""
    index = write(tmp_path, [["river", "nile"], ["river"], ["lake"]])
    terms: list = []

    class Emptying:
        def __float__(self) -> float:
            terms.clear()
            return 10.0

    terms[:] = [(0, 2, Emptying(), 1.0)] + [(0, 2, 10.0, 1.0) for _ in range(50)]
    native = bm25_index._bm25_topk
    assert len(native.top_k(index._data, index._indices, terms, [0], 5)) == 2
