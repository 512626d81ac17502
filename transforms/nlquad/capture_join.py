"""The one join of an NLQuAD refresh: what becomes of each capture this run has.

This run's units, the previous sidecar's documents (``transforms.nlquad.sidecar``) and its
skipped captures (``transforms.nlquad.outcomes``) are keyed by capture id (URL and
timestamp) and grouped once; ``decide`` then settles every unit of an id:

* a unit with the digest of the id's document is carried: the document is emitted once
  (``DOCUMENTS``, as the sidecar line it was read from; counted as ``carried.documents``
  by their ``carried_summary``; its rows, if any, are carried by ``Carry.finish``, which
  reads the unit keys, ``UNIT_KEYS``), and the unit is neither fetched nor parsed;
* a page (not a Wayback capture) with the digest of a skipped capture of the id is counted
  and rejected as the parser did (``outcomes.carried_skip``), and the outcome is emitted
  (``SKIPPED``) to be written again;
* any other unit is fresh (the main output, ``(asset key, unit)``): only then is its asset
  key worked out (``capture_of``), so a carried page's URL is not classified.

Every unit's key (``capture_keys.unit_key``: the id when its digest is the document's, else
the id and its digest) goes to ``UNIT_KEYS`` with its count, once per distinct key. A unit
whose key has previous rows always has its id's document (the sidecar lists every document
with rows), so this one grouping decides what ``Carry.fresh`` and a second join against
the carried documents decided before.

**Batches.** Nearly every unit of a refresh is carried, and a carried capture is a few
dictionary lookups; sent through the grouping one by one, each unit, document and skipped
capture would cost its own coding and grouping (measured on 2 cores: 3.1-3.3 s of CPU for
the 10,500 pages, 8,000 documents and 1,442 skipped captures of the refresh benchmark,
against 2.3-2.5 s in batches). So the three sides travel in batches (``Batch``): the items of one
bucket (``bucket_of``: a stable hash of the capture id, ``BUCKETS`` of them), pickled in one
piece, at most ``MAX_BATCH`` items each (``Batcher``). The grouping is by bucket, and
``decide_bucket`` groups a bucket's items by capture id in plain Python. A bucket holds
the units of ``1 / BUCKETS`` of the run's captures and their documents (the sidecar read
keeps only documents of this run's captures, ``WANTED``), so its memory is bounded by the
run, not by the previous release.
"""

from __future__ import annotations

import pickle
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import apache_beam as beam
from apache_beam.transforms.window import GlobalWindow
from apache_beam.utils.timestamp import MIN_TIMESTAMP
from apache_beam.utils.windowed_value import WindowedValue

from transforms.core.accounting import TALLY
from transforms.nlquad.capture_keys import SEPARATOR, capture_id, unit_key
from transforms.nlquad.carried_summary import CarriedSummary, add_document
from transforms.nlquad.outcomes import carried_skip, keyed_outcomes
from transforms.nlquad.sidecar import keyed_documents
from transforms.release.refresh.carry import SPREAD_FILES
from transforms.sources.pages import CapturedPage

UNITS, DOCUMENTS, SKIPPED = "units", "documents", "skipped"  # the three sides
UNIT_KEYS = "unit_keys"  # (unit key, count) of this run's units, for Carry.finish
SUMMARIES = "summaries"  # a bucket's CarriedSummary of the documents it carries
WANTED = "wanted"  # frozensets of this run's capture ids: the sidecar documents to read
BUCKETS = 32  # groups of the join: its parallelism, and 1/BUCKETS of the run in each
MAX_BATCH = 2_000  # items pickled in one Batch at most


def bucket_of(key: str) -> int:
    """The bucket of a capture id: the same in every process (CRC-32, not ``hash``)."""
    return zlib.crc32(key.encode("utf-8", "surrogatepass")) % BUCKETS


class Batch(NamedTuple):
    """Items of one side of one bucket, pickled in one piece: ``(capture id, ...)`` tuples."""

    side: str
    data: bytes

    @classmethod
    def of(cls, side: str, items: list[tuple]) -> Batch:
        return cls(side, pickle.dumps(items, pickle.HIGHEST_PROTOCOL))

    def items(self) -> list[tuple]:
        return pickle.loads(self.data)


class Batcher:
    """Items sorted into their bucket's list; ``add`` gives back a full bucket's
    ``(bucket, Batch)`` (``MAX_BATCH`` items), ``drain`` every other one."""

    def __init__(self, side: str):
        self.side = side
        self.buckets: dict[int, list[tuple]] = {}

    def add(self, item: tuple) -> tuple[int, Batch] | None:
        bucket = bucket_of(item[0])
        items = self.buckets.setdefault(bucket, [])
        items.append(item)
        if len(items) < MAX_BATCH:
            return None
        del self.buckets[bucket]
        return bucket, Batch.of(self.side, items)

    def drain(self) -> Iterator[tuple[int, Batch]]:
        buckets, self.buckets = self.buckets, {}
        for bucket, items in sorted(buckets.items()):
            yield bucket, Batch.of(self.side, items)


def batched(side: str, items: Iterable[tuple]) -> Iterator[tuple[int, Batch]]:
    """``(bucket, Batch)`` of ``items`` (``(capture id, ...)`` tuples)."""
    batcher = Batcher(side)
    for item in items:
        full = batcher.add(item)
        if full is not None:
            yield full
    yield from batcher.drain()


def _read_batches(item: tuple[str, str], release: Any, wanted: list[frozenset[str]]):
    """``(bucket, Batch)`` of one file of the previous release: a sidecar file's documents
    of the ``WANTED`` capture ids only, or a skipped-capture file's outcomes."""
    side, name = item
    if side == DOCUMENTS:
        return batched(side, keyed_documents(name, release, frozenset().union(*wanted)))
    return batched(side, keyed_outcomes(name, release))


class ReadBatches(beam.PTransform):
    """``(bucket, Batch)`` of the previous release's sidecar ``documents`` (the ``DOCUMENTS``
    side: only those of this run's capture ids, ``wanted``, the side input of ``KeyUnits``'
    ``WANTED`` output as ``AsList``) and ``skipped`` captures (``SKIPPED``), read in one step
    (release-relative files; spread over the workers by ``Create``'s Reshuffle past
    ``SPREAD_FILES``)."""

    def __init__(self, release: Any, documents: list[str], skipped: list[str], wanted: Any):
        super().__init__()
        self.release, self.wanted = release, wanted
        self.files = [*((DOCUMENTS, name) for name in documents),
                      *((SKIPPED, name) for name in skipped)]

    def expand(self, pbegin):
        return (pbegin
                | "Files" >> beam.Create(self.files, reshuffle=len(self.files) > SPREAD_FILES)
                | "Read" >> beam.FlatMap(_read_batches, self.release, self.wanted))


def _windowed(value: Any) -> WindowedValue:
    return WindowedValue(value, MIN_TIMESTAMP, (GlobalWindow(),))


class KeyUnits(beam.DoFn):
    """unit -> ``(bucket, Batch)`` of ``(capture id, digest, unit)``, and the bundle's
    capture ids to ``WANTED`` (one frozenset per bundle): ``prepare`` (e.g.
    ``page_reload.light_page``) is applied to the unit first; a page's id and digest are its
    own (the digest computed as it was read), any other unit's come from ``capture_of`` (its
    ``refresh.UnitCapture``). A refresh runs in the global window, where the batches of a
    bundle are emitted as it finishes."""

    def __init__(self, capture_of: Callable[[Any], Any],
                 prepare: Callable[[Any], Any] | None = None):
        self.capture_of = capture_of
        self.prepare = prepare

    def start_bundle(self) -> None:
        self.batcher = Batcher(UNITS)
        self.wanted: set[str] = set()

    def process(self, unit):
        if self.prepare is not None:
            unit = self.prepare(unit)
        if isinstance(unit, CapturedPage):
            url, timestamp, digest = unit.url, unit.timestamp, unit.payload_digest()
        else:
            url, timestamp, digest, _ = self.capture_of(unit)
        key = capture_id(url, timestamp)
        self.wanted.add(key)
        full = self.batcher.add((key, digest, unit))
        if full is not None:
            yield full

    def finish_bundle(self):
        for full in self.batcher.drain():
            yield _windowed(full)
        if self.wanted:
            yield beam.pvalue.TaggedOutput(WANTED, _windowed(frozenset(self.wanted)))
        self.wanted = set()


def decide_bucket(item: tuple[int, Iterable[Batch]], capture_of: Callable[[Any], Any]):
    """``decide`` for every capture id of one bucket's batches that has a unit, in id
    order. A carried document (a ``sidecar.SidecarDocument``) goes to ``DOCUMENTS`` as the
    ``(capture id, line)`` ``sidecar.WriteSidecar`` writes again as it was read; the
    documents it carries are also summed up in one ``CarriedSummary``
    (``SUMMARIES``, none when it carries none), which the stages read in place of the
    documents (``carried_summary.summarize``), and its tallies (those of the skipped pages
    it carries) are emitted once per name with their sum."""
    _, batches = item
    units: dict[str, list[tuple[str, Any]]] = {}
    documents: dict[str, list[Any]] = {}
    skipped: dict[str, list[Any]] = {}
    for batch in batches:
        if batch.side == UNITS:
            for key, digest, unit in batch.items():
                units.setdefault(key, []).append((digest, unit))
        else:
            found = documents if batch.side == DOCUMENTS else skipped
            for key, value in batch.items():
                found.setdefault(key, []).append(value)
    summary, tallies = CarriedSummary(), Counter()
    for key in sorted(units):
        for output in decide(key, units[key], documents.get(key, ()), skipped.get(key, ()),
                             capture_of):
            tag = output.tag if isinstance(output, beam.pvalue.TaggedOutput) else None
            if tag == TALLY:
                name, count = output.value
                tallies[name] += count
                continue
            if tag == DOCUMENTS:  # a SidecarDocument: summed up, and written as its line
                add_document(summary, output.value.document)
                output = beam.pvalue.TaggedOutput(DOCUMENTS, (key, output.value.line))
            yield output
    for name, count in sorted(tallies.items()):
        yield beam.pvalue.TaggedOutput(TALLY, (name, count))
    if summary.documents:
        yield beam.pvalue.TaggedOutput(SUMMARIES, summary)


def decide(key: str, units: list[tuple[str, Any]], documents: Iterable[Any],
           skipped_outcomes: Iterable[Any], capture_of: Callable[[Any], Any]):
    """What becomes of the ``(digest, unit)`` of one capture id, given the id's previous
    documents and skipped outcomes (see the module docstring); ``capture_of`` gives a fresh
    unit's ``refresh.UnitCapture`` (its asset key)."""
    documents = list(documents)
    previous = documents[0].digest if documents else None
    skipped = {}
    for outcome in sorted(skipped_outcomes, key=lambda outcome: outcome.sort_key()):
        skipped.setdefault(outcome.digest, outcome)
    url, _, timestamp = key.rpartition(SEPARATOR)  # no timestamp has a tab
    keys: Counter[str] = Counter()
    carried = False
    for digest, unit in units:
        keys[unit_key(url, timestamp, digest, previous)] += 1
        if digest == previous:
            carried = True
        elif digest in skipped and isinstance(unit, CapturedPage):
            yield from carried_skip(unit, skipped[digest])
            yield beam.pvalue.TaggedOutput(SKIPPED, skipped[digest])
        else:
            yield capture_of(unit).asset_key, unit
    if carried:
        for document in documents:
            yield beam.pvalue.TaggedOutput(DOCUMENTS, document)
    for unit_key_, count in keys.items():
        yield beam.pvalue.TaggedOutput(UNIT_KEYS, (unit_key_, count))
