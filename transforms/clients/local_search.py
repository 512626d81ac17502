"""The offline search backend: a BM25 index (``bm25s``) over a corpus of pages.

Why bm25s: a maintained BM25 library (Lù 2024) with pure-Python wheels (numpy/scipy sparse
matrices, no JVM as for Lucene/pyserini, no native build as for tantivy), an index that is a
handful of ``.npy``/``.json`` files we can checksum in a release and ship in a container, and
scoring fast enough for millions of queries. The index directory holds:

* ``bm25/``: the bm25s index (title + visible text of every page, lower-cased, English
  stopwords removed, tokens of 2+ word characters);
* ``docs/docs-*.parquet``: one row per page (``doc_id``, ``url``, ``title``, ``kind``,
  ``revision``, ``text``, ``html``), so the same directory also serves page fetches.

Ranking ties are broken by document id, and hits with a zero score are not hits, so results
are deterministic. Loaded once per worker (``DoFn.setup``).
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass

from filters.nq.search_hits import SearchHit, wikipedia_title
from filters.text.bm25 import import_bm25s

BM25_DIR = "bm25"
DOCS_DIR = "docs"
_SNIPPET_WORDS = 30
_WORD = re.compile(r"(?u)\b\w\w+\b")


_JA_SKIP_POS = frozenset({"補助記号", "記号", "空白", "助詞", "助動詞"})
META_FILE = "index_meta.json"


class IndexTokenizer:
    """Tokens as indexed and queried.

    English: lower case, 2+ word characters, English stopwords out (bm25s' tokenizer).
    Japanese (no spaces between words): fugashi/UniDic surface forms without punctuation,
    particles and auxiliaries, then 1+ word characters. The fugashi Tagger is created lazily
    by the instance (not picklable: build the tokenizer on the worker).
    """

    def __init__(self, lang: str = "en"):
        self.lang = lang
        self._tagger = None

    def _segment(self, text: str) -> str:
        if self._tagger is None:
            import fugashi

            self._tagger = fugashi.Tagger()
        return " ".join(w.surface for w in self._tagger(text)
                        if w.feature.pos1 not in _JA_SKIP_POS)

    def __call__(self, texts: list[str]) -> list[list[str]]:
        bm25s = import_bm25s()

        if self.lang == "ja":
            return bm25s.tokenize([self._segment(t) for t in texts], stopwords=None,
                                  token_pattern=r"(?u)\b\w+\b", return_ids=False,
                                  show_progress=False)
        return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


def index_tokens(texts: list[str], lang: str = "en") -> list[list[str]]:
    """Tokens of ``texts`` as the index of language ``lang`` sees them."""
    return IndexTokenizer(lang)(texts)


def build_bm25_index(texts: list[str], directory: str, lang: str = "en") -> None:
    """Index ``texts`` (document ids = positions) into ``directory``."""
    from filters.text.bm25 import bm25_retriever

    retriever, _ = bm25_retriever(index_tokens(texts, lang))
    retriever.save(directory)


def best_snippet(text: str, query: str, words: int = _SNIPPET_WORDS,
                 tokenizer: IndexTokenizer | None = None) -> str:
    """The passage of ``text`` sharing most terms with ``query``: a window of ``words`` words,
    or for Japanese the best sentence (ended by 。！？) and the next one."""
    if tokenizer is not None and tokenizer.lang == "ja":
        return _best_japanese_sentences(text, query, tokenizer)
    terms = {t.lower() for t in _WORD.findall(query)}
    tokens = text.split()
    if len(tokens) <= words:
        return " ".join(tokens)
    hits = [1 if set(t.lower() for t in _WORD.findall(tok)) & terms else 0 for tok in tokens]
    window = sum(hits[:words])
    best, best_start = window, 0
    for start in range(1, len(tokens) - words + 1):
        window += hits[start + words - 1] - hits[start - 1]
        if window > best:
            best, best_start = window, start
    return " ".join(tokens[best_start:best_start + words])


def _best_japanese_sentences(text: str, query: str, tokenizer: IndexTokenizer) -> str:
    sentences = [s for s in re.split(r"(?<=[。！？!?])", text) if s.strip()]
    if not sentences:
        return ""
    terms = set(tokenizer([query])[0])
    scores = [len(terms & set(tokens)) for tokens in tokenizer(sentences)]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    snippet = re.sub(r"\s*\[\d+\]\s*", "", "".join(sentences[best:best + 2]))
    return re.sub(r"\s+", " ", snippet).strip()


@dataclass(frozen=True)
class IndexedPage:
    doc_id: int
    url: str
    title: str
    kind: str
    revision: int
    text: str
    html: str


class LocalSearch:
    """Search and page store over an index directory built by ``build_search_index``."""

    def __init__(self, index_dir: str):
        bm25s = import_bm25s()
        import pyarrow.parquet as pq

        self.index_dir = index_dir
        self._retriever = bm25s.BM25.load(os.path.join(index_dir, BM25_DIR))
        self.lang = read_index_lang(index_dir)
        self._tokenize = IndexTokenizer(self.lang)
        files = sorted(glob.glob(os.path.join(index_dir, DOCS_DIR, "*.parquet")))
        rows = [r for f in files for r in pq.read_table(f).to_pylist()]
        self._pages = {r["doc_id"]: IndexedPage(**r) for r in rows}
        self._by_title = {}
        for page in self._pages.values():
            title = wikipedia_title(page.url, self.lang) if page.kind == "wikipedia" else None
            if title:
                self._by_title[title] = page

    def __len__(self) -> int:
        return len(self._pages)

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        """Top ``k`` pages by BM25 score (ties: lower document id first)."""
        tokens = self._tokenize([query])
        if not tokens[0] or not self._pages:
            return []
        depth = min(len(self._pages), k * 4)
        ids, scores = self._retriever.retrieve(tokens, k=depth, show_progress=False)
        ranked = sorted(((float(s), int(i)) for i, s in zip(ids[0], scores[0], strict=True)
                         if s > 0), key=lambda si: (-si[0], si[1]))[:k]
        return [SearchHit(self._pages[i].url, self._pages[i].title,
                          best_snippet(self._pages[i].text, query, tokenizer=self._tokenize),
                          rank)
                for rank, (_, i) in enumerate(ranked, start=1)]

    def page(self, title: str) -> IndexedPage | None:
        """The indexed Wikipedia page with this title (underscores), if any."""
        return self._by_title.get(title.replace(" ", "_"))

    def close(self) -> None:
        self._pages.clear()


def read_index_lang(index_dir: str) -> str:
    """The language an index was built for (``index_meta.json``; English when absent)."""
    import json

    path = os.path.join(index_dir, META_FILE)
    if not os.path.exists(path):
        return "en"
    with open(path, encoding="utf-8") as handle:
        return json.load(handle).get("lang", "en")
