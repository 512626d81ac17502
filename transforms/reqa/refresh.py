"""A ReQA refresh (``--previous``): the previous release's sentences are reused, and its rows are
carried wherever this run's row is the same.

**The unit is a paragraph**: ``paragraph_id`` hashes the source, the document and the paragraph
text, so a paragraph with the same id is the same input. Its candidate rows depend on nothing
else (the sentences of that text, under the same ``--splitter``, a row option a refresh
refuses to change), so a paragraph the previous release indexed is **not split again**: its
sentence offsets are read back from the previous ``candidates`` rows. Splitting (spaCy) is the
costly stage; every other stage is a pass over the examples.

**Questions are carried by content, not by key.** A ``questions`` row merges every source
example with the same question text, in any document (``example_ids``, the first
``document``, the union of ``correct_candidate_ids``), and a release does not keep the answer
spans, so no key computed from a previous row can tell whether all of its examples are the
same. Every example is therefore read and labeled again against the (reused) sentences, which
costs no model; then each row of both tables is compared with the previous row of its id:

* the same values: the previous row is written (``refresh.carried``), byte for byte;
* other values under the same id: this run's row (``refresh.recomputed``), e.g. a question
  that gained an example in a new document;
* an id the previous release lacks: ``refresh.new``; a previous id this run does not make:
  ``refresh.removed`` (its examples or paragraph are gone).

So carried questions and candidates stay consistent (a carried question's correct candidates
are rows of this release) and a refresh writes exactly the rows a full rebuild would.
``refresh.inputs_carried`` counts the paragraphs whose sentences were reused. With
``--recompute-all`` every paragraph is split and every row written is this run's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import apache_beam as beam

from transforms.core.accounting import SIDE_OUTPUTS, tally
from transforms.release.refresh.carry import ReadPreviousRows
from transforms.release.refresh.counters import (
    CARRIED,
    INPUTS_CARRIED,
    NEW,
    RECOMPUTED,
    REMOVED,
)
from transforms.release.refresh.previous import PreviousRelease

UNIT = ("a paragraph (source, document and text): its sentences are reused; a row of either "
        "table is carried when this run's row of its id has the same values")
ID_COLUMNS = ("qid", "candidate_id")  # questions, candidates
Row = dict[str, Any]
Sentences = tuple[tuple[int, int], ...]


def row_key(row: Row) -> str:
    """The id of a questions or candidates row, named by its column (``qid:...``)."""
    for column in ID_COLUMNS:
        if column in row:
            return f"{column}:{row[column]}"
    raise KeyError(f"a ReQA row has one of {ID_COLUMNS}")


def paragraph_sentences(item: tuple[str, Iterable[tuple[int, int]]]) -> tuple[str, Sentences]:
    """``(paragraph_id, its sentence offsets in order)`` from its candidates' offsets."""
    paragraph, offsets = item
    return paragraph, tuple(sorted(set(offsets)))


class ReadPreviousReqa(beam.PTransform):
    """The previous release's rows by table (``{group: rows}``) and its sentences
    (``(paragraph_id, offsets)``, from the ``candidates`` rows; None unless ``sentences``:
    ``--recompute-all`` splits every paragraph)."""

    def __init__(self, previous: PreviousRelease, candidates_group: str, sentences: bool):
        super().__init__()
        self.previous = previous
        self.candidates_group = candidates_group
        self.sentences = sentences

    def expand(self, pbegin):
        rows = pbegin | "ReadPrevious" >> ReadPreviousRows(self.previous)
        by_group = {group: (rows
                            | f"Previous{group.title()}" >> beam.Filter(
                                lambda split_row, name: split_row[0] == name, group)
                            | f"Previous{group.title()}Rows" >> beam.Values())
                    for group in self.previous.splits}
        if not self.sentences:
            return by_group, None
        sentences = (by_group[self.candidates_group]
                     | "PreviousOffsets" >> beam.Map(lambda row: (
                         row["paragraph_id"], (row["sentence_start"], row["sentence_end"])))
                     | "ByParagraph" >> beam.GroupByKey()
                     | "PreviousSentences" >> beam.Map(paragraph_sentences))
        return by_group, sentences


def choose(item: tuple[str, dict[str, list[Row]]], recompute_all: bool) -> Iterator[Any]:
    """The row of one id to write, and its ``refresh.*`` tally (see the module docstring)."""
    _, grouped = item
    previous, fresh = grouped["previous"], grouped["fresh"]
    if fresh and previous:
        if not recompute_all and fresh[0] == previous[0]:
            yield tally(CARRIED)
            yield previous[0]
        else:
            yield tally(RECOMPUTED)
            yield fresh[0]
    elif fresh:
        yield tally(NEW)
        yield fresh[0]
    elif previous:
        yield tally(REMOVED, len(previous))


class CarrySameRows(beam.PTransform):
    """This run's rows of one table -> the rows to write: the previous row where it has the
    same values (``choose``); returns ``(rows, tagged result for WriteAccounting)``."""

    def __init__(self, previous_rows, recompute_all: bool):
        super().__init__()
        self.previous_rows = previous_rows
        self.recompute_all = recompute_all

    def expand(self, rows):
        joined = ({"previous": self.previous_rows | "KeyPrevious" >> beam.WithKeys(row_key),
                   "fresh": rows | "KeyFresh" >> beam.WithKeys(row_key)}
                  | "JoinById" >> beam.CoGroupByKey()
                  | "Choose" >> beam.FlatMap(choose, self.recompute_all).with_outputs(
                      *SIDE_OUTPUTS, main="main"))
        return joined.main, joined


class CountReusedParagraphs(beam.PTransform):
    """Paragraph ids whose sentences came from the previous release (one per use) ->
    ``refresh.inputs_carried``, each paragraph once."""

    def expand(self, paragraph_ids):
        return (paragraph_ids
                | "Distinct" >> beam.Distinct()
                | "Count" >> beam.combiners.Count.Globally().without_defaults()
                | "Tally" >> beam.FlatMap(lambda count: [tally(INPUTS_CARRIED, count)])
                .with_outputs(*SIDE_OUTPUTS, main="main"))
