"""The length statistics and question prefixes of a refresh's carried documents, so that
``stats.json`` describes the whole release, carried rows included (NLQuAD Tables 2 and 3).

* From each carried row: its question prefixes and the per-question values a row holds
  (``lengths.ROW_METRICS``: answer words and paragraphs, question words).
* From each carried document's sidecar line: the per-document values and the sentences of
  each answer, which no single row gives (``transforms.nlquad.lengths`` says why).

Both are computed by the same functions ``ExtractQuestionAnswers`` uses for this run's
documents, so a refresh of unchanged inputs has the statistics of a full rebuild. The stage
counts (pages read, parsed, questions found...) stay this run's work.
"""

from __future__ import annotations

from typing import Any

import apache_beam as beam

from transforms.core.accounting import SIDE_OUTPUTS
from transforms.nlquad.lengths import ANSWER_SENTENCES, histogram_entries, row_lengths
from transforms.nlquad.sidecar import CapturedDocument
from transforms.nlquad.stages import ExtractQuestionAnswers, prefix_tallies
from transforms.release.batch_rows import carried_table, is_batch

STATS = ExtractQuestionAnswers.STATS
#: what ``_row_stats`` reads of a row (``row_lengths`` and the question's prefixes)
ROW_COLUMNS = ["question", "answer_word_start", "answer_word_end", "answer_paragraphs"]


def _row_stats(split_rows: tuple[str, Any]):
    """The prefix tallies and row histogram entries of a carried row, or of each row of
    carried Arrow data (a batch or ``CarriedRows``: only ``ROW_COLUMNS`` are read)."""
    split, rows = split_rows
    for row in carried_table(rows, ROW_COLUMNS).to_pylist() if is_batch(rows) else [rows]:
        yield from prefix_tallies(row["question"])
        for entry in histogram_entries(split, row_lengths(row)):
            yield beam.pvalue.TaggedOutput(STATS, entry)


def _document_stats(document: CapturedDocument):
    if not document.questions:
        return
    values = [*document.lengths.items(),
              *((ANSWER_SENTENCES, n) for n in document.answer_sentences)]
    for entry in histogram_entries(document.split, values):
        yield beam.pvalue.TaggedOutput(STATS, entry)


class CarriedStats(beam.PTransform):
    """``rows`` (the carried ``(split, row)``, ``Carry.carried_rows``) and ``carried`` (the
    carried documents) -> ``([tagged results with the prefix tallies], histogram entries)``
    of the carried ones."""

    def __init__(self, carried):
        super().__init__()
        self.carried = carried

    def expand(self, rows):
        by_row = rows | "RowStats" >> beam.FlatMap(_row_stats).with_outputs(
            *SIDE_OUTPUTS, STATS, main="main")
        by_document = self.carried | "DocumentStats" >> beam.FlatMap(
            _document_stats).with_outputs(*SIDE_OUTPUTS, STATS, main="main")
        stats = ((by_row[STATS], by_document[STATS])
                 | "CarriedHistogramEntries" >> beam.Flatten())
        return [by_row, by_document], stats
