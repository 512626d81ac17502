"""The length statistics and question prefixes of a refresh's carried documents, so that
``stats.json`` describes the whole release, carried rows included (NLQuAD Tables 2 and 3).

* From each carried row: its question prefixes and the per-question values a row holds
  (``lengths.ROW_METRICS``: answer words and paragraphs, question words).
* From each carried document's sidecar line: the per-document values and the sentences of
  each answer, which no single row gives (``transforms.nlquad.lengths`` says why).

Both are computed by the same functions ``ExtractQuestionAnswers`` uses for this run's
documents, so a refresh of unchanged inputs has the statistics of a full rebuild. The stage
counts (pages read, parsed, questions found...) stay this run's work.

Carried rows come as Arrow data (a ``CarriedRows`` reference per previous file), carried
documents as one ``carried_summary.CarriedSummary``: their prefixes and values are counted
where they are read, and each distinct one is emitted once with its count (a tally of
``count``, a histogram part ``(metric, {value: frequency})``; a metric with a single value
seen once as that value), not one element per row and value. ``PartialHistogramFn``
takes both such parts and the single values ``ExtractQuestionAnswers`` emits, and gives the
histograms the single values would.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

import apache_beam as beam

from filters.text.stats import question_prefixes
from transforms.core.accounting import SIDE_OUTPUTS, tally
from transforms.nlquad.carried_summary import summarize
from transforms.nlquad.counters import FIRST_TWO_WORDS, FIRST_WORD
from transforms.nlquad.lengths import histogram_entries, row_lengths
from transforms.nlquad.stages import ExtractQuestionAnswers, prefix_tallies
from transforms.release.accounting import HistogramFn
from transforms.release.batch_rows import carried_table, is_batch

STATS = ExtractQuestionAnswers.STATS
#: what ``_row_stats`` reads of a row (``row_lengths`` and the question's prefixes)
ROW_COLUMNS = ["question", "answer_word_start", "answer_word_end", "answer_paragraphs"]


def _histogram_parts(entries: Counter[tuple[str, int]]):
    """Counted entries as ``STATS``, one per metric: ``(metric, {value: frequency})``, or
    ``(metric, value)`` as extraction emits it when the metric has one value seen once."""
    parts: dict[str, dict[int, int]] = {}
    for (metric, value), count in entries.items():
        parts.setdefault(metric, {})[value] = count
    for metric, part in sorted(parts.items()):
        yield beam.pvalue.TaggedOutput(STATS, _entry(metric, part))


def _entry(metric: str, part: dict[int, int]) -> tuple[str, Any]:
    """A histogram part as ``STATS`` carries it (see ``_histogram_parts``)."""
    if len(part) == 1 and next(iter(part.values())) == 1:
        return metric, next(iter(part))
    return metric, part


def _row_stats(split_rows: tuple[str, Any]):
    """The prefix tallies and row histogram entries of a carried row, or of each row of
    carried Arrow data (a batch or ``CarriedRows``: only ``ROW_COLUMNS`` are read), counted
    and emitted once per distinct one (see the module docstring)."""
    split, rows = split_rows
    if not is_batch(rows):
        yield from prefix_tallies(rows["question"])
        for entry in histogram_entries(split, row_lengths(rows)):
            yield beam.pvalue.TaggedOutput(STATS, entry)
        return
    prefixes: Counter[tuple[str, str]] = Counter()
    entries: Counter[tuple[str, int]] = Counter()
    for row in carried_table(rows, ROW_COLUMNS).to_pylist():
        first_word, first_two_words = question_prefixes(row["question"])
        prefixes[FIRST_WORD, first_word or "<empty>"] += 1
        prefixes[FIRST_TWO_WORDS, first_two_words or "<empty>"] += 1
        entries.update(histogram_entries(split, row_lengths(row)))
    for (stage, name), count in sorted(prefixes.items()):
        yield tally(stage, name, count)
    yield from _histogram_parts(entries)


def _summary_stats(histograms: dict[str, Counter[int]]) -> Iterator[tuple[str, Any]]:
    """The carried documents' histogram parts (``CarriedSummary.histograms``)."""
    for metric, histogram in sorted(histograms.items()):
        yield _entry(metric, dict(histogram))


class PartialHistogramFn(HistogramFn):
    """``HistogramFn`` whose inputs are single values or parts ``{value: frequency}``."""

    def add_input(self, accumulator, value):
        if isinstance(value, Mapping):
            accumulator.update(value)
            return accumulator
        return super().add_input(accumulator, value)


class CarriedStats(beam.PTransform):
    """``rows`` (the carried ``(split, row)``, ``Carry.carried_rows``) and ``carried`` (the
    carried documents, read through their ``carried_summary.summarize``) -> ``([tagged
    results with the prefix tallies], histogram entries and parts)`` of the carried ones."""

    def __init__(self, carried):
        super().__init__()
        self.carried = carried

    def expand(self, rows):
        by_row = rows | "RowStats" >> beam.FlatMap(_row_stats).with_outputs(
            *SIDE_OUTPUTS, STATS, main="main")
        by_document = summarize(self.carried, "histograms") | "DocumentStats" >> beam.FlatMap(
            _summary_stats)
        stats = ((by_row[STATS], by_document)
                 | "CarriedHistogramEntries" >> beam.Flatten())
        return [by_row], stats
