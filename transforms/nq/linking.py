"""Beam stages of NQ stage 2 (NQ §3.1, §4.1): search, the top Wikipedia page, its page, its
long-answer candidates, NQ original-format examples.

* ``LinkQuestions``: the question goes to the search backend; it is kept when a Wikipedia
  article is among the top 5 hits, with the top-ranked one as its document
  (``no_wikipedia_in_top5`` otherwise), and that page passes the relevance floor
  (``filters.nq.relevance_floor``: ``--min-score``, ``--min-margin``; ``below_floor``
  otherwise, with its score and margin in ``rejected/unlinked_questions``).
* ``FetchPages``: questions are grouped by page so each page is fetched once, from the local
  index or the Wikimedia REST API; ``page_missing`` / ``page_redirected`` are named drops.
* ``BuildExamples``: NQ tokens and long-answer candidates of the page, a stable 64-bit
  ``example_id`` and the revision-pinned ``document_url``.

Search clients, page fetchers and indexes are built in ``setup()`` (not picklable), with a
``ConsecutiveFailures`` each (``transforms.clients.breaker``): ``failure_limit`` searches or
pages in a row lost to connection failures stop the run (``EndpointFailing``) instead of
trying every remaining one. Each searched question and each asked page is a progress tick
(``questions searched``, ``pages asked``): these are the slow, network-bound steps.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import apache_beam as beam

from filters.nq.relevance_floor import RelevanceFloor
from filters.nq.search_hits import top_wikipedia_hit, wikipedia_title
from transforms.clients.breaker import ConsecutiveFailures
from transforms.core.accounting import dead_letter, rejected, tally
from transforms.core.counters import CounterFamily
from transforms.core.progress import Progress
from transforms.nq.counters import (
    BELOW_FLOOR,
    BUILT,
    CANDIDATE_TAG,
    EXAMPLES,
    EXAMPLES_DROPPED,
    FETCHED,
    LINKING,
    LINKING_DROPPED,
    NO_CANDIDATES,
    NO_WIKIPEDIA,
    PAGE_FAILED,
    PAGE_MISSING,
    PAGE_REDIRECTED,
    PAGES,
    PAGES_DROPPED,
    SEARCH_FAILED,
    SEARCHED,
    TOP_K,
    wikipedia_rank,
)

NO_FLOOR = RelevanceFloor(0.0, 0.0)  # a LinkQuestions built without --min-score links as NQ did
_REDIRECT = re.compile(r'rel="mw:PageProp/redirect"|<div class="redirectMsg"|'
                       r"^\s*#REDIRECT", re.I)


def _drop(dropped: CounterFamily, row: dict[str, Any], reason: str, **extra: Any):
    yield tally(dropped.member(reason))
    yield rejected("unlinked_questions", {"question": row["question"], "reason": reason,
                                          **extra})


class LinkQuestions(beam.DoFn):
    """``(shard, [question rows])`` -> ``(title, row with the chosen hit)`` or a named drop."""

    STAGE = LINKING

    def __init__(self, make_backend: Callable[[], Any], lang: str, k: int = TOP_K,
                 failure_limit: int = 0, what: str = "the search backend",
                 floor: RelevanceFloor = NO_FLOOR):
        self.make_backend = make_backend
        self.lang = lang
        self.k = k
        self.failure_limit = failure_limit
        self.what = what
        self.floor = floor

    def setup(self):
        self._backend = self.make_backend()
        self._breaker = ConsecutiveFailures(self.what, self.failure_limit, "searches")
        self._progress = Progress("questions searched", None)

    def teardown(self):
        self._backend.close()

    def process(self, shard: tuple[int, list[dict[str, Any]]]):
        """One client serves one shard of questions, in a stable order."""
        self._progress.start()
        for row in sorted(shard[1], key=lambda r: r["question"]):
            yield from self._link(row)
            self._progress.tick()

    def _link(self, row: dict[str, Any]):
        yield tally(SEARCHED)
        try:
            hits = self._backend.search(row["question"], self.k)
        except Exception as error:  # noqa: BLE001 - a failed search drops one question only
            self._breaker.failure(error)  # unless the endpoint is down: the run stops
            yield tally(SEARCH_FAILED.member(getattr(error, "kind", "error")))
            yield dead_letter(self.STAGE, error, question=row["question"])
            return
        self._breaker.success()
        hit = top_wikipedia_hit(hits, self.lang, self.k)
        if hit is None:
            yield from _drop(LINKING_DROPPED, row, NO_WIKIPEDIA,
                             hits=[h.url for h in hits])
            return
        title = wikipedia_title(hit.url, self.lang)
        check = self.floor.check(hit, hits)
        if not check.passed:
            yield from _drop(LINKING_DROPPED, row, BELOW_FLOOR, title=title,
                             score=check.score, margin=check.margin,
                             hits=[h.url for h in hits])
            return
        yield tally(wikipedia_rank(hit.rank))
        yield title, {**row, "search_rank": hit.rank, "search_snippet": hit.snippet,
                      "search_hits": [h.url for h in hits]}


class FetchPages(beam.DoFn):
    """``(shard, [(title, [question rows])])`` -> ``(page, row)`` per question; each page is
    fetched once.

    ``make_fetcher()`` returns an object with ``fetch(title) -> WikiPage`` raising an error
    with a ``kind`` attribute (``page_missing``, ``page_redirected``, HTTP kinds)."""

    STAGE = PAGES

    def __init__(self, make_fetcher: Callable[[], Any], failure_limit: int = 0,
                 what: str = "the page source"):
        self.make_fetcher = make_fetcher
        self.failure_limit = failure_limit
        self.what = what

    def setup(self):
        self._fetcher = self.make_fetcher()
        self._breaker = ConsecutiveFailures(self.what, self.failure_limit, "pages")
        self._progress = Progress("pages asked", None)

    def teardown(self):
        close = getattr(self._fetcher, "close", None)
        if close:
            close()

    def process(self, shard: tuple[int, list[tuple[str, list[dict[str, Any]]]]]):
        """One client serves one shard of pages, in a stable order."""
        self._progress.start()
        for title, rows in sorted(shard[1], key=lambda item: item[0]):
            yield from self._fetch(title, sorted(rows, key=lambda r: r["question"]))
            self._progress.tick()

    def _fetch(self, title: str, rows: list[dict[str, Any]]):
        try:
            page = self._fetcher.fetch(title)
            if _REDIRECT.search(page.html[:20000]):
                raise PageDrop(PAGE_REDIRECTED)
        except Exception as error:  # noqa: BLE001 - one page failing drops its questions
            self._breaker.failure(error)  # unless the endpoint is down: the run stops
            kind = getattr(error, "kind", "error")
            yield tally(PAGE_FAILED.member(kind))
            if kind not in (PAGE_MISSING, PAGE_REDIRECTED):
                yield dead_letter(self.STAGE, error, title=title)
            for row in rows:
                yield from _drop(PAGES_DROPPED, row, kind, title=title)
            return
        self._breaker.success()
        yield tally(FETCHED)
        for row in rows:
            yield page, row


class PageDrop(Exception):
    """A page that exists but cannot be a document (``kind`` names why)."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


class BuildExamples(beam.DoFn):
    """``(page, row)`` -> ``(page, row, tokens, candidates)`` with NQ tokens and candidates.

    Pages are tokenized once per bundle (cache by URL) since several questions share a page.
    """

    STAGE = EXAMPLES

    def __init__(self, tokenize: Callable[[str], tuple[list, list]]):
        self.tokenize = tokenize

    def start_bundle(self):
        self._cache: dict[str, tuple[list, list]] = {}

    def process(self, item):
        page, row = item
        try:
            if page.url not in self._cache:
                self._cache = {page.url: self.tokenize(page.html)}
            tokens, candidates = self._cache[page.url]
        except Exception as error:  # noqa: BLE001 - a page that cannot be tokenized
            yield dead_letter(self.STAGE, error, title=page.title, question=row["question"])
            return
        if not candidates:
            yield from _drop(EXAMPLES_DROPPED, row, NO_CANDIDATES, title=page.title)
            return
        yield tally(BUILT)
        for tag, count in sorted(Counter(c.tag for c in candidates).items()):
            yield tally(CANDIDATE_TAG.member(tag), count)
        yield page, row, tokens, candidates


def shard_of(key: str, shards: int) -> int:
    """Stable shard of a key (SHA-256; independent of the split hash's salt)."""
    return int.from_bytes(hashlib.sha256(f"shard\x00{key}".encode()).digest()[:8], "big") % shards


class LinkAndFetch(beam.PTransform):
    """Question rows -> ``(page, row)`` for questions whose top-5 hits hold a Wikipedia page.

    Searches and page fetches run on ``shards`` keys, one client each, so however many
    workers run, the API sees at most ``shards`` clients, each limited to its share of the
    global rate (``BackendOptions.http.per_minute`` is already divided). ``options`` is a
    ``transforms.nq.backends.BackendOptions``; returns the pairs and the tagged results that
    carry the accounting outputs."""

    def __init__(self, options, lang: str, shards: int = 4):
        super().__init__()
        self.options = options
        self.lang = lang
        self.shards = max(1, shards)

    def expand(self, questions):
        from transforms.core.accounting import SIDE_OUTPUTS

        shards = self.shards
        linked = (questions
                  | "ShardQuestions" >> beam.Map(lambda r: (shard_of(r["question"], shards), r))
                  | "GroupQuestions" >> beam.GroupByKey()
                  | "Link" >> beam.ParDo(LinkQuestions(
                      self.options.make_search, self.lang,
                      failure_limit=self.options.failure_limit,
                      what=self.options.search_what, floor=self.options.floor))
                  .with_outputs(*SIDE_OUTPUTS, main="main"))
        fetched = (linked.main
                   | "GroupByPage" >> beam.GroupByKey()
                   | "ShardPages" >> beam.Map(lambda kv: (shard_of(kv[0], shards), kv))
                   | "GroupPages" >> beam.GroupByKey()
                   | "FetchPages" >> beam.ParDo(FetchPages(
                       self.options.make_fetcher, self.options.failure_limit,
                       self.options.pages_what))
                   .with_outputs(*SIDE_OUTPUTS, main="main"))
        return fetched.main, [linked, fetched]


_LABELS = (
    ("linking", "questions", "questions searched"),
    ("linking", "wikipedia_rank_", "top Wikipedia page at rank "),
    ("linking", "search_failed.", "searches failed, "),
    ("linking", "previously_dropped", "questions not searched again, dropped before"),
    ("pages", "fetched", "pages fetched"),
    ("pages", "failed.", "pages unusable, "),
    ("examples", "built", "examples built"),
)


def summary_label(stage: str, name: str) -> str:
    """Readable summary label of a stage-2 tally."""
    if name.startswith("dropped."):
        return f"questions dropped, {name[len('dropped.'):]}"
    for label_stage, prefix, text in _LABELS:
        if stage == label_stage and name.startswith(prefix):
            return text + name[len(prefix):]
    return f"{stage} {name}"
