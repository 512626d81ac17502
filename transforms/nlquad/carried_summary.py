"""What a refresh's carried documents take part in, summed up in one element.

The documents a refresh carries (``transforms.nlquad.refresh``: thousands, every one
unchanged) are not parsed or extracted again, but three stages of this run still need
something of them: deduplication (a new article loses to a carried one of the same article
or text), the repeated-paragraph count (their paragraph fingerprints) and the length
statistics (their per-document values). Sent one by one through those stages, each carried
document would cross a dozen stage boundaries and fan out into ~20 fingerprints and ~20
histogram entries, all grouped again: most of a refresh's Beam element traffic for work that
is a few dictionary updates. ``SummarizeCarried`` (a ``CombineFn``) folds them, as they come
out of the join, into one ``CarriedSummary``:

* ``documents``: how many there are (``carried.documents``, counted here rather than one
  tally per document);
* ``captures`` / ``texts``: per asset key and per text fingerprint, the carried document
  that wins deduplication against any new capture (``filters.nlquad.dedup``'s preference,
  the smallest key), as ``(arguments of its preference, capture URL, capture timestamp)``;
* ``fingerprints``: how many carried documents have each paragraph fingerprint;
* ``histograms``: their per-document histogram entries (``document_entries``), counted per
  metric.

Each of them is what the stages computed from the documents themselves, so the release is
the same bytes; each stage reads the part it needs (``summarize(carried, part)``) as a side
input (``AsSingleton``): one summary per PCollection of carried documents, combined once
whatever the number of stages that read it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import apache_beam as beam

from filters.nlquad.dedup import capture_preference, content_preference
from transforms.nlquad.lengths import ANSWER_SENTENCES, histogram_entries
from transforms.nlquad.sidecar import CapturedDocument
from transforms.release.refresh.combine_one import combine_one

Winner = tuple[tuple, str, str]  # (arguments of its preference, capture URL, timestamp)
Kept = tuple[str, str]  # a winner's capture URL and timestamp, as the parts give it


@dataclass
class CarriedSummary:
    """The carried documents as the stages of this run see them (see the module
    docstring)."""

    documents: int = 0
    captures: dict[str, Winner] = field(default_factory=dict)
    texts: dict[str, Winner] = field(default_factory=dict)
    fingerprints: Counter[str] = field(default_factory=Counter)
    histograms: dict[str, Counter[int]] = field(default_factory=dict)

    def add(self, document: CapturedDocument, entries: list[tuple[str, int]]) -> None:
        """Count one carried document, with its histogram ``entries``."""
        self.documents += 1
        url, timestamp = document.capture_url, document.capture_timestamp
        _keep_best(self.captures, document.asset_key, (
            (document.published, timestamp, document.is_amp, url), url, timestamp),
            capture_preference)
        _keep_best(self.texts, document.text_fingerprint(), (
            (document.published, document.canonical_url), url, timestamp),
            content_preference)
        self.fingerprints.update(document.paragraphs)
        histograms = self.histograms
        for metric, value in entries:
            histogram = histograms.get(metric)
            if histogram is None:  # not setdefault: a Counter made per entry costs 2 µs
                histogram = histograms[metric] = Counter()
            histogram[value] += 1

    def merge(self, other: CarriedSummary) -> None:
        """Add ``other``'s documents."""
        self.documents += other.documents
        for key, winner in other.captures.items():
            _keep_best(self.captures, key, winner, capture_preference)
        for key, winner in other.texts.items():
            _keep_best(self.texts, key, winner, content_preference)
        self.fingerprints.update(other.fingerprints)
        for metric, histogram in other.histograms.items():
            self.histograms.setdefault(metric, Counter()).update(histogram)


def _keep_best(winners: dict[str, Winner], key: str, candidate: Winner,
               preference: Callable[..., tuple]) -> None:
    """Keep ``candidate`` for ``key`` unless the kept one is preferred (the smaller
    ``preference`` of their arguments): computed only when two documents share a key, which
    a release's own documents never do (deduplication kept one of each)."""
    kept = winners.get(key)
    if kept is None or preference(*candidate[0]) < preference(*kept[0]):
        winners[key] = candidate


def document_entries(document: CapturedDocument) -> Iterator[tuple[str, int]]:
    """The histogram entries of a carried document, those ``ExtractQuestionAnswers`` emitted
    for it (none for one without questions)."""
    if not document.questions:
        return
    values = [*document.lengths.items(),
              *((ANSWER_SENTENCES, n) for n in document.answer_sentences)]
    yield from histogram_entries(document.split, values)


def add_document(summary: CarriedSummary, document: CapturedDocument) -> None:
    """Count one carried document, with its histogram entries, in ``summary``."""
    summary.add(document, list(document_entries(document)))


class SummarizeCarried(beam.CombineFn):
    """Carried ``CapturedDocument`` -> their ``CarriedSummary`` (an empty one for none). An
    input may also be the ``CarriedSummary`` of some of them (the refresh's join summarizes
    the documents of a bucket where it carries them: ``capture_join.decide_bucket``)."""

    def create_accumulator(self) -> CarriedSummary:
        return CarriedSummary()

    def add_input(self, accumulator: CarriedSummary,
                  document: CapturedDocument | CarriedSummary) -> CarriedSummary:
        if isinstance(document, CarriedSummary):
            accumulator.merge(document)
        else:
            add_document(accumulator, document)
        return accumulator

    def merge_accumulators(self, accumulators) -> CarriedSummary:
        merged = CarriedSummary()
        for accumulator in accumulators:
            merged.merge(accumulator)
        return merged

    def extract_output(self, accumulator: CarriedSummary) -> CarriedSummary:
        return accumulator


SUMMARY_ATTRIBUTE = "_nlquad_carried_summary"  # where summarize keeps a PCollection's parts
PARTS = ("documents", "captures", "texts", "fingerprints", "histograms")  # CarriedSummary's


def _part(summary: CarriedSummary, name: str) -> Any:
    """A part of ``summary``; of ``captures`` and ``texts`` only the winner's capture URL and
    timestamp (what the stages name), not the preference that chose it."""
    value = getattr(summary, name)
    if name in ("captures", "texts"):
        return {key: (url, timestamp) for key, (_, url, timestamp) in value.items()}
    return value


def summarize(carried, part: str):
    """One part (a field of ``PARTS``) of the ``CarriedSummary`` of ``carried`` documents (or
    of summaries of some of them, ``SummarizeCarried``), a PCollection of one element. The
    summary is combined once per ``carried`` and each part taken once (both kept on
    ``carried``), so that a stage that reads one part as a side input decodes that part
    only, not the fingerprints of every carried document."""
    if part not in PARTS:
        raise ValueError(f"no part {part!r} of a carried summary: {', '.join(PARTS)}")
    parts = getattr(carried, SUMMARY_ATTRIBUTE, None)
    if parts is None:
        summary = combine_one(carried, SummarizeCarried(), "SummarizeCarried")
        parts = {name: summary | f"Carried{name.capitalize()}" >> beam.Map(_part, name)
                 for name in PARTS}
        setattr(carried, SUMMARY_ATTRIBUTE, parts)
    return parts[part]
