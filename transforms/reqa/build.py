"""The ReQA build as two Beam composites: ``ReadReqaTasks`` reads QA examples of one source
into tasks; ``BuildReqa`` splits paragraphs into sentences, labels the correct sentences,
merges questions and deduplicates candidates.

ReQA (Ahmad, Constant, Yang, Cer 2019, "ReQA: An Evaluation for End-to-End Answer Retrieval
Models") turns reading-comprehension data into sentence-level answer retrieval: every
paragraph is split into sentences; the answer index holds each sentence with its paragraph as
context; a question's correct answers are the sentences that contain its answer span. We
follow the paper and its evaluation code (``squad_eval.py``, ``nq_to_squad.py`` of
``google/retrieval-qa-eval``) with these choices:

* a candidate is ``(sentence, paragraph)``: the same paragraph reached from several questions
  gives its candidates once (the paper indexes ``(sentence, context)`` pairs once);
* an answer span that crosses a sentence boundary makes every sentence it overlaps correct
  (the paper's code takes only the sentence holding the answer's first character);
* questions with the same text within a source are one question whose correct answers are
  the union of all its occurrences' (the paper's evaluation keeps the best rank of a repeated
  question, the same thing).

Sources:

* **NQ** original format (Kwiatkowski et al. 2019; the official ``*.jsonl.gz`` files and our
  releases' ``nq_original/<split>/*.jsonl.gz``): only examples whose *first* annotation has a
  non-null long answer that is a ``<P>`` paragraph and exactly one short-answer span (as
  ``nq_to_squad.py``; the paper: ~74k questions, 239k sentences from NQ train). The paragraph
  text is the long answer's non-HTML tokens joined with single spaces, as in NQ's simplified
  format (``nq_to_squad.py`` instead restores the page's spacing from the HTML bytes); the
  short answer's character span in it comes from the token offsets, never from a string
  search.
* **SQuAD v1.1** JSON (Rajpurkar et al. 2016): every paragraph of every article (the paper:
  87,599 questions and 91,707 sentences for train); an answer whose ``answer_start`` does not
  point at its ``text`` is dropped.
* **NLQuAD** releases of this toolkit (Parquet, one row per question): the context is split
  into paragraphs on ``"\\n"``; the correct sentences are those overlapping the long answer
  ``[answer_start, answer_end)``.

Every input example ends kept or dropped with a named reason (``examples.kept``,
``examples.dropped.<reason>``, ``examples.malformed`` for dead-lettered records), and dropped
ones are listed in ``rejected/dropped_examples/``.
"""

from __future__ import annotations

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes

from transforms.core.accounting import SIDE_OUTPUTS
from transforms.core.inputs import beam_pattern
from transforms.reqa.labeling import (
    CANDIDATES,
    REUSED,
    STATS,
    DeduplicateCandidates,
    LabelSentences,
    MergeQuestions,
)
from transforms.reqa.nlquad_source import BuildNlquadTasks, ParseNlquadFiles
from transforms.reqa.nq_source import ParseNqFiles
from transforms.reqa.refresh import CountReusedParagraphs
from transforms.reqa.schema import SOURCES
from transforms.reqa.squad_source import ParseSquadFiles


class ReadReqaTasks(beam.PTransform):
    """The ReqaTasks of every input file matching ``pattern`` for ``source``; an NQ or SQuAD
    file decoding past ``max_decoded_bytes`` (None: the default cap) is dead-lettered.
    Returns ``(tasks, [tagged results carrying accounting outputs])``."""

    def __init__(self, source: str, pattern: str, max_decoded_bytes: int | None = None):
        super().__init__()
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}; expected one of {SOURCES}")
        self.source = source
        self.pattern = pattern
        self.max_decoded_bytes = max_decoded_bytes

    def expand(self, pbegin):
        files = (pbegin
                 | "Pattern" >> beam.Create([beam_pattern(self.pattern)])
                 | "Match" >> fileio.MatchAll()
                 | "Open" >> fileio.ReadMatches(compression=CompressionTypes.AUTO))
        if self.source == "nq":
            parsed = files | "ParseNq" >> beam.ParDo(
                ParseNqFiles(self.max_decoded_bytes)).with_outputs(*SIDE_OUTPUTS, main="main")
            return parsed.main, [parsed]
        if self.source == "squad":
            parsed = files | "ParseSquad" >> beam.ParDo(
                ParseSquadFiles(self.max_decoded_bytes)).with_outputs(
                *SIDE_OUTPUTS, main="main")
            return parsed.main, [parsed]
        rows = files | "ParseNlquad" >> beam.ParDo(ParseNlquadFiles()).with_outputs(
            *SIDE_OUTPUTS, main="main")
        tasks = (rows.main
                 | "GroupArticles" >> beam.GroupByKey()
                 | "ArticleTasks" >> beam.ParDo(BuildNlquadTasks()).with_outputs(
                     *SIDE_OUTPUTS, main="main"))
        return tasks.main, [rows, tasks]


class BuildReqa(beam.PTransform):
    """Read ``source`` examples matching ``pattern`` and build the ReQA rows, splitting
    sentences with ``splitter`` (``senter``, the default, or ``reqa``: the paper's rules).

    Returns ``(questions, candidates, statistics, results)``: questions and candidates rows,
    ``(histogram key, value)`` pairs, and the tagged results for ``WriteAccounting``.
    ``known_sentences`` (a refresh, ``transforms.reqa.refresh``): ``(paragraph_id, offsets)``
    of the previous release, whose paragraphs are not split again."""

    def __init__(self, source: str, pattern: str, batch_size: int = 64,
                 splitter: str = "senter", max_decoded_bytes: int | None = None,
                 known_sentences: beam.PCollection | None = None):
        super().__init__()
        self.source = source
        self.pattern = pattern
        self.batch_size = batch_size
        self.splitter = splitter
        self.max_decoded_bytes = max_decoded_bytes
        self.known_sentences = known_sentences

    def expand(self, pbegin):
        tasks, results = pbegin | "Read" >> ReadReqaTasks(self.source, self.pattern,
                                                          self.max_decoded_bytes)
        known = ([] if self.known_sentences is None
                 else [beam.pvalue.AsDict(self.known_sentences)])
        labeled = (tasks
                   | "Spread" >> beam.Reshuffle()
                   | "Batch" >> beam.BatchElements(min_batch_size=1,
                                                   max_batch_size=self.batch_size)
                   | "Sentences" >> beam.ParDo(
                       LabelSentences(self.batch_size, self.splitter), *known).with_outputs(
                           *SIDE_OUTPUTS, CANDIDATES, REUSED, main="main"))
        if known:
            results = [*results, labeled[REUSED] | "CountReused" >> CountReusedParagraphs()]
        merged = (labeled.main
                  | "GroupQuestions" >> beam.GroupByKey()
                  | "MergeQuestions" >> beam.ParDo(MergeQuestions()).with_outputs(
                      *SIDE_OUTPUTS, STATS, main="main"))
        unique = (labeled[CANDIDATES]
                  | "GroupCandidates" >> beam.GroupByKey()
                  | "Deduplicate" >> beam.ParDo(DeduplicateCandidates()).with_outputs(
                      *SIDE_OUTPUTS, STATS, main="main"))
        per_paragraph = (unique.main
                         | "ByParagraph" >> beam.Map(lambda row: (row["paragraph_id"], 1))
                         | "SentencesPerParagraph" >> beam.CombinePerKey(sum)
                         | "ParagraphStat" >> beam.Map(
                             lambda kv: ("all/sentences_per_paragraph", kv[1])))
        statistics = ((merged[STATS], unique[STATS], per_paragraph)
                      | "AllStatistics" >> beam.Flatten())
        return merged.main, unique.main, statistics, [*results, labeled, merged, unique]
