"""The offline search backend: a BM25 index over a corpus of pages, and its page store.

Why bm25s's format with our own builder and query: bm25s is a maintained BM25 library (Lù 2024)
with pure-Python wheels, whose index is a handful of ``.npy``/``.json`` files we can checksum
in a release and ship in a container; :mod:`transforms.clients.bm25_index` builds those files
out of core and answers queries exactly (a threshold algorithm over memory-mapped arrays).
Against tantivy on 1M synthetic documents see ``benchmarks/bench_search_scale.py`` and
docs/benchmarks.md, "Search at Wikipedia scale". The index directory holds:

* ``bm25/``: the index (title + visible text of every page, lower-cased, English stopwords
  removed, tokens of 2+ word characters; Japanese: fugashi words);
* ``pages/``: the page store (:mod:`transforms.clients.page_store`): URL, title, text and HTML
  of each page read lazily by document id or title;
* ``docs/docs-*.parquet``: one row per page (``doc_id``, ``url``, ``title``, ``kind``,
  ``revision``, ``text``, ``html``), the release's table for ``datasets``, pyarrow and DuckDB.

Ranking ties are broken by document id, and hits with a zero score are not hits, so results
are deterministic. Opening an index maps its arrays and reads its vocabulary: resident memory
grows with the vocabulary, not with the corpus or its HTML.
"""

from __future__ import annotations

import functools
import os
import re
import threading

import numpy as np

from filters.nq.search_hits import SearchHit, wikipedia_title
from filters.text.bm25 import import_bm25s
from transforms.clients.bm25_index import Bm25Index
from transforms.clients.page_store import STORE_DIR, PageMeta, PageStore, StoredPage

BM25_DIR = "bm25"
DOCS_DIR = "docs"
_SNIPPET_WORDS = 30
_WORD = re.compile(r"(?u)\b\w\w+\b")
_OTHER_SPACE = re.compile(r"[^\S ]")


_JA_SKIP_POS = frozenset({"補助記号", "記号", "空白", "助詞", "助動詞"})
META_FILE = "index_meta.json"


class IndexTokenizer:
    """Tokens as indexed and queried.

    English: lower case, 2+ word characters, English stopwords out (bm25s' tokenizer).
    Japanese (no spaces between words): fugashi/UniDic surface forms without punctuation,
    particles and auxiliaries, then 1+ word characters. The fugashi Tagger is created lazily,
    one per thread (not picklable: build the tokenizer on the worker).
    """

    def __init__(self, lang: str = "en"):
        self.lang = lang
        self._local = threading.local()

    def _segment(self, text: str) -> str:
        tagger = getattr(self._local, "tagger", None)
        if tagger is None:
            import fugashi

            tagger = self._local.tagger = fugashi.Tagger()
        return " ".join(w.surface for w in tagger(text) if w.feature.pos1 not in _JA_SKIP_POS)

    def __call__(self, texts: list[str]) -> list[list[str]]:
        if self.lang == "ja":
            bm25s = import_bm25s()
            return bm25s.tokenize([self._segment(t) for t in texts], stopwords=None,
                                  token_pattern=r"(?u)\b\w+\b", return_ids=False,
                                  show_progress=False)
        stop = _english_stopwords()
        return [[t for t in _WORD.findall(text.lower()) if t not in stop] for text in texts]


@functools.cache
def _english_stopwords() -> frozenset[str]:
    """bm25s's English stopwords: ``bm25s.tokenize(texts, stopwords="en")`` keeps the
    ``_WORD`` tokens of the lower-cased text that are not among them."""
    import_bm25s()
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def index_tokens(texts: list[str], lang: str = "en") -> list[list[str]]:
    """Tokens of ``texts`` as the index of language ``lang`` sees them."""
    return IndexTokenizer(lang)(texts)


def page_title_key(url: str, kind: str, lang: str) -> str | None:
    """The title a Wikipedia page is fetched by (underscores), None for other pages."""
    return wikipedia_title(url, lang) if kind == "wikipedia" else None


def best_snippet(text: str, query: str, words: int = _SNIPPET_WORDS,
                 tokenizer: IndexTokenizer | None = None) -> str:
    """The passage of ``text`` sharing most terms with ``query``: a window of ``words`` words
    (a word is a hit when one of its ``_WORD`` matches is a query term; the first best window
    wins), or for Japanese the best sentence (ended by 。！？) and the next one."""
    if tokenizer is not None and tokenizer.lang == "ja":
        return _best_japanese_sentences(text, query, tokenizer)
    terms = {t.lower() for t in _WORD.findall(query)}
    snippet = _single_spaced_snippet(text, terms, words)
    if snippet is not None:
        return snippet
    tokens = text.split()
    if len(tokens) <= words:
        return " ".join(tokens)
    hits = [1 if set(t.lower() for t in _WORD.findall(tok)) & terms else 0 for tok in tokens]
    start = _first_best_window(np.array(hits, dtype=np.int64), words)
    return " ".join(tokens[start:start + words])


def _first_best_window(hits: np.ndarray, words: int) -> int:
    sums = np.concatenate(([0], np.cumsum(hits)))
    return int(np.argmax(sums[words:] - sums[:-words]))


def _single_spaced_snippet(text: str, terms: set[str], words: int) -> str | None:
    """``best_snippet`` in one regex pass over the lower-cased text, without splitting it
    (page texts are single-spaced). None when the result could differ from matching word by
    word: text not single-spaced, or whose lower case changes its length or needs context
    (final sigma)."""
    lowered = text.lower()
    if (len(lowered) != len(text) or "Σ" in text or "  " in text or text[:1] == " "
            or text[-1:] == " " or _OTHER_SPACE.search(text)):
        return None
    spaces = np.flatnonzero(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32) == 32)
    count = len(spaces) + 1 if text else 0
    if count <= words:
        return text
    hits = np.zeros(count, dtype=np.int64)
    if terms:
        pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, sorted(terms)))
                             + r")(?!\w)")
        starts = [match.start() for match in pattern.finditer(lowered)]
        hits[np.searchsorted(spaces, starts)] = 1
    start = _first_best_window(hits, words)
    begin = int(spaces[start - 1]) + 1 if start else 0
    last = start + words - 1
    return text[begin:int(spaces[last]) if last < len(spaces) else len(text)]


def _best_japanese_sentences(text: str, query: str, tokenizer: IndexTokenizer) -> str:
    sentences = [s for s in re.split(r"(?<=[。！？!?])", text) if s.strip()]
    if not sentences:
        return ""
    terms = set(tokenizer([query])[0])
    scores = [len(terms & set(tokens)) for tokens in tokenizer(sentences)]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    snippet = re.sub(r"\s*\[\d+\]\s*", "", "".join(sentences[best:best + 2]))
    return re.sub(r"\s+", " ", snippet).strip()


IndexedPage = StoredPage


class IndexFormatError(ValueError):
    """An index directory this version cannot read (built before the page store existed)."""


class IndexPages(PageStore):
    """The page store of an index directory, looked up by Wikipedia title."""

    def __init__(self, index_dir: str, lang: str) -> None:
        super().__init__(index_dir, title_key_of=lambda meta: page_title_key(
            meta.url, meta.kind, lang))
        self.lang = lang

    def page(self, title: str) -> IndexedPage | None:
        """The indexed Wikipedia page with this title (spaces or underscores), if any."""
        doc_id = self.find_title(title.replace(" ", "_"))
        return None if doc_id is None else self.get(doc_id)


def open_page_store(index_dir: str) -> IndexPages:
    """The page store of an index directory; ``IndexFormatError`` for an index built before
    the store existed."""
    if not os.path.isdir(os.path.join(index_dir, STORE_DIR)):
        raise IndexFormatError(
            f"{index_dir} has no {STORE_DIR}/ page store: it was built by an older version; "
            f"rebuild it with python -m pipelines.build_search_index")
    return IndexPages(index_dir, read_index_lang(index_dir))


class LocalSearch:
    """Search and page store over an index directory built by ``build_search_index``.

    One instance can serve several threads (Beam's ``Shared`` hands one to every DoFn of a
    worker process).
    """

    def __init__(self, index_dir: str):
        self._pages = open_page_store(index_dir)
        self.index_dir = index_dir
        self.lang = self._pages.lang
        self._tokenize = IndexTokenizer(self.lang)
        self._index = Bm25Index(os.path.join(index_dir, BM25_DIR))

    def __len__(self) -> int:
        return len(self._pages)

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        """Top ``k`` pages by BM25 score (ties: lower document id first); a hit's ``score`` is
        its BM25 score over the query's weight (``Bm25Index.query_weight``): the share of the
        question's terms, weighted by rarity, the page matches, from 0 to 1 whatever the
        question's length or the index's size (the relevance floor's scale)."""
        tokens = self._tokenize([query])[0]
        if not tokens:
            return []
        weight = self._index.query_weight(tokens) or 1.0
        hits = []
        for rank, (doc_id, score) in enumerate(self._index.top_k(tokens, k), start=1):
            meta: PageMeta = self._pages.meta(doc_id)
            hits.append(SearchHit(meta.url, meta.title,
                                  best_snippet(meta.text, query, tokenizer=self._tokenize),
                                  rank, round(float(score) / weight, 6)))
        return hits

    def page(self, title: str) -> IndexedPage | None:
        """The indexed Wikipedia page with this title (underscores), if any."""
        return self._pages.page(title)

    def close(self) -> None:
        self._pages.close()


def read_index_lang(index_dir: str) -> str:
    """The language an index was built for (``index_meta.json``; English when absent)."""
    import json

    path = os.path.join(index_dir, META_FILE)
    if not os.path.exists(path):
        return "en"
    with open(path, encoding="utf-8") as handle:
        return json.load(handle).get("lang", "en")
