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
* any other unit is fresh (the main output, ``(asset key, unit)``).

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


class KeyUnits(beam.DoFn):
    """unit -> ``(capture id, (digest, asset key, unit))`` (``capture_of`` gives its
    ``refresh.UnitCapture``; a page's digest was computed as it was read)."""

    def __init__(self, capture_of: Callable[[Any], Any]):
        self.capture_of = capture_of

    def process(self, unit):
        url, timestamp, digest, asset_key = self.capture_of(unit)
        yield capture_id(url, timestamp), (digest, asset_key, unit)


def decide(item: tuple[str, dict[str, Any]]):
    """What becomes of the units of one capture id (see the module docstring)."""
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
    for digest, asset_key, unit in units:
        keys[unit_key(url, timestamp, digest, previous)] += 1
        if digest == previous:
            carried = True
        elif digest in skipped and isinstance(unit, CapturedPage):
            yield from carried_skip(unit, skipped[digest])
            yield beam.pvalue.TaggedOutput(SKIPPED, skipped[digest])
        else:
            yield asset_key, unit
    if carried:
        for document in documents:
            yield beam.pvalue.TaggedOutput(DOCUMENTS, document)
    for unit_key_, count in keys.items():
        yield beam.pvalue.TaggedOutput(UNIT_KEYS, (unit_key_, count))
