"""A deterministic synthetic Wikipedia-like corpus and NQ-like queries for search benchmarks.

    python benchmarks/search_scale_corpus.py --docs 100000      # generation speed and stats

Same arguments give the same bytes: every block of ``BLOCK`` documents has its own random
stream (``numpy.random.default_rng([seed, block])``), so the output does not depend on the
``batch`` size, the first N documents of a larger corpus are the corpus of N documents, and
``queries`` can regenerate any document without generating the ones before it.

Parameters (``CorpusSpec``) and why:

* Vocabulary: ``vocab_size`` (500,000) word types, lower-case ASCII built from consonant-vowel
  syllables (``ba``, ``tro``, ``kesumi``...): 2+ letters, unique, none of them an English
  stopword of bm25s (``STOPWORDS_EN`` and ``STOPWORDS_EN_PLUS``), all ending in a vowel. Short
  words get the frequent ranks (Zipf's law of abbreviation): 1-syllable words first, then
  2-syllable, then a random sample of 3-syllable words, each tier shuffled.
* Term frequencies: Zipf-Mandelbrot, p(r) ~ 1/(r + q)^s over ranks r = 1..V with s = 1.05 and
  q = 2.7 (Mandelbrot's fit to running English). This gives the top type 3.0% of tokens, the
  top 100 types 35% and the top 10,000 types 74%: English after removing bm25s's 33
  stopwords still has frequent words (he, his, from, which, also, who...) at 0.5-2% each. In
  1M documents every type occurs (the rarest ~35 times); in 10,000 documents ~60% of them.
* Document lengths (body tokens, i.e. after stopword removal): lognormal with median 150 and
  sigma 1.2, clipped to [8, 20,000], so mean ~310, 90th percentile ~700, 99th ~2,400 and a
  few documents per million at the cap. English Wikipedia articles have a mean of roughly
  600-700 words of prose and a much lower median (about half of them are stubs or starts);
  bm25s's stopwords and 1-letter tokens are about a third of running words, which puts the
  content-token median near 150-200 and the mean near 300-450 (the lower end chosen: the
  index sees the article text, not navigation boxes and reference lists).
* Titles: 2-3 words, a unique name first (the document number, scrambled, spelled in
  syllables and ending in ``n``, so it never collides with a vocabulary word) and 1-2 words
  drawn from the Zipf distribution without its top 200 ranks (titles are content words). The
  body starts with the name (a lead sentence names its subject). ``doc_index`` decodes the
  document number from a title or URL.
* Records: the dicts ``transforms.sources.search_corpus.build_index`` takes (url, title,
  kind ``wikipedia``, revision, text = title + body, html). The HTML is
  ``<html><head><title>T</title></head><body><p>BODY</p></body></html>`` whose visible text
  (``visible_text``) is the text; ``html_padding_bytes`` appends an inline
  ``<script type="application/json">`` element of exactly that many bytes (hidden, so the
  text does not change) filled with JSON-like text of vocabulary words that compresses about
  as well as page markup, to vary the size of the stored HTML.
* Queries: 3-6 content words, like NQ questions after stopword removal: 1-3 distinct words
  of a target document's body (drawn among its distinct types, so rare words are well
  represented), its name with probability 0.4 (questions name their entity) and 1-2 common
  words drawn Zipf-weighted from ranks 21-500 (in ~65% down to ~5% of the documents: the
  who/when/first/played of a question), shuffled. No query word is of the top 20 ranks
  (in 70-90% of the documents, like he/his/from, which questions seldom contain). Every
  query matches the document it was drawn from.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

BLOCK = 1000  # documents per independent random stream
DEFAULT_SEED = 20261124
_VOCAB_SEED = 7
_POOL_SEED = 11
_POOL_BYTES = 1 << 22
_QUERY_STREAM = 1 << 40  # keeps query streams apart from corpus blocks
ONSETS = ("b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w",
          "z", "br", "ch", "dr", "fr", "gr", "kr", "pl", "pr", "sh", "st", "th", "tr")
VOWELS = ("a", "e", "i", "o", "u")
SYLLABLES = tuple(o + v for o in ONSETS for v in VOWELS)  # 150
_S = len(SYLLABLES)
_NAME_SPACE = _S ** 3  # names of 3 syllables first (3,375,000), then 4
_NAME_MULT = 1_234_567  # coprime to 150 ** 3: scrambles names within the 3-syllable space
_NAME_UNMULT = pow(_NAME_MULT, -1, _NAME_SPACE)
_SYLLABLE = re.compile(r"([^aeiou]+)([aeiou])")
_URL_PREFIX = "https://en.wikipedia.org/wiki/"


@dataclass(frozen=True)
class CorpusSpec:
    """The corpus's statistics (see the module docstring for why these values)."""

    vocab_size: int = 500_000
    zipf_s: float = 1.05
    zipf_q: float = 2.7
    length_median: float = 150.0
    length_sigma: float = 1.2
    length_min: int = 8
    length_max: int = 20_000
    title_min_rank: int = 200
    query_common_ranks: tuple[int, int] = (21, 500)


def _stopwords() -> frozenset[str]:
    """bm25s's English stopword lists, read from ``bm25s/stopwords.py`` without importing
    the package (whose ``__init__`` loads scipy, 30 MB of the RSS a benchmark measures)."""
    import importlib.util

    spec = importlib.util.find_spec("bm25s")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("bm25s is needed for its English stopword lists")
    path = os.path.join(list(spec.submodule_search_locations)[0], "stopwords.py")
    module_spec = importlib.util.spec_from_file_location("_bm25s_stopwords", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return frozenset(module.STOPWORDS_EN) | frozenset(module.STOPWORDS_EN_PLUS)


@functools.lru_cache(maxsize=4)
def _vocab_arrays(vocab_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The vocabulary (by frequency rank) as one byte buffer of ``word + " "`` pieces, their
    offsets and sizes: ~5 MB, where a tuple of 500,000 Python strings takes ~35 MB."""
    rng = np.random.default_rng(_VOCAB_SEED)
    stop = np.array(sorted(_stopwords()), dtype="S")
    syl = np.array(SYLLABLES, dtype="S3")
    width = 3 * 4
    tiers: list[np.ndarray] = []
    count = 0
    for n_syl in (1, 2, 3, 4):
        space = _S ** n_syl
        need = vocab_size - count
        if need <= 0:
            break
        if space < 10**7:
            picks = np.arange(space, dtype=np.int32)
            rng.shuffle(picks)
            picks = picks[:need + len(stop)].astype(np.int64)
        else:
            picks = rng.choice(space, size=need + len(stop), replace=False)
        tier = syl[picks % _S]
        for _ in range(n_syl - 1):
            picks = picks // _S
            tier = np.char.add(tier, syl[picks % _S])
        tier = tier[~np.isin(tier, stop)][:need].astype(f"S{width}")
        tiers.append(tier)
        count += len(tier)
    words = np.concatenate(tiers)[:vocab_size]
    if len(words) < vocab_size:
        raise ValueError(f"vocab_size {vocab_size} too large")
    grid = np.full((len(words), width + 1), ord(" "), dtype=np.uint8)
    grid[:, :width] = words.view(np.uint8).reshape(len(words), width)
    data = grid[grid != 0]  # each word's letters, then its space (row order kept)
    sizes = (grid != 0).sum(axis=1).astype(np.int64)
    offsets = np.zeros(len(words), dtype=np.int64)
    np.cumsum(sizes[:-1], out=offsets[1:])
    return data, offsets, sizes


def word(word_id: int, vocab_size: int = 500_000) -> str:
    """The word of 0-based rank ``word_id``."""
    data, offsets, sizes = _vocab_arrays(vocab_size)
    start = int(offsets[word_id])
    return data[start:start + int(sizes[word_id]) - 1].tobytes().decode("ascii")


@functools.lru_cache(maxsize=2)
def vocabulary(vocab_size: int = 500_000) -> tuple[str, ...]:
    """Word types by frequency rank (index 0 = rank 1)."""
    data = _vocab_arrays(vocab_size)[0]
    return tuple(data.tobytes().decode("ascii").split(" ")[:-1])


_HEAD = 4096  # ranks sampled from their exact cumulative distribution


@functools.lru_cache(maxsize=8)
def _sampler(vocab_size: int, s: float, q: float, start: int = 0
             ) -> tuple[np.ndarray, float, float, float]:
    """The Zipf-Mandelbrot distribution over ranks ``start + 1 .. vocab_size``: the exact
    cumulative probabilities of the first ranks (up to ``_HEAD``, a table that stays in
    cache), the probability of a rank above them, and the bounds of the tail's continuous
    approximation ``G(x) = (x + q)^(1 - s)`` (rank k covers x in [k - 1/2, k + 1/2); its
    relative error, ~s(s+1)/(24 k^2), is below 1e-7 past rank 4096). A binary search of the
    whole cumulative distribution costs ~100 ns of cache misses per draw."""
    head_end = min(vocab_size, max(_HEAD, start))
    ranks = np.arange(start + 1, head_end + 1, dtype=np.float64)
    head = np.cumsum((ranks + q) ** -s)
    lo, hi = head_end + 0.5, vocab_size + 0.5
    tail = (_g(hi, s, q) - _g(lo, s, q)) if hi > lo else 0.0
    total = head[-1] + tail
    return head / total, float(head[-1] / total), _g(lo, s, q), _g(hi, s, q)


def _g(x, s: float, q: float):
    return np.log(x + q) if s == 1 else (x + q) ** (1 - s) / (1 - s)


def _g_inverse(y, s: float, q: float):
    return np.exp(y) - q if s == 1 else (y * (1 - s)) ** (1 / (1 - s)) - q


def _sample(rng: np.random.Generator, spec: CorpusSpec, size: int, start: int = 0) -> np.ndarray:
    """``size`` word ids (0-based ranks) from the Zipf distribution over ranks > ``start``."""
    s, q = spec.zipf_s, spec.zipf_q
    head, p_head, g_lo, g_hi = _sampler(spec.vocab_size, s, q, start)
    u = rng.random(size)
    out = np.searchsorted(head, u, side="right")
    tail = u >= p_head
    if tail.any():
        y = g_lo + (u[tail] - p_head) / (1 - p_head) * (g_hi - g_lo)
        ranks = np.floor(_g_inverse(y, s, q) + 0.5).astype(np.int64)  # 1-based
        out[tail] = np.clip(ranks, start + len(head) + 1, spec.vocab_size) - 1 - start
    return np.minimum(out, spec.vocab_size - 1 - start) + start


def prepare(spec: CorpusSpec = CorpusSpec()) -> None:
    """Build the generator's tables now (vocabulary, samplers), e.g. before measuring RSS."""
    _vocab_arrays(spec.vocab_size)
    _sampler(spec.vocab_size, spec.zipf_s, spec.zipf_q, 0)
    _sampler(spec.vocab_size, spec.zipf_s, spec.zipf_q, spec.title_min_rank)


def name(index: int) -> str:
    """The unique title name of document ``index`` (lower case)."""
    if index < _NAME_SPACE:
        code, n_syl = index * _NAME_MULT % _NAME_SPACE, 3
    else:
        code, n_syl = index - _NAME_SPACE, 4
        if code >= _S ** 4:
            raise ValueError(f"document index {index} too large")
    parts = []
    for _ in range(n_syl):
        parts.append(SYLLABLES[code % _S])
        code //= _S
    return "".join(parts) + "n"


@functools.lru_cache(maxsize=1)
def _syllable_ids() -> dict[str, int]:
    return {s: i for i, s in enumerate(SYLLABLES)}


def doc_index(title_or_url: str) -> int:
    """The document number of a title (``Bakotun Frelo``) or URL: inverse of ``name``."""
    title = title_or_url.removeprefix(_URL_PREFIX)
    word = re.split(r"[ _]", title, maxsplit=1)[0].lower()
    if not word.endswith("n"):
        raise ValueError(f"not a synthetic title: {title_or_url!r}")
    ids = _syllable_ids()
    found = _SYLLABLE.findall(word[:-1])
    if "".join(o + v for o, v in found) != word[:-1] or len(found) not in (3, 4):
        raise ValueError(f"not a synthetic title: {title_or_url!r}")
    code = 0
    for onset, vowel in reversed(found):
        code = code * _S + ids[onset + vowel]
    if len(found) == 3:
        return code * _NAME_UNMULT % _NAME_SPACE
    return code + _NAME_SPACE


def url(title: str) -> str:
    return _URL_PREFIX + title.replace(" ", "_")


_MARKUP = ('{"class":"mw-parser-output","data-mw":', '"parts":[{"template":{"target":',
           '{"wt":"', '"params":{"1":{"wt":"', '"href":"./', '"rel":"mw:WikiLink",',
           '"typeof":"mw:Transclusion",', '"id":"cite_note-', '"about":"#mwt', '"}},',
           '"i":0}}]},', '"style":"display:none"', '"title":"', '"class":"reference"',
           '"srcset":"//upload.wikimedia.org/wikipedia/commons/thumb/', '.svg.png 2x",',
           '"width":"220","height":"', '"dir":"ltr","lang":"en"', '"data-mw-section-id":',
           '"class":"navbox-list navbox-odd hlist"', '"role":"navigation",', ',"',
           '":', '"class":"citation web cs1"')


@functools.lru_cache(maxsize=2)
def _padding_pool(vocab_size: int) -> str:
    """4 MiB of JSON-like text (no ``<``) that the padding of every page is cut from: 60%
    of its pieces markup-like fragments (Parsoid's attribute names), 40% vocabulary words,
    so it compresses roughly like page HTML (zlib level 1: to ~0.2)."""
    rng = np.random.default_rng(_POOL_SEED)
    words = np.array(vocabulary(vocab_size), dtype=object)
    n = _POOL_BYTES // 8
    ids = _sample(rng, CorpusSpec(vocab_size=vocab_size), n)
    pieces = np.array(_MARKUP, dtype=object)[rng.integers(0, len(_MARKUP), n)]
    is_word = rng.random(n) < 0.4
    pieces[is_word] = words[ids[is_word]] + " "
    text = "".join(pieces.tolist())
    while len(text) < _POOL_BYTES:
        text += text
    return text[:_POOL_BYTES]


_SCRIPT_OPEN = '<script type="application/json">'
_SCRIPT_CLOSE = "</script>"


def _padding(rng: np.random.Generator, count: int, size: int, vocab_size: int) -> list[str]:
    """``count`` hidden ``<script>`` elements of ``size`` bytes each (``""`` when 0)."""
    if size <= 0:
        return [""] * count
    body = max(0, size - len(_SCRIPT_OPEN) - len(_SCRIPT_CLOSE))
    pool = _padding_pool(vocab_size)
    if body > len(pool) // 2:
        pool = pool * (body // len(pool) + 2)
    starts = rng.integers(0, len(pool) - body, BLOCK)[:count]  # whole block: see _draw_block
    out = [_SCRIPT_OPEN + pool[s:s + body] + _SCRIPT_CLOSE for s in starts.tolist()]
    if size < len(_SCRIPT_OPEN) + len(_SCRIPT_CLOSE):  # too small for the element: a comment
        out = ["<!--" + "x" * max(0, size - 7) + "-->"] * count
    return out


@dataclass
class _Block:
    """The random draws of one block of documents (not yet made into strings)."""

    first: int  # global index of the first document
    lengths: np.ndarray  # body tokens per document (the name not counted)
    body: np.ndarray  # concatenated body word ids
    title_words: list[list[int]]
    revisions: np.ndarray
    rng: np.random.Generator  # the block's stream, positioned after the draws above

    def doc_body(self, i: int) -> np.ndarray:
        """Body word ids of the block's ``i``-th document."""
        end = int(self.lengths[:i + 1].sum())
        return self.body[end - int(self.lengths[i]):end]


def _draw_block(block: int, n: int, seed: int, spec: CorpusSpec) -> _Block:
    """The draws of the block's first ``n`` documents: a whole block is always drawn (so a
    document does not depend on the corpus size), then cut to ``n``."""
    rng = np.random.default_rng([seed, block])
    lengths = np.clip(np.rint(rng.lognormal(np.log(spec.length_median), spec.length_sigma,
                                            BLOCK)),
                      spec.length_min, spec.length_max).astype(np.int64)
    n_title = rng.integers(1, 3, BLOCK)
    title_ids = _sample(rng, spec, int(n_title.sum()), start=spec.title_min_rank)
    title_words = [t.tolist() for t in np.split(title_ids, np.cumsum(n_title)[:-1])][:n]
    revisions = rng.integers(100_000_000, 1_300_000_000, BLOCK)[:n]
    body = _sample(rng, spec, int(lengths.sum()))[:int(lengths[:n].sum())]
    return _Block(block * BLOCK, lengths[:n], body, title_words, revisions, rng)


def _gather_text(ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """The bytes of ``word + " "`` for every id in ``ids``, concatenated (vectorised; int32
    positions: a block's text is far below 2 GB)."""
    data, offsets, sizes = _vocab_arrays(vocab_size)
    piece = sizes[ids].astype(np.int32)
    ends = np.cumsum(piece, dtype=np.int32)
    total = int(ends[-1]) if len(ends) else 0
    shift = np.repeat(offsets[ids].astype(np.int32) - (ends - piece), piece)
    shift += np.arange(total, dtype=np.int32)
    return data[shift]


def _block_records(block: int, n: int, seed: int, spec: CorpusSpec,
                   html_padding_bytes: int) -> list[dict[str, Any]]:
    drawn = _draw_block(block, n, seed, spec)
    text_bytes = _gather_text(drawn.body, spec.vocab_size).tobytes()
    # byte offset of the end of each document's body (after its last word's space)
    sizes = _vocab_arrays(spec.vocab_size)[2]
    byte_ends = np.cumsum(sizes[drawn.body])[np.cumsum(drawn.lengths) - 1].tolist()
    padding = _padding(drawn.rng, n, html_padding_bytes, spec.vocab_size)
    records = []
    start = 0
    for i in range(n):
        index = drawn.first + i
        subject = name(index).capitalize()
        title = " ".join([subject] + [word(w, spec.vocab_size).capitalize()
                                     for w in drawn.title_words[i]])
        body = subject + " " + text_bytes[start:byte_ends[i] - 1].decode("ascii")
        start = byte_ends[i]
        records.append({
            "url": url(title), "title": title, "kind": "wikipedia",
            "revision": int(drawn.revisions[i]), "text": title + " " + body,
            "html": (f"<html><head><title>{title}</title></head><body><p>{body}</p>"
                     f"{padding[i]}</body></html>")})
    return records


def iter_records(n_docs: int, seed: int = DEFAULT_SEED, html_padding_bytes: int = 0,
                 batch: int = BLOCK, spec: CorpusSpec = CorpusSpec()
                 ) -> Iterator[dict[str, Any]]:
    """Page records of documents ``0 .. n_docs - 1``, generated ``BLOCK`` at a time (``batch``
    only sets how many are made ready at once, rounded up to whole blocks; the output does
    not depend on it)."""
    for batch_records in iter_batches(n_docs, seed, html_padding_bytes, batch, spec):
        yield from batch_records


def iter_batches(n_docs: int, seed: int = DEFAULT_SEED, html_padding_bytes: int = 0,
                 batch: int = BLOCK, spec: CorpusSpec = CorpusSpec()
                 ) -> Iterator[list[dict[str, Any]]]:
    """``iter_records`` as lists of at least ``batch`` records (the last one shorter)."""
    pending: list[dict[str, Any]] = []
    for block in range((n_docs + BLOCK - 1) // BLOCK):
        n = min(BLOCK, n_docs - block * BLOCK)
        pending.extend(_block_records(block, n, seed, spec, html_padding_bytes))
        if len(pending) >= batch:
            yield pending
            pending = []
    if pending:
        yield pending


def query_targets(n: int, seed: int, n_docs: int, corpus_seed: int = DEFAULT_SEED,
                  spec: CorpusSpec = CorpusSpec()) -> list[tuple[str, int]]:
    """``n`` NQ-like queries and the document number each was drawn from."""
    rng = np.random.default_rng([seed, _QUERY_STREAM])
    words = vocabulary(spec.vocab_size)
    targets = rng.integers(0, n_docs, n)
    n_body = rng.integers(1, 4, n)
    with_name = rng.random(n) < 0.4
    n_frequent = rng.integers(1, 3, n)
    first, last = spec.query_common_ranks  # 1-based, inclusive
    ranks = np.arange(first, last + 1, dtype=np.float64)
    common = np.cumsum((ranks + spec.zipf_q) ** -spec.zipf_s)
    frequent = np.searchsorted(common / common[-1], rng.random(int(n_frequent.sum())),
                               side="right")
    frequent = np.minimum(frequent, len(common) - 1) + first - 1  # 0-based word ids
    frequent_at = np.concatenate([[0], np.cumsum(n_frequent)])
    out: list[tuple[str, int] | None] = [None] * n
    order = np.argsort(targets, kind="stable")
    drawn: _Block | None = None
    for q in order.tolist():
        doc = int(targets[q])
        block = doc // BLOCK
        if drawn is None or drawn.first != block * BLOCK:
            drawn = _draw_block(block, min(BLOCK, n_docs - block * BLOCK), corpus_seed, spec)
        types = np.unique(drawn.doc_body(doc - drawn.first))
        content = types[types >= spec.query_common_ranks[0] - 1]  # not the top-20 words
        types = content if len(content) else types
        picked = rng.choice(types, size=min(int(n_body[q]), len(types)), replace=False)
        terms = [words[w] for w in picked.tolist()]
        if with_name[q]:
            terms.append(name(doc))
        terms += [words[w] for w in frequent[frequent_at[q]:frequent_at[q + 1]].tolist()]
        terms = list(dict.fromkeys(terms))
        if len(terms) < 3:  # top up with the name, then the document's other words
            others = [words[w] for w in rng.permutation(types).tolist()]
            terms = list(dict.fromkeys(terms + [name(doc)] + others))[:3]
        terms = terms[:6]
        rng.shuffle(terms)
        out[q] = (" ".join(terms), doc)
    return [o for o in out if o is not None]


def queries(n: int, seed: int, n_docs: int, corpus_seed: int = DEFAULT_SEED,
            spec: CorpusSpec = CorpusSpec()) -> list[str]:
    """``n`` NQ-like queries (3-6 words) over the corpus of ``n_docs`` documents made with
    ``corpus_seed``; each matches the document it was drawn from."""
    return [q for q, _ in query_targets(n, seed, n_docs, corpus_seed, spec)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--html-padding-bytes", type=int, default=0)
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()
    started = time.perf_counter()
    vocabulary(CorpusSpec().vocab_size)
    vocab_seconds = time.perf_counter() - started
    started = time.perf_counter()
    docs = tokens = text_bytes = html_bytes = 0
    lengths = []
    for record in iter_records(args.docs, args.seed, args.html_padding_bytes):
        docs += 1
        n_tokens = record["text"].count(" ") + 1
        tokens += n_tokens
        lengths.append(n_tokens)
        text_bytes += len(record["text"])
        html_bytes += len(record["html"])
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    made = queries(args.queries, 1, args.docs, args.seed)
    query_seconds = time.perf_counter() - started
    pct = np.percentile(lengths, [50, 90, 99, 100])
    print(f"vocabulary {vocab_seconds:.1f} s; {docs} docs in {seconds:.1f} s "
          f"({docs / seconds:,.0f} docs/s), {tokens:,} tokens (mean {tokens / docs:.0f}, "
          f"p50/p90/p99/max {pct.round().astype(int).tolist()}), text {text_bytes / 1e6:.0f} "
          f"MB, html {html_bytes / 1e6:.0f} MB; {len(made)} queries in {query_seconds:.1f} s, "
          f"e.g. {made[:3]}")


if __name__ == "__main__":
    main()
