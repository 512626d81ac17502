"""A refresh of NLQuAD (``--previous``): which captures this run processes, which documents it
carries, and what the carried ones still take part in.

``NlquadRefresh`` wraps the generic ``Carry`` (``transforms.release.refresh.carry``):

1. ``fresh(units, capture_of)``: the previous release's sidecar (``transforms.nlquad.
   sidecar``) is read with the capture ids of this run's units as a side input: a sidecar
   document of a capture this run has not is dropped as it is read, so the join below holds
   no more documents than the run has units, whatever the sidecar's size. The units, those
   documents and the previous release's skipped captures (``transforms.nlquad.outcomes``)
   are grouped once, in batches of the captures of one bucket of capture ids
   (``transforms.nlquad.capture_join``), which carries a
   unit with its document's digest, carries the outcome of a skipped page with its digest,
   and gives ``Carry`` the unit keys (``Carry.units_keyed``); a fresh unit that is another
   capture of a carried article is dropped too. Only new or changed captures go on: for
   the Wayback source this sits between the CDX listing and the fetch, so a carried
   capture costs no request.
2. ``carried``: the sidecar's documents whose capture this run has, unchanged
   (``carried.documents``); this release's sidecar lists them again, as they were: each
   as the ``(capture id, line)`` read from the previous sidecar, byte for byte
   (``sidecar.WriteSidecar``), not parsed into an object and dumped again.
   Deduplication, the repeated-paragraph count and the statistics take them in as one
   ``CarriedSummary`` (``transforms.nlquad.carried_summary.summarize``: the winner of each
   article and text, the fingerprint counts, the histogram values), a side input, so the
   carried documents are not grouped with this run's articles
   (``stages.DeduplicateArticles``, ``stages.FindRepeatedParagraphs``). The join sums up
   each bucket's carried documents as it carries them (``summaries``), and those partial
   summaries are combined, not the documents one by one.
3. ``finish(rows)``: ``Carry.finish`` adds the carried rows, with their split, and the
   ``refresh.*`` counts; ``CarriedStats`` their length statistics and question prefixes.
   The carried rows are Arrow record batches (``Carry(batch_columns=...)``), never Python
   dicts: ``WriteShards`` writes them with ``sort_column="id"``, and a stage that needs
   dicts (the SQuAD export) reads them with ``batch_rows.batch_rows``.

With unchanged inputs a refresh writes the data files of a full rebuild. When inputs changed
it keeps published rows stable where a full rebuild would not, by these rules:

* deduplication (NLQuAD §3): a carried document always wins. A new capture of its article,
  even one nearer to publication, and a new article with its text, even one published
  earlier, are dropped (``dedup.duplicate_capture_of_carried``,
  ``dedup.duplicate_content_of_carried``), where a rebuild would pick by
  ``filters.nlquad.dedup``;
* templates (NLQuAD §3): the repeated-paragraph count covers carried and new documents
  alike, so a new article is cleaned against the whole corpus; but a carried document is not
  cleaned again when new or removed articles make one of its paragraphs reach (or fall below)
  ``--boilerplate-min-docs``: its context stays as published, where a rebuild would change it;
* a page the parser skipped (by URL or by a parse skip reason) is recorded with its digest
  and outcome (``transforms.nlquad.outcomes``); a page of this run with the same URL,
  timestamp and digest is joined to it in the same grouping as the documents, and counted
  and rejected as the parser did, not parsed again (``carried.skipped_pages``; this release
  lists it again). A Wayback capture is not: it is fetched and parsed again;
* a capture that made no kept document and was not skipped (a text duplicate, a dead letter)
  is read, and with ``--source wayback`` fetched (from ``--cache-dir`` when that is kept),
  and parsed again at every refresh, with the same outcome.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import apache_beam as beam

from filters.bbc.urls import classify_bbc_url
from transforms.clients.wayback import CdxCapture
from transforms.core.accounting import SIDE_OUTPUTS, rejected, tally
from transforms.nlquad.capture_join import (
    DOCUMENTS,
    SKIPPED,
    SUMMARIES,
    UNIT_KEYS,
    WANTED,
    KeyUnits,
    ReadBatches,
    decide_bucket,
)
from transforms.nlquad.capture_keys import KEY_COLUMNS, row_key
from transforms.nlquad.carried_stats import CarriedStats
from transforms.nlquad.carried_summary import Kept, summarize
from transforms.nlquad.counters import DOCUMENTS_CARRIED, DUPLICATE_CAPTURE_OF_CARRIED
from transforms.nlquad.outcomes import outcome_files
from transforms.nlquad.sidecar import PREFIX, sidecar_files
from transforms.release.refresh.carry import Carry, ParquetKeys
from transforms.release.refresh.previous import PreviousRelease, RefreshRefused
from transforms.sources.pages import CapturedPage, cdx_digest

LABEL = "Refresh"  # the steps of Carry
OURS = "Capture"  # the steps of this module


class UnitCapture(NamedTuple):
    """What a refresh needs of a unit before it is fetched or parsed."""

    url: str
    timestamp: str
    digest: str
    asset_key: str  # the article it is a capture of ("" for a page that is no article)


def page_capture(page: CapturedPage) -> UnitCapture:
    """The capture of a page read from a file (``--source sample|html|warc``)."""
    return UnitCapture(page.url, page.timestamp, page.payload_digest(),
                       classify_bbc_url(page.url).asset_key)


def cdx_capture(item: tuple[str, CdxCapture]) -> UnitCapture:
    """The capture of a listed Wayback capture ``(asset key, CdxCapture)``, not fetched."""
    asset_key, capture = item
    return UnitCapture(capture.original, capture.timestamp, cdx_digest(capture.digest),
                       asset_key)


def _other_articles(fresh: tuple[str, Any], captures: dict[str, Kept],
                    capture_of: Callable[[Any], UnitCapture]):
    """The unit of ``(asset key, unit)``, unless it is another capture of a carried article
    (``captures``: asset key -> the carried capture that wins it, ``CarriedSummary``): that
    one is counted and listed as a duplicate instead, unfetched and unparsed."""
    asset_key, unit = fresh
    kept = captures.get(asset_key) if asset_key else None
    if kept is None:
        yield unit
        return
    capture = capture_of(unit)
    yield tally(DUPLICATE_CAPTURE_OF_CARRIED)
    yield rejected("duplicates", {"url": capture.url, "timestamp": capture.timestamp,
                                  "reason": DUPLICATE_CAPTURE_OF_CARRIED.name,
                                  "kept_url": kept[0], "kept_timestamp": kept[1]})


def _documents_carried(documents: int):
    """``carried.documents``: the tally of the documents carried (none when none was)."""
    if documents:
        yield tally(DOCUMENTS_CARRIED, documents)


def require_sidecar(previous: PreviousRelease, recompute_all: bool) -> None:
    """``RefreshRefused`` (exit 2, before any work: ``RefreshRule.check``) for a previous
    release without the sidecar, unless every row is recomputed anyway."""
    if not recompute_all and not sidecar_files(previous):
        raise RefreshRefused(
            f"--previous {previous.label} has no {PREFIX} sidecar (it was built before "
            f"releases recorded their captures' digests), so which captures are "
            f"unchanged cannot be known: pass --recompute-all, or build without "
            f"--previous")


class NlquadRefresh:
    """The refresh steps of one NLQuAD job (see the module docstring); without a previous
    release every method returns what it is given and ``carried`` is None."""

    def __init__(self, pbegin, previous: PreviousRelease | None, recompute_all: bool):
        self.active = previous is not None
        self.carry = Carry(pbegin, previous, row_key, recompute_all=recompute_all,
                           label=LABEL, keys=(None, ParquetKeys(KEY_COLUMNS, row_key)),
                           batch_columns=KEY_COLUMNS)
        self.carried = None
        self.summaries = None
        self.carried_skips = None
        self.results: list = []
        if previous is None:
            return
        require_sidecar(previous, recompute_all)
        self.pbegin, self.release = pbegin, previous.pinned
        self.files = [] if recompute_all else sidecar_files(previous)
        self.outcome_files = [] if recompute_all else outcome_files(previous)

    def fresh(self, units, capture_of: Callable[[Any], UnitCapture],
              prepare: Callable[[Any], Any] | None = None):
        """The units to process: new or changed captures of articles not carried (every
        unit with ``--recompute-all``); sets ``carried`` and ``carried_skips``. ``prepare``
        is applied to every unit first, in the same step as its key (the pages of a refresh
        are made light there: ``page_reload.light_page``); without a previous release the
        units are returned as they are."""
        if not self.active:
            return units
        keyed = units | f"{OURS}KeyUnits" >> beam.ParDo(
            KeyUnits(capture_of, prepare)).with_outputs(WANTED, main="main")
        previous = self.pbegin | f"{OURS}ReadPrevious" >> ReadBatches(
            self.release, self.files, self.outcome_files, beam.pvalue.AsList(keyed[WANTED]))
        decided = ((keyed.main, previous)
                   | f"{OURS}Batches" >> beam.Flatten()
                   | f"{OURS}Join" >> beam.GroupByKey()
                   | f"{OURS}Decide" >> beam.FlatMap(decide_bucket, capture_of).with_outputs(
                       *SIDE_OUTPUTS, DOCUMENTS, SKIPPED, SUMMARIES, UNIT_KEYS, main="main"))
        self.results.append(decided)
        self.carry.units_keyed(decided[UNIT_KEYS])
        self.carried, self.carried_skips = decided[DOCUMENTS], decided[SKIPPED]
        self.summaries = decided[SUMMARIES]
        others = (decided.main
                  | f"{OURS}OtherArticles" >> beam.FlatMap(
                      _other_articles,
                      beam.pvalue.AsSingleton(summarize(self.summaries, "captures")), capture_of)
                  .with_outputs(*SIDE_OUTPUTS, main="main"))
        self.results.append(others)
        return others.main

    def finish(self, fresh_rows) -> tuple[Any, list, list]:
        """``(every (split, row) of the release, [results for WriteAccounting], [histogram
        entries of the carried rows])``."""
        rows, results = self.carry.finish(fresh_rows)
        if not self.active:
            return rows, results, []
        stats_results, stats = (self.carry.carried_rows
                                | f"{OURS}CarriedStats" >> CarriedStats(self.summaries))
        documents = summarize(self.summaries, "documents") | f"{OURS}CountCarried" >> beam.FlatMap(
            _documents_carried).with_outputs(*SIDE_OUTPUTS, main="main")
        return rows, [*results, *self.results, *stats_results, documents], [stats]
