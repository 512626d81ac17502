"""A BM25 index on disk in bm25s's file format, built out of core, queried by threshold.

Why not ``bm25s.BM25.index`` and ``retrieve``: bm25s builds from every document's token list in
memory (Python lists: tens of GB for a Wikipedia dump), and its numpy retrieval scores every
document and partitions an array the size of the corpus for each query (8-10 queries/s on one
core at 1M documents, see ``benchmarks/bench_search_scale.py``). The files are the same, so
``bm25s.BM25.load(directory, mmap=True)`` still opens an index built here, with the same
scores (Lucene BM25, bm25s's formula and float32 rounding, tested against bm25s itself).

Building (``Bm25IndexWriter``): documents arrive in id order in batches; their term counts
are flushed as ``(doc, term, tf)`` chunks, sorted by term, to a temporary directory, so
memory holds the vocabulary, 8 bytes per document and one chunk.
``close()`` computes document frequencies and the average length, then writes the CSC score
matrix (``data``, ``indices``, ``indptr``) term range by term range, each range bounded by
``pass_postings`` (8 bytes each) and read from the memory-mapped chunks by binary search.

Querying (``Bm25Index``): the arrays are memory-mapped. ``top_k`` runs MaxScore in C
(``_bm25_topk.c``) over the document-ordered lists: terms whose best scores together cannot
beat the current k-th score are only searched for documents that can still enter the top k.
Each term's postings are also written best score first (``impact_data.npy``,
``impact_indices.npy``): their first entry is the term's bound, and ``top_k_threshold`` (the
numpy path, used when the extension is not built) runs Fagin's threshold algorithm over them.
Both are exact: the same scores and, for equal scores, the lower document id first.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from array import array
from collections import Counter
from collections.abc import Sequence

import numpy as np

from transforms.clients.page_store import load_array

try:
    from transforms.clients import _bm25_topk
except ImportError:  # not built (a source tree without `pip install`): numpy, same results
    _bm25_topk = None

NATIVE_TOP_K = _bm25_topk is not None

DATA = "data.csc.index.npy"
INDICES = "indices.csc.index.npy"
INDPTR = "indptr.csc.index.npy"
VOCAB = "vocab.index.json"
PARAMS = "params.index.json"
IMPACT_INDICES = "impact_indices.npy"
IMPACT_DATA = "impact_data.npy"
K1, B = 1.5, 0.75


class Bm25IndexWriter:
    """Build an index into ``directory`` from token lists given in document-id order."""

    def __init__(self, directory: str, *, k1: float = K1, b: float = B,
                 chunk_postings: int = 4_000_000, pass_postings: int = 16_000_000) -> None:
        self.directory = directory
        self.k1, self.b = k1, b
        self.vocab: dict[str, int] = {}
        self._chunk_postings = chunk_postings
        self._pass_postings = pass_postings
        self._lengths = array("q")
        self._pending_terms, self._pending_tfs, self._pending_uniques = (
            array("i"), array("i"), array("i"))
        os.makedirs(directory, exist_ok=True)
        self._scratch = tempfile.mkdtemp(prefix=".postings-", dir=directory)
        self._chunks: list[str] = []
        self.postings = 0

    @property
    def num_docs(self) -> int:
        return len(self._lengths)

    def add(self, token_lists: Sequence[Sequence[str]]) -> None:
        """Index a batch of documents (ids continue from the previous batch). Terms are
        numbered in order of first appearance, as in ``filters.text.bm25.bm25_retriever``."""
        vocab, lookup = self.vocab, self.vocab.get
        terms, tfs, uniques = self._pending_terms, self._pending_tfs, self._pending_uniques
        for tokens in token_lists:
            counts = Counter(tokens)
            ids = list(map(lookup, counts))
            if None in ids:
                new = [token for token in counts if token not in vocab]
                vocab.update(zip(new, range(len(vocab), len(vocab) + len(new)), strict=True))
                ids = list(map(lookup, counts))
            terms.extend(ids)
            tfs.extend(counts.values())
            uniques.append(len(ids))
            self._lengths.append(len(tokens))
        if len(terms) >= self._chunk_postings:
            self._flush()

    def _flush(self) -> None:
        """Write the pending postings as a chunk sorted by term (documents ascending within
        a term, as they arrived)."""
        if not self._pending_terms:
            return
        first = len(self._lengths) - len(self._pending_uniques)
        docs = np.repeat(np.arange(first, len(self._lengths), dtype=np.int32),
                         np.frombuffer(self._pending_uniques, dtype=np.int32))
        terms = np.frombuffer(self._pending_terms, dtype=np.int32)
        order = np.argsort(terms, kind="stable")
        base = os.path.join(self._scratch, f"chunk-{len(self._chunks):06d}")
        np.save(base + ".docs.npy", docs[order])
        np.save(base + ".terms.npy", terms[order])
        np.save(base + ".tf.npy", np.frombuffer(self._pending_tfs, dtype=np.int32)[order]
                .astype(np.float32))
        self._chunks.append(base)
        self.postings += len(docs)
        self._pending_terms, self._pending_tfs = array("i"), array("i")
        self._pending_uniques = array("i")

    def close(self) -> int:
        """Write the index files; returns the number of documents."""
        self._flush()
        try:
            self._write()
        finally:
            shutil.rmtree(self._scratch, ignore_errors=True)
        return self.num_docs

    def _write(self) -> None:
        n_docs, n_terms = self.num_docs, len(self.vocab)
        lengths = np.frombuffer(self._lengths, dtype=np.int64) if n_docs else np.zeros(0, int)
        avg_length = lengths.mean() if n_docs else np.float64(0.0)
        df = np.zeros(n_terms, dtype=np.int64)
        for base in self._chunks:
            df += np.bincount(load_array(base + ".terms.npy"), minlength=n_terms)
        idf = np.array([math.log(1 + (n_docs - f + 0.5) / (f + 0.5)) for f in df.tolist()],
                       dtype=np.float32)
        indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        outputs = [_NpyAppender(os.path.join(self.directory, name), dtype, self.postings)
                   for name, dtype in ((DATA, np.float32), (INDICES, np.int32),
                                       (IMPACT_DATA, np.float32), (IMPACT_INDICES, np.int32))]
        cursor = indptr[:-1].copy()  # where each term's next posting goes
        for low, high in _term_ranges(indptr, self._pass_postings):
            start, end = int(indptr[low]), int(indptr[high])
            scores = np.empty(end - start, dtype=np.float32)
            docs = np.empty(end - start, dtype=np.int32)
            for base in self._chunks:
                self._place(base, low, high, start, cursor, (scores, docs),
                            (lengths, avg_length, idf))
            order = impact_order(scores, df[low:high])
            for output, part in zip(outputs, (scores, docs, scores[order], docs[order]),
                                    strict=True):
                output.append(part)
        for output in outputs:
            output.close()
        np.save(os.path.join(self.directory, INDPTR), indptr)
        vocab = dict(self.vocab)
        vocab.setdefault("", n_terms)  # bm25s adds the empty token after the last column
        with open(os.path.join(self.directory, VOCAB), "w", encoding="utf-8") as handle:
            handle.write(json.dumps(vocab, ensure_ascii=False))
        with open(os.path.join(self.directory, PARAMS), "w", encoding="utf-8") as handle:
            json.dump(bm25s_params(self.k1, self.b, n_docs), handle, indent=4)

    def _place(self, base: str, low: int, high: int, start: int, cursor: np.ndarray,
               out: tuple[np.ndarray, np.ndarray], stats: tuple) -> None:
        """Score a chunk's postings of terms ``[low, high)`` with bm25s's Lucene formula (its
        float32/float64 steps) and put them after the term's postings of earlier chunks."""
        lengths, avg_length, idf = stats
        chunk_terms = load_array(base + ".terms.npy")
        first, last = np.searchsorted(chunk_terms, [low, high])
        if first == last:
            return
        terms = np.asarray(chunk_terms[first:last])
        docs = np.asarray(load_array(base + ".docs.npy")[first:last])
        tf = np.asarray(load_array(base + ".tf.npy")[first:last])
        norm = self.k1 * ((1 - self.b) + self.b * lengths[docs] / avg_length)
        scores = (idf[terms] * (tf / (norm + tf))).astype(np.float32)
        runs = np.flatnonzero(np.concatenate(([True], terms[1:] != terms[:-1])))
        run_terms = terms[runs]
        run_lengths = np.diff(np.append(runs, len(terms)))
        positions = (np.repeat(cursor[run_terms] - runs, run_lengths)
                     + np.arange(len(terms)) - start)
        out[0][positions] = scores
        out[1][positions] = docs
        cursor[run_terms] += run_lengths


def bm25s_params(k1: float, b: float, num_docs: int) -> dict:
    """``params.index.json`` as bm25s writes it (so ``bm25s.BM25.load`` reads our index)."""
    from filters.text.bm25 import import_bm25s

    return {"k1": k1, "b": b, "delta": 0.5, "method": "lucene", "idf_method": "lucene",
            "dtype": "float32", "int_dtype": "int32", "num_docs": num_docs,
            "version": import_bm25s().__version__, "backend": "numpy"}


class _NpyAppender:
    """A ``.npy`` file of ``size`` elements written front to back with plain writes (a
    memory map would keep every written page in this process's resident memory)."""

    def __init__(self, path: str, dtype: type, size: int) -> None:
        self.path, self.dtype, self.size, self.written = path, np.dtype(dtype), size, 0
        self._handle = open(path, "wb")
        np.lib.format.write_array_header_1_0(self._handle, {
            "descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False,
            "shape": (size,)})

    def append(self, values: np.ndarray) -> None:
        self._handle.write(np.ascontiguousarray(values, dtype=self.dtype).tobytes())
        self.written += len(values)

    def close(self) -> None:
        self._handle.close()
        if self.written != self.size:
            raise RuntimeError(f"{self.path}: {self.written} of {self.size} values written")


def impact_order(scores: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Positions that sort each term's run of ``scores`` (consecutive runs of ``lengths``) by
    score, best first, equal scores keeping their (document) order."""
    run = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    bits = scores.astype(np.float32).view(np.uint32).astype(np.int64)  # monotone: scores >= 0
    return np.argsort((run << 32) | (0xFFFFFFFF - bits), kind="stable")


def _term_ranges(indptr: np.ndarray, budget: int) -> list[tuple[int, int]]:
    """Consecutive term ranges whose postings fit ``budget`` (a range holds 1+ terms)."""
    n_terms = len(indptr) - 1
    ranges, low = [], 0
    while low < n_terms:
        high = int(np.searchsorted(indptr, indptr[low] + budget, side="right")) - 1
        high = min(max(high, low + 1), n_terms)
        ranges.append((low, high))
        low = high
    return ranges or [(0, 0)]


class Bm25Index:
    """Exact top-``k`` BM25 over a memory-mapped index directory (thread-safe reads).

    Each term's postings are kept twice: by document (bm25s's ``data``/``indices``) and by
    score, best first (``impact_*``). ``top_k`` is MaxScore in C over the first, with each
    term's best score from the second; ``top_k_threshold`` is Fagin's threshold algorithm in
    numpy over the second, in blocks of ``depth`` postings, scoring candidates by binary search
    in the first. Either reads a small part of its terms' lists.
    """

    def __init__(self, directory: str, depth: int = 512) -> None:
        with open(os.path.join(directory, PARAMS), encoding="utf-8") as handle:
            self.params = json.load(handle)
        with open(os.path.join(directory, VOCAB), encoding="utf-8") as handle:
            self.vocab: dict[str, int] = json.load(handle)
        self.num_docs = int(self.params["num_docs"])
        self.depth = depth
        self._data = load_array(os.path.join(directory, DATA))
        self._indices = load_array(os.path.join(directory, INDICES))
        self._indptr = np.load(os.path.join(directory, INDPTR))
        if os.path.exists(os.path.join(directory, IMPACT_DATA)):
            self._impact_data = load_array(os.path.join(directory, IMPACT_DATA))
            self._impact_indices = load_array(os.path.join(directory, IMPACT_INDICES))
        else:  # an index saved by bm25s itself: sort once, in memory
            order = impact_order(np.asarray(self._data), np.diff(self._indptr))
            self._impact_data = np.asarray(self._data)[order]
            self._impact_indices = np.asarray(self._indices)[order]

    def _term_ids(self, tokens: Sequence[str]) -> list[int]:
        """The query's term columns in query order (repeats kept); unknown tokens and bm25s's
        empty token, which has no column, left out."""
        columns = len(self._indptr) - 1
        return [i for i in (self.vocab.get(t, columns) for t in tokens) if i < columns]

    def query_weight(self, tokens: Sequence[str]) -> float:
        """The sum of the query tokens' IDFs (repeats counted, as in scoring; a token no page
        holds weighs the most, ``log(1 + (N + 0.5) / 0.5)``): a page's score is below it, so
        ``score / query_weight`` is the share of the query a page matches, whatever the size
        of the index (the relevance floor's scale)."""
        n_docs = self.num_docs
        columns = len(self._indptr) - 1
        weight = 0.0
        for token in tokens:
            column = self.vocab.get(token, columns)
            df = int(self._indptr[column + 1] - self._indptr[column]) if column < columns else 0
            weight += math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
        return weight

    def top_k(self, tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """``(doc id, score)`` of the ``k`` best documents with a positive score, best first,
        equal scores by lower id. A token repeated in the query counts again, as in bm25s.

        MaxScore in C (``_bm25_topk``) when the extension is built, else
        :meth:`top_k_threshold`; both give the same list."""
        if _bm25_topk is None:
            return self.top_k_threshold(tokens, k)
        ids = self._term_ids(tokens)
        if not ids or k <= 0:
            return []
        k = min(k, self.num_docs)  # no more hits than documents; keeps k a C size
        weight = Counter(ids)
        slots = {term: slot for slot, term in enumerate(weight)}
        terms = []
        for term, count in weight.items():
            start, end = int(self._indptr[term]), int(self._indptr[term + 1])
            best = float(self._impact_data[start]) if end > start else 0.0
            terms.append((start, end - start, count * best, float(count)))
        return _bm25_topk.top_k(self._data, self._indices, terms, [slots[t] for t in ids], k)

    def top_k_threshold(self, tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """:meth:`top_k` in numpy: Fagin's threshold algorithm over the impact-ordered
        postings (the reference the C search is tested against)."""
        ids = self._term_ids(tokens)
        if not ids or k <= 0:
            return []
        weight = Counter(ids)
        starts = {t: int(self._indptr[t]) for t in weight}
        lengths = {t: int(self._indptr[t + 1]) - starts[t] for t in weight}
        terms = [t for t in weight if lengths[t]]
        postings = {t: (self._indices[starts[t]:starts[t] + lengths[t]],
                        self._data[starts[t]:starts[t] + lengths[t]]) for t in terms}
        depth = {t: max(self.depth, k) for t in terms}
        while True:
            prefixes = [self._impact_indices[starts[t]:starts[t] + min(depth[t], lengths[t])]
                        for t in terms]
            candidates = _union(prefixes)
            scores = _scores(candidates, ids, postings)
            next_best = {t: weight[t] * float(self._impact_data[starts[t] + depth[t]])
                         for t in terms if depth[t] < lengths[t]}
            bound = sum(next_best.values())
            if not next_best or (len(scores) >= k and bound * (1 + 1e-6)
                                 < np.partition(scores, len(scores) - k)[-k]):
                return _best(candidates, scores, k)
            widest = max(next_best.values())
            for t, value in next_best.items():  # read deeper where the bound comes from
                if value >= widest / 2:
                    depth[t] *= 4


def _union(arrays: list[np.ndarray]) -> np.ndarray:
    """The sorted distinct values of int arrays."""
    if not arrays:
        return np.zeros(0, dtype=np.int32)
    values = np.sort(np.concatenate(arrays))
    if len(values) < 2:
        return values
    keep = np.empty(len(values), dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _scores(candidates: np.ndarray, ids: list[int],
            postings: dict[int, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Exact float32 scores of ``candidates`` (sorted ids), summed term by term in query order
    as bm25s does (so equal documents get bit-equal scores)."""
    contributions = {}
    for term, (docs, data) in postings.items():
        position = np.minimum(np.searchsorted(docs, candidates), len(docs) - 1)
        found = docs[position] == candidates
        contributions[term] = np.where(found, data[position], np.float32(0))
    total = np.zeros(len(candidates), dtype=np.float32)
    for term in ids:
        if term in contributions:
            total += contributions[term]
    return total


def _best(candidates: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    positive = scores > 0
    candidates, scores = candidates[positive], scores[positive]
    if len(scores) > k:
        keep = scores >= np.partition(scores, len(scores) - k)[-k]
        candidates, scores = candidates[keep], scores[keep]
    order = np.lexsort((candidates, -scores))[:k]
    return [(int(candidates[i]), float(scores[i])) for i in order]
