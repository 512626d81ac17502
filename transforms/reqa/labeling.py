"""Sentences and labels: split each task's paragraphs into sentences (the candidates), mark a
question's correct candidates (every sentence its answer span overlaps), merge the
occurrences of a question text and deduplicate the candidates."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import apache_beam as beam

from filters.text.reqa_sentences import ReqaSentenceSplitter
from filters.text.sentences import SentenceSplitter
from transforms.core.accounting import dead_letter, tally
from transforms.reqa.counters import (
    CANDIDATES_DUPLICATES,
    CANDIDATES_EMITTED,
    CANDIDATES_UNIQUE,
    CROSS_SENTENCE_BOUNDARY,
    KEPT,
    MALFORMED,
    PARAGRAPHS_WITHOUT_SENTENCES,
    QUESTIONS_MERGED,
    QUESTIONS_UNIQUE,
    SENTENCES,
)
from transforms.reqa.schema import ANSWER_NOT_IN_SENTENCES, candidate_id, question_id
from transforms.reqa.tasks import Drop, ReqaTask, drop_outputs

CANDIDATES = "candidates"  # tagged output of LabelSentences: (candidate_id, row)
REUSED = "reused"  # tagged output of LabelSentences: paragraph_id of sentences not split again
STATS = "stats"  # tagged output: (histogram key, integer value)
Sentences = Sequence[tuple[int, int]]  # a paragraph's sentence offsets, in order
SPLITTERS = ("senter", "reqa")  # --splitter: spaCy senter (default) or the paper's rules


def make_splitter(name: str, batch_size: int = 64) -> Any:
    """The sentence splitter ``--splitter`` names: ``senter`` (spaCy,
    ``filters.text.sentences``) or ``reqa`` (the paper's rules,
    ``filters.text.reqa_sentences``)."""
    if name == "senter":
        return SentenceSplitter(batch_size)
    if name == "reqa":
        return ReqaSentenceSplitter(batch_size)
    raise ValueError(f"unknown sentence splitter {name!r}; expected one of {SPLITTERS}")


class Labeled(NamedTuple):
    """A task after sentence splitting: candidates, kept question occurrences, drops."""

    candidates: list[dict[str, Any]]
    occurrences: list[dict[str, Any]]
    drops: list[Drop]
    crossing_answers: int
    empty_paragraphs: int


def label_task(task: ReqaTask, sentences: Sequence[Sequence[tuple[int, int]]]) -> Labeled:
    """Candidates of every sentence of the task's paragraphs (``sentences[i]`` are the
    offsets of paragraph ``i``) and, per question, the sentences its answer spans overlap."""
    candidates: list[dict[str, Any]] = []
    placed: list[tuple[int, int, str]] = []
    empty = 0
    for paragraph, offsets in zip(task.paragraphs, sentences, strict=True):
        empty += not offsets
        for start, end in offsets:
            cid = candidate_id(task.source, paragraph.paragraph_id, start, end)
            candidates.append({
                "candidate_id": cid, "sentence": paragraph.text[start:end],
                "context": paragraph.text, "paragraph_id": paragraph.paragraph_id,
                "document": task.document, "source": task.source,
                "sentence_start": start, "sentence_end": end})
            placed.append((paragraph.offset + start, paragraph.offset + end, cid))
    occurrences, drops, crossing = [], [], 0
    for question in task.questions:
        correct: set[str] = set()
        for answer_start, answer_end in question.spans:
            hits = [cid for start, end, cid in placed if start < answer_end and
                    answer_start < end]
            crossing += len(hits) > 1
            correct.update(hits)
        if not correct:
            drops.append(Drop(question.example_id, question.question, ANSWER_NOT_IN_SENTENCES,
                              f"answer spans {list(question.spans)}"))
            continue
        occurrences.append({
            "qid": question_id(task.source, question.question),
            "question": question.question, "source": task.source,
            "document": task.document, "example_id": question.example_id,
            "correct_candidate_ids": sorted(correct)})
    return Labeled(candidates, occurrences, drops, crossing, empty)


def task_sentences(tasks: Sequence[ReqaTask], known: Mapping[str, Sentences],
                   split_all: Callable[[list[str]], Sequence[Sentences]]) -> list[list[Sentences]]:
    """The sentence offsets of every paragraph of every task: ``known[paragraph_id]`` where
    given (a refresh reuses the previous release's), the others split in one call."""
    texts = [p.text for t in tasks for p in t.paragraphs if p.paragraph_id not in known]
    fresh = iter(split_all(texts) if texts else ())
    return [[known[p.paragraph_id] if p.paragraph_id in known else next(fresh)
             for p in task.paragraphs] for task in tasks]


class LabelSentences(beam.DoFn):
    """Batches of ReqaTask -> ``(qid, occurrence)`` per kept example; ``(candidate_id, row)``
    on ``CANDIDATES``; drops, tallies, dead letters. The splitter (spaCy ``senter`` or the
    ReQA rules, :func:`make_splitter`) is made in ``setup()``. ``known`` (a refresh's side
    input, ``transforms.reqa.refresh``) maps a paragraph id to the sentence offsets the
    previous release has for it: that paragraph is not split again (its id goes to
    ``REUSED``)."""

    def __init__(self, batch_size: int = 64, splitter: str = "senter"):
        make_splitter(splitter)  # fail at construction on an unknown name
        self.batch_size = batch_size
        self.splitter = splitter

    def setup(self) -> None:
        self._splitter = make_splitter(self.splitter, self.batch_size)
        self._splitter.load()  # load the model once per worker, here

    def process(self, tasks: list[ReqaTask],
                known: Mapping[str, Sentences] | None = None) -> Iterator[Any]:
        known = known or {}
        try:
            sentences = task_sentences(tasks, known, self._splitter.split_all)
        except Exception:  # noqa: BLE001 - retry one by one so only the culprit is lost
            for task in tasks:
                yield from self._one(task, known)
            return
        for task, offsets in zip(tasks, sentences, strict=True):
            yield from self._outputs(task, label_task(task, offsets), known)

    def _one(self, task: ReqaTask, known: Mapping[str, Sentences]) -> Iterator[Any]:
        try:
            labeled = label_task(task, task_sentences([task], known,
                                                      self._splitter.split_all)[0])
        except Exception as error:  # noqa: BLE001 - dead-letter the task's examples
            if task.questions:
                yield tally(MALFORMED, len(task.questions))
            yield dead_letter(SENTENCES, error, source=task.source, document=task.document,
                              examples=[q.example_id for q in task.questions])
            return
        yield from self._outputs(task, labeled, known)

    def _outputs(self, task: ReqaTask, labeled: Labeled,
                 known: Mapping[str, Sentences]) -> Iterator[Any]:
        for paragraph in task.paragraphs:
            if paragraph.paragraph_id in known:
                yield beam.pvalue.TaggedOutput(REUSED, paragraph.paragraph_id)
        for drop in labeled.drops:
            yield from drop_outputs(task.source, task.document, drop)
        if labeled.crossing_answers:
            yield tally(CROSS_SENTENCE_BOUNDARY, labeled.crossing_answers)
        if labeled.empty_paragraphs:
            yield tally(PARAGRAPHS_WITHOUT_SENTENCES, labeled.empty_paragraphs)
        yield tally(CANDIDATES_EMITTED, len(labeled.candidates))
        for row in labeled.candidates:
            yield beam.pvalue.TaggedOutput(CANDIDATES, (row["candidate_id"], row))
        for occurrence in labeled.occurrences:
            yield tally(KEPT)
            yield occurrence["qid"], occurrence


def merge_question(qid: str, occurrences: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One questions row from every kept occurrence of the same question text."""
    ordered = sorted(occurrences, key=lambda o: (o["document"], o["example_id"]))
    first = ordered[0]
    return {"qid": qid, "question": first["question"],
            "correct_candidate_ids": sorted({c for o in ordered
                                             for c in o["correct_candidate_ids"]}),
            "source": first["source"], "document": first["document"],
            "example_ids": sorted({o["example_id"] for o in ordered})}


class MergeQuestions(beam.DoFn):
    """``(qid, occurrences)`` -> a questions row; ``questions.*`` tallies and statistics."""

    def process(self, element: tuple[str, Iterable[dict[str, Any]]]) -> Iterator[Any]:
        qid, occurrences = element
        occurrences = list(occurrences)
        row = merge_question(qid, occurrences)
        yield tally(QUESTIONS_UNIQUE)
        if len(occurrences) > 1:
            yield tally(QUESTIONS_MERGED, len(occurrences) - 1)
        yield beam.pvalue.TaggedOutput(STATS, ("all/correct_per_question",
                                               len(row["correct_candidate_ids"])))
        yield row


class DeduplicateCandidates(beam.DoFn):
    """``(candidate_id, rows)`` -> one candidates row (the rows are identical: the id hashes
    the source, the paragraph text and the offsets); tallies and statistics."""

    def process(self, element: tuple[str, Iterable[dict[str, Any]]]) -> Iterator[Any]:
        _, rows = element
        rows = list(rows)
        row = min(rows, key=lambda r: json.dumps(r, sort_keys=True, ensure_ascii=False))
        yield tally(CANDIDATES_UNIQUE)
        if len(rows) > 1:
            yield tally(CANDIDATES_DUPLICATES, len(rows) - 1)
        yield beam.pvalue.TaggedOutput(STATS, ("all/sentence_words",
                                               len(row["sentence"].split())))
        yield row
