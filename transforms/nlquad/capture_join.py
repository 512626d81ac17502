"""The one join of an NLQuAD refresh: what becomes of each capture this run has.

This run's units, the previous sidecar's documents (``transforms.nlquad.sidecar``) and its
skipped captures (``transforms.nlquad.outcomes``) are keyed by capture id (URL and
timestamp) and grouped once (``CoGroupByKey``); ``decide`` then settles every unit of an id:

* a unit with the digest of the id's document is carried: the document is emitted once
  (``DOCUMENTS``, counted as ``carried.documents`` by their ``carried_summary``; its rows, if
  any, are carried by ``Carry.finish``, which reads the unit keys, ``UNIT_KEYS``), and the
  unit is neither fetched nor parsed;
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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import apache_beam as beam

from transforms.nlquad.capture_keys import SEPARATOR, capture_id, unit_key
from transforms.nlquad.outcomes import carried_skip
from transforms.sources.pages import CapturedPage

UNITS, DOCUMENTS, SKIPPED = "units", "documents", "skipped"  # the grouped collections
UNIT_KEYS = "unit_keys"  # (unit key, count) of this run's units, for Carry.finish
WANTED = "wanted"  # (capture id, None) of every unit: the sidecar documents to read


class KeyUnits(beam.DoFn):
    """unit -> ``(capture id, (digest, unit))``, and ``(capture id, None)`` to ``WANTED``, in
    one step: ``prepare`` (e.g. ``page_reload.light_page``) is applied to the unit first; a
    page's id and digest are its own (the digest computed as it was read), any other unit's
    come from ``capture_of`` (its ``refresh.UnitCapture``)."""

    def __init__(self, capture_of: Callable[[Any], Any],
                 prepare: Callable[[Any], Any] | None = None):
        self.capture_of = capture_of
        self.prepare = prepare

    def process(self, unit):
        if self.prepare is not None:
            unit = self.prepare(unit)
        if isinstance(unit, CapturedPage):
            url, timestamp, digest = unit.url, unit.timestamp, unit.payload_digest()
        else:
            url, timestamp, digest, _ = self.capture_of(unit)
        key = capture_id(url, timestamp)
        yield beam.pvalue.TaggedOutput(WANTED, (key, None))
        yield key, (digest, unit)


def decide(item: tuple[str, dict[str, Any]], capture_of: Callable[[Any], Any]):
    """What becomes of the units of one capture id (see the module docstring);
    ``capture_of`` gives a fresh unit's ``refresh.UnitCapture`` (its asset key)."""
    key, grouped = item
    units = list(grouped[UNITS])
    if not units:
        return
    documents = list(grouped[DOCUMENTS])
    previous = documents[0].digest if documents else None
    skipped = {}
    for outcome in sorted(grouped[SKIPPED], key=lambda outcome: outcome.sort_key()):
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
