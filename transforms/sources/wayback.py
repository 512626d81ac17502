"""Beam source of BBC News article captures from the Wayback Machine.

1. ``ListCdxCaptures``: page through the CDX API (status 200 text/html and revisit records,
   one capture per urlkey) for ``bbc.co.uk/news/`` and ``bbc.com/news/`` within the years
   asked. Every row is counted (``cdx.rows_read``): listed (revisits also as
   ``cdx.revisits_listed``), skipped as an adjacent duplicate, or malformed
   (``cdx.malformed.<reason>``, dead-lettered; the listing goes on).
2. Keep article URLs only (others counted by kind) and one capture per article asset key
   (``http``/``https``, ``bbc.com``/``bbc.co.uk``, ``/amp/`` and query variants collapse);
   the earliest non-AMP capture wins, the one nearest to publication.
3. ``FetchCaptures``: fetch raw captures (``id_`` URLs, no banner) with a bounded global rate:
   captures are keyed onto ``fetch_workers`` keys so at most that many fetchers run, each
   limited to ``fetches_per_minute / fetch_workers`` (``WaybackPolicy.per_fetcher``).
   Retries, 429 pauses, the request limits (``timeout``, ``deadline``, ``max_redirects``,
   ``max_body_bytes``, ``max_decoded_bytes``) and the on-disk cache (re-runs never refetch,
   a crashed run resumes) live in ``transforms.clients.wayback``. A capture or CDX page
   that fails for good (e.g. ``body_too_large``, ``capture_redirected``, ``excluded``,
   ``archived_error``, ``resume_key_cycle``, ``retry_budget_exhausted``) is tallied as
   ``<stage>.failed.<kind>`` and dead-lettered with its ``kind``. A redirected capture the
   policy accepts is kept under its own timestamp (``fetch.redirected_captures_kept``).
   Every wait is tallied: ``<stage>.retry_waits``, ``retry_wait_seconds`` and
   ``throttle_wait_seconds``.

``ListWaybackArticles`` is steps 1-2 and ``FetchWaybackCaptures`` step 3, so a caller can
drop the captures it already has between them (a refresh fetches nothing it carries);
``ReadWaybackPages`` is the two in a row. A fetched page keeps its CDX digest (an accepted
redirected capture whose payload differs: its own, computed from the payload).

The DoFns hold a frozen ``WaybackPolicy`` (rates, cache, limits; its defaults are the only
ones); clients are built from it in ``DoFn.setup()`` (sessions are not picklable), with Beam's
filesystems as the cache storage when ``cache_dir`` is remote (``gs://...``), and so is a
``ConsecutiveFailures`` (``transforms.clients.breaker``): ``failure_limit`` CDX queries or
captures in a row lost to connection failures stop the run (``EndpointFailing``; 0 never
stops). ``cdx_endpoint`` is what the check before the job asks.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

import apache_beam as beam

from filters.bbc.urls import classify_bbc_url
from transforms.clients.breaker import ConsecutiveFailures, EndpointFailing
from transforms.clients.preflight import Endpoint
from transforms.clients.wayback import (
    CdxCapture,
    WaybackClient,
    WaybackError,
    WaybackPolicy,
    bbc_cdx_queries,
)
from transforms.clients.wayback.cdx import CdxBadRow, CdxDuplicate
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, rejected, tally
from transforms.core.beam_storage import beam_storage_for
from transforms.core.progress import Progress
from transforms.sources.counters import (
    BEYOND_MAX_CAPTURES,
    CACHE_HITS,
    CDX,
    CDX_ADJACENT_DUPLICATES,
    CDX_CAPTURES_LISTED,
    CDX_DUPLICATE_ARTICLE_URLS,
    CDX_FAILED,
    CDX_MALFORMED,
    CDX_REVISITS_LISTED,
    CDX_ROWS_READ,
    CDX_SKIPPED,
    DIGEST_MISMATCH_KEPT,
    FETCH,
    FETCH_FAILED,
    FETCHED,
    HTTP_TALLIES,
    INPUT_PAGES,
    REDIRECTED_CAPTURES_KEPT,
    RETRIES,
)
from transforms.sources.counters import CAPTURES_LISTED as CAPTURES_LISTED
from transforms.sources.counters import MALFORMED as MALFORMED
from transforms.sources.counters import ROWS_READ as ROWS_READ
from transforms.sources.counters import SKIPPED_ADJACENT_DUPLICATE as SKIPPED_ADJACENT_DUPLICATE
from transforms.sources.pages import CapturedPage

# CAPTURES_LISTED, MALFORMED, ROWS_READ and SKIPPED_ADJACENT_DUPLICATE, the names of the ``cdx``
# stage's tallies (rows_read = captures_listed + skipped.adjacent_duplicate + malformed.<reason>),
# are declared in ``transforms.sources.counters`` and re-exported here.

DEFAULT_POLICY = WaybackPolicy()


def cdx_endpoint(base_url: str, timeout: tuple[float, float] = (10.0, 60.0),
                 option: str = "") -> Endpoint:
    """What the check before the job asks: one line of the CDX listing of the BBC News
    front page (the captures are fetched from the same host)."""
    return Endpoint("the Wayback Machine CDX API", f"{base_url.rstrip('/')}/cdx/search/cdx",
                    (("url", "bbc.co.uk/news/"), ("limit", "1"), ("output", "json")), option,
                    timeout)


class _WaybackDoFn(beam.DoFn):
    """A DoFn owning one WaybackClient per worker (sessions are built in ``setup``) of
    ``base_url`` under ``policy``; ``sleep`` is the clock of its waits (tests inject one);
    ``failure_limit`` items in a row lost to connection failures stop the run."""

    UNIT = "requests"

    def __init__(self, base_url: str, policy: WaybackPolicy,
                 sleep: Callable[[float], Any] = time.sleep, failure_limit: int = 0):
        self.base_url = base_url
        self.policy = policy
        self.sleep = sleep
        self.failure_limit = failure_limit

    def setup(self):
        storage = beam_storage_for(self.policy.cache_dir)
        self._client = WaybackClient(self.base_url, self.policy, sleep=self.sleep,
                                     cache_storage=storage)
        self._progress = Progress(f"{self.STAGE} items", 10.0)
        self._breaker = ConsecutiveFailures(f"the Wayback Machine at {self.base_url}",
                                            self.failure_limit, self.UNIT)

    def teardown(self):
        self._client.close()

    def _client_tallies(self, before: dict[str, int]):
        """HTTP requests made and rate-limit pauses taken while handling one element."""
        for name, counter in HTTP_TALLIES[self.STAGE].items():
            delta = self._client.stats.get(name, 0) - before.get(name, 0)
            if delta:
                yield tally(counter, delta)


class ListCdxCaptures(_WaybackDoFn):
    """CDX query dict -> CdxCapture of every listed capture (article or not).

    Every row the archive returns counts once as ``cdx.rows_read`` and ends as exactly one of:
    listed (``cdx.captures_listed``), an adjacent duplicate (``cdx.skipped.adjacent_duplicate``)
    or a malformed row (``cdx.malformed.<reason>``, dead-lettered with an ASCII excerpt of the
    row, its page and index); the listing reads on. A query whose listing fails for good (a
    page that cannot be read, e.g. ``bad_cdx_response``) is ``cdx.failed.<kind>`` and
    dead-lettered; the other queries go on.
    """

    STAGE = CDX
    UNIT = "CDX queries"

    def process(self, query: dict):
        listed, before = 0, dict(self._client.stats)
        try:
            for entry in self._watched(self._client.iter_cdx_entries(**query)):
                yield tally(CDX_ROWS_READ)
                if isinstance(entry, CdxCapture):
                    listed += 1
                    self._progress.tick()
                    yield tally(CDX_CAPTURES_LISTED)
                    if entry.is_revisit:
                        yield tally(CDX_REVISITS_LISTED)
                    yield entry
                elif isinstance(entry, CdxDuplicate):
                    yield tally(CDX_ADJACENT_DUPLICATES)
                else:
                    yield from self._malformed(query, entry)
        except WaybackError as error:
            yield tally(CDX_FAILED.member(error.kind))
            yield dead_letter(self.STAGE, error, url=query.get("url", ""), timestamp="",
                              source="cdx", kind=error.kind,
                              detail=f"listing stopped after {listed} captures")
        yield from self._client_tallies(before)

    def _watched(self, entries):
        """The entries of one query; its outcome tells the breaker whether the archive
        answers (``EndpointFailing`` once it is down)."""
        self._progress.start()
        try:
            yield from entries
        except Exception as error:
            self._breaker.failure(error)
            raise
        self._breaker.success()

    def _malformed(self, query: dict, bad_row: CdxBadRow):
        yield tally(CDX_MALFORMED.member(bad_row.reason))
        yield dead_letter(self.STAGE, f"{bad_row.reason}: {bad_row.detail}",
                          url=query.get("url", ""), timestamp="", source="cdx",
                          reason=bad_row.reason, row=bad_row.row, page=bad_row.page,
                          index=bad_row.index)


def _classify(capture: CdxCapture):
    url_class = classify_bbc_url(capture.original)
    if not url_class.is_article:
        yield tally(CDX_SKIPPED.member(url_class.kind))
        return
    yield (url_class.asset_key, (int(url_class.is_amp), capture.timestamp, capture.original,
                                 capture))


def _pick_capture(item):
    asset_key, candidates = item
    ordered = sorted(candidates, key=lambda c: c[:3])
    for _ in ordered[1:]:
        yield tally(CDX_DUPLICATE_ARTICLE_URLS)
    yield asset_key, ordered[0][3]


def _fetch_key(asset_key: str, workers: int) -> int:
    return int(hashlib.sha256(asset_key.encode()).hexdigest()[:8], 16) % max(1, workers)


class FetchCaptures(_WaybackDoFn):
    """``(worker key, [CdxCapture])`` -> CapturedPage, fetched sequentially per key."""

    STAGE = FETCH
    UNIT = "captures"

    def process(self, item):
        _, captures = item
        before = dict(self._client.stats)
        yield from self._fetch_all(captures)
        yield from self._client_tallies(before)

    def _fetch_all(self, captures):
        for capture in sorted(captures, key=lambda c: (c.original, c.timestamp)):
            try:
                result = self._fetch_one(capture)
            except EndpointFailing:
                raise  # the archive is down: the run stops
            except WaybackError as error:
                yield tally(FETCH_FAILED.member(error.kind))
                yield dead_letter(self.STAGE, error, url=capture.original,
                                  timestamp=capture.timestamp, source="wayback",
                                  kind=error.kind)
                continue
            except Exception as error:  # noqa: BLE001 - one bad capture must not stop the job
                yield dead_letter(self.STAGE, error, url=capture.original,
                                  timestamp=capture.timestamp, source="wayback")
                continue
            yield tally(CACHE_HITS if result.from_cache else FETCHED)
            if result.attempts > 1:
                yield tally(RETRIES, result.attempts - 1)
            if result.digest_ok is False:
                yield tally(DIGEST_MISMATCH_KEPT)
                yield rejected("digest_mismatch", {"url": capture.original,
                                                   "timestamp": capture.timestamp})
            if result.redirected:
                yield tally(REDIRECTED_CAPTURES_KEPT)
            yield tally(INPUT_PAGES)
            # another capture than the listed one: its own timestamp, and its payload's digest
            # (the CDX digest describes the listed capture)
            digest = capture.digest if not result.redirected or result.digest_ok else ""
            yield CapturedPage(capture.original, result.timestamp, result.content, "wayback",
                               result.headers.get("Content-Type", ""), digest)

    def _fetch_one(self, capture):
        """One capture: every outcome is a progress tick (failures too: a run whose every
        fetch fails still shows its pace) and tells the breaker whether the archive
        answers (``EndpointFailing`` once it is down)."""
        self._progress.start()
        try:
            result = self._client.fetch(capture)
        except Exception as error:
            self._progress.tick()
            self._breaker.failure(error)
            raise
        self._progress.tick()
        self._breaker.success()
        return result


class ListWaybackArticles(beam.PTransform):
    """Steps 1-2: the CDX listing of ``from_year``..``to_year``, article URLs only, one capture
    per article asset key (at most ``max_captures``, 0 = all): ``((asset key, CdxCapture),
    [tagged results carrying accounting outputs])``. Nothing is fetched yet, so a caller
    may drop captures it already has (a refresh, ``transforms.nlquad.refresh``).
    ``failure_limit`` queries in a row lost to connection failures stop the run."""

    def __init__(self, base_url: str, from_year: int, to_year: int,
                 policy: WaybackPolicy = DEFAULT_POLICY, max_captures: int = 0,
                 failure_limit: int = 0):
        super().__init__()
        self.base_url = base_url
        self.from_year, self.to_year = from_year, to_year
        self.max_captures = max_captures
        self.policy = policy
        self.failure_limit = failure_limit

    def expand(self, pbegin):
        listed = (pbegin
                  | "CdxQueries" >> beam.Create(bbc_cdx_queries(self.from_year, self.to_year))
                  | "ListCdx" >> beam.ParDo(ListCdxCaptures(
                      self.base_url, self.policy, failure_limit=self.failure_limit))
                  .with_outputs(*SIDE_OUTPUTS, main="main"))
        classified = (listed.main
                      | "ArticleUrls" >> beam.FlatMap(_classify).with_outputs(
                          *SIDE_OUTPUTS, main="main"))
        picked = (classified.main
                  | "GroupByArticle" >> beam.GroupByKey()
                  | "OneCapturePerArticle" >> beam.FlatMap(_pick_capture).with_outputs(
                      *SIDE_OUTPUTS, main="main"))
        chosen = picked.main
        accounting = [listed, classified, picked]
        if self.max_captures:
            limit = self.max_captures
            beyond = (chosen
                      | "CountArticles" >> beam.combiners.Count.Globally()
                      | "BeyondLimit" >> beam.FlatMap(
                          lambda n: [tally(BEYOND_MAX_CAPTURES, n - limit)]
                          if n > limit else []).with_outputs(*SIDE_OUTPUTS, main="main"))
            accounting.append(beyond)
            chosen = (chosen
                      | "FirstCaptures" >> beam.combiners.Top.Smallest(
                          limit, key=lambda kv: kv[0])
                      | "Unlist" >> beam.FlatMap(lambda items: items))
        return chosen, accounting


class FetchWaybackCaptures(beam.PTransform):
    """Step 3: ``(asset key, CdxCapture)`` -> CapturedPage, spread over ``fetch_workers``
    fetchers that share the fetch rate (``WaybackPolicy.per_fetcher``): ``(pages, [tagged
    results carrying accounting outputs])``. ``failure_limit`` captures in a row lost to
    connection failures stop the run."""

    def __init__(self, base_url: str, policy: WaybackPolicy = DEFAULT_POLICY,
                 failure_limit: int = 0):
        super().__init__()
        self.base_url = base_url
        self.fetch_workers = max(1, policy.fetch_workers)
        self.fetch_policy = policy.per_fetcher()
        self.failure_limit = failure_limit

    def expand(self, chosen):
        workers = self.fetch_workers
        fetched = (chosen
                   | "KeyByFetcher" >> beam.Map(lambda kv: (_fetch_key(kv[0], workers), kv[1]))
                   | "GroupByFetcher" >> beam.GroupByKey()
                   | "Fetch" >> beam.ParDo(FetchCaptures(self.base_url, self.fetch_policy,
                                                        failure_limit=self.failure_limit))
                   .with_outputs(*SIDE_OUTPUTS, main="main"))
        return fetched.main, [fetched]


class ReadWaybackPages(beam.PTransform):
    """BBC News article captures of ``from_year``..``to_year`` from the Wayback Machine:
    ``ListWaybackArticles`` then ``FetchWaybackCaptures``.

    ``policy`` (:class:`transforms.clients.wayback.WaybackPolicy`) sets the rates, the
    fetchers, the cache and the limits of every request; each of its ``fetch_workers``
    fetchers gets its share of the fetch rate. ``failure_limit`` items in a row lost to
    connection failures stop the run (0 never stops).
    """

    def __init__(self, base_url: str, from_year: int, to_year: int,
                 policy: WaybackPolicy = DEFAULT_POLICY, max_captures: int = 0,
                 failure_limit: int = 0):
        super().__init__()
        self.base_url = base_url
        self.from_year, self.to_year = from_year, to_year
        self.max_captures = max_captures
        self.failure_limit = failure_limit
        self.cdx_policy = policy
        self.fetch_workers = max(1, policy.fetch_workers)
        self.fetch_policy = policy.per_fetcher()

    def expand(self, pbegin):
        chosen, listed = pbegin | "List" >> ListWaybackArticles(
            self.base_url, self.from_year, self.to_year, self.cdx_policy, self.max_captures,
            self.failure_limit)
        pages, fetched = chosen | "Fetch" >> FetchWaybackCaptures(
            self.base_url, self.cdx_policy, self.failure_limit)
        return pages, [*listed, *fetched]
