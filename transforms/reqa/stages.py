"""Beam transforms of the ReQA pipeline: read QA examples, split paragraphs into sentences,
label the correct sentences, merge questions and deduplicate candidates.

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

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import apache_beam as beam
import pyarrow as pa
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes

from filters.text.sentences import SentenceSplitter
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, rejected, tally

SOURCES = ("squad", "nq", "nlquad")
CANDIDATES = "candidates"  # tagged output of LabelSentences: (candidate_id, row)
STATS = "stats"  # tagged output: (histogram key, integer value)
DROPPED_EXAMPLES = "dropped_examples"  # rejected/<kind>/
EXAMPLES = "examples"  # tally stage of every input example

# Drop reasons (``examples.dropped.<reason>``).
NO_ANNOTATION = "no_annotation"
NULL_LONG_ANSWER = "null_long_answer"
LONG_ANSWER_NOT_PARAGRAPH = "long_answer_not_paragraph"
NOT_ONE_SHORT_ANSWER = "not_one_short_answer"
SHORT_ANSWER_OUTSIDE_LONG_ANSWER = "short_answer_outside_long_answer"
EMPTY_SHORT_ANSWER = "empty_short_answer"
EMPTY_QUESTION = "empty_question"
NO_ANSWER = "no_answer"
ANSWER_OFFSET_MISMATCH = "answer_offset_mismatch"
INVALID_ANSWER_SPAN = "invalid_answer_span"
ANSWER_NOT_IN_SENTENCES = "answer_not_in_sentences"

QUESTIONS_SCHEMA = pa.schema(
    [
        pa.field("qid", pa.string(), nullable=False),
        pa.field("question", pa.string(), nullable=False),
        pa.field("correct_candidate_ids", pa.list_(pa.string()), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("document", pa.string(), nullable=False),
        pa.field("example_ids", pa.list_(pa.string()), nullable=False),
    ],
    metadata={"dataset": "reqa", "group": "questions"},
)

CANDIDATES_SCHEMA = pa.schema(
    [
        pa.field("candidate_id", pa.string(), nullable=False),
        pa.field("sentence", pa.string(), nullable=False),
        pa.field("context", pa.string(), nullable=False),
        pa.field("paragraph_id", pa.string(), nullable=False),
        pa.field("document", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("sentence_start", pa.int32(), nullable=False),
        pa.field("sentence_end", pa.int32(), nullable=False),
    ],
    metadata={"dataset": "reqa", "group": "candidates",
              "offsets": "context[sentence_start:sentence_end] == sentence (characters)"},
)

FIELD_DOCS = {
    "qid": "questions: stable id, sha256 of source and question text (first 24 hex digits)",
    "question": "questions: the question text; one row per distinct text within the source",
    "correct_candidate_ids": "questions: candidate_id of every sentence containing an answer "
                             "span of any occurrence of the question, sorted",
    "example_ids": "questions: ids of the input examples merged into this question, sorted",
    "candidate_id": "candidates: stable id, sha256 of source, paragraph_id and the sentence "
                    "offsets",
    "sentence": "candidates: one sentence of a paragraph (the retrieval unit)",
    "context": "candidates: the paragraph holding the sentence (the candidate's context)",
    "paragraph_id": "candidates: stable id, sha256 of source, document and paragraph text",
    "document": "both: SQuAD article title, NQ document_title, NLQuAD document_id (for a "
                "question asked in several documents: the first in sorted order)",
    "source": "both: squad, nq or nlquad",
    "sentence_start": "candidates: character offset of the sentence in context",
    "sentence_end": "candidates: character end offset (exclusive) of the sentence in context",
}


def _schema_union(*schemas: pa.Schema) -> pa.Schema:
    fields: dict[str, pa.Field] = {}
    for schema in schemas:
        for field in schema:
            fields.setdefault(field.name, field)
    return pa.schema(list(fields.values()))


# Both groups' columns, for the manifest's schema description (``source``, ``document`` once).
RELEASE_SCHEMA = _schema_union(QUESTIONS_SCHEMA, CANDIDATES_SCHEMA)


def stable_id(*parts: str) -> str:
    """First 24 hex digits (96 bits) of the sha256 of the parts joined by U+001F."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:24]


def question_id(source: str, question: str) -> str:
    return stable_id("question", source, question)


def paragraph_id(source: str, document: str, text: str) -> str:
    return stable_id("paragraph", source, document, text)


def candidate_id(source: str, paragraph: str, start: int, end: int) -> str:
    return stable_id("candidate", source, paragraph, str(start), str(end))


@dataclass(frozen=True)
class TaskQuestion:
    """One input example: a question and its answer spans in the task's text coordinates."""

    example_id: str
    question: str
    spans: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class TaskParagraph:
    """A paragraph to split; ``offset`` is where its text starts in the task's coordinates."""

    paragraph_id: str
    text: str
    offset: int = 0


@dataclass(frozen=True)
class ReqaTask:
    """Paragraphs of one document and the questions answered in them.

    SQuAD: one paragraph and its questions; NQ: one long-answer paragraph and one question;
    NLQuAD: every paragraph of an article (offsets into its context) and its questions."""

    source: str
    document: str
    paragraphs: tuple[TaskParagraph, ...]
    questions: tuple[TaskQuestion, ...]


class Drop(NamedTuple):
    """An input example dropped with a named reason."""

    example_id: str
    question: str
    reason: str
    detail: str = ""


def _drop_outputs(source: str, document: str, drop: Drop) -> Iterator[Any]:
    yield tally(EXAMPLES, f"dropped.{drop.reason}")
    yield rejected(DROPPED_EXAMPLES, {"source": source, "document": document,
                                      "example_id": drop.example_id,
                                      "question": drop.question, "reason": drop.reason,
                                      "detail": drop.detail})


# ----------------------------------------------------------------------------------------- NQ

_OPENING_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9]*)[\s>]")


def nq_token_text(tokens: Sequence[dict[str, Any]], start: int,
                  end: int) -> tuple[str, dict[int, tuple[int, int]]]:
    """The non-HTML tokens ``[start, end)`` joined with single spaces, and the character span
    of each of those tokens in that text (by token index)."""
    words: list[str] = []
    spans: dict[int, tuple[int, int]] = {}
    position = 0
    for index in range(max(start, 0), min(end, len(tokens))):
        token = tokens[index]
        word = token["token"]
        if token["html_token"] or not word.strip():
            continue
        if words:
            position += 1
        spans[index] = (position, position + len(word))
        words.append(word)
        position += len(word)
    return " ".join(words), spans


def nq_task(example: dict[str, Any]) -> ReqaTask | Drop:
    """The ReQA task of an NQ original-format example, or why it is dropped (first
    annotation only, as ReQA's ``nq_to_squad.py``; checks in this order)."""
    example_id = str(example["example_id"])
    question = example["question_text"]
    document = example.get("document_title") or example.get("document_url") or ""
    tokens = example["document_tokens"]
    annotations = example.get("annotations") or []
    if not question.strip():
        return Drop(example_id, question, EMPTY_QUESTION)
    if not annotations:
        return Drop(example_id, question, NO_ANNOTATION)
    annotation = annotations[0]
    long_answer = annotation.get("long_answer") or {}
    start, end = long_answer.get("start_token", -1), long_answer.get("end_token", -1)
    if start < 0 or end <= start or long_answer.get("candidate_index", 0) < 0:
        return Drop(example_id, question, NULL_LONG_ANSWER)
    first = tokens[start] if start < len(tokens) else None
    tag = first["token"] if first else ""
    opening = _OPENING_TAG.match(tag)
    if not (first and first["html_token"] and opening and opening.group(1).lower() == "p"):
        return Drop(example_id, question, LONG_ANSWER_NOT_PARAGRAPH, tag)
    short_answers = annotation.get("short_answers") or []
    if len(short_answers) != 1:
        yes_no = annotation.get("yes_no_answer", "NONE")
        detail = f"{len(short_answers)} short answers" + (
            f", yes_no_answer {yes_no}" if yes_no not in ("NONE", None) else "")
        return Drop(example_id, question, NOT_ONE_SHORT_ANSWER, detail)
    short = short_answers[0]
    short_start, short_end = short["start_token"], short["end_token"]
    if short_start < start or short_end > end or short_end <= short_start:
        return Drop(example_id, question, SHORT_ANSWER_OUTSIDE_LONG_ANSWER,
                    f"short [{short_start}, {short_end}) long [{start}, {end})")
    text, spans = nq_token_text(tokens, start, end)
    inside = [spans[i] for i in range(short_start, short_end) if i in spans]
    if not inside:
        return Drop(example_id, question, EMPTY_SHORT_ANSWER)
    pid = paragraph_id("nq", document, text)
    return ReqaTask("nq", document, (TaskParagraph(pid, text),),
                    (TaskQuestion(example_id, question, ((inside[0][0], inside[-1][1]),)),))


class ParseNqFiles(beam.DoFn):
    """NQ original-format JSON lines -> ReqaTask per kept example; drops, dead letters.

    Takes a ``fileio.ReadableFile`` (``.jsonl.gz`` decompressed by its extension) or, for
    tests, a ``(path, text)`` pair."""

    def process(self, readable: Any) -> Iterator[Any]:
        path, lines = _lines(readable)
        yield tally("input", "files")
        number = 0
        try:
            for number, line in enumerate(lines, start=1):
                yield from self._line(path, number, line)
        except Exception as error:  # noqa: BLE001 - an unreadable file is dead-lettered
            yield tally("input", "unreadable_files")
            yield dead_letter("input", error, file=path, line=number)

    def _line(self, path: str, number: int, line: str) -> Iterator[Any]:
        if not line.strip():
            return
        yield tally("input", "lines")
        yield tally(EXAMPLES, "read")
        try:
            example = json.loads(line)
            outcome = nq_task(example)
        except Exception as error:  # noqa: BLE001 - a malformed line is dead-lettered
            yield tally(EXAMPLES, "malformed")
            yield dead_letter(EXAMPLES, error, file=path, line=number, text=line[:200])
            return
        if isinstance(outcome, Drop):
            yield from _drop_outputs("nq", example.get("document_title") or "", outcome)
        else:
            yield tally("paragraphs", "read")
            yield outcome


def _lines(readable: Any) -> tuple[str, Iterable[str]]:
    if isinstance(readable, tuple):
        path, text = readable
        return path, text.splitlines()
    path = readable.metadata.path

    def generate() -> Iterator[str]:
        with readable.open() as handle:
            for raw in iter(handle.readline, b""):
                yield raw.decode("utf-8")

    return path, generate()


# -------------------------------------------------------------------------------------- SQuAD


def squad_task(title: str, paragraph: dict[str, Any], source: str = "squad"
               ) -> tuple[ReqaTask, list[Drop], int]:
    """The task of one SQuAD paragraph, the dropped questions and the number of answers
    dropped because ``context[answer_start:answer_start + len(text)] != text``."""
    context = paragraph["context"]
    if not isinstance(context, str):
        raise TypeError("paragraph context is not a string")
    pid = paragraph_id(source, title, context)
    questions: list[TaskQuestion] = []
    drops: list[Drop] = []
    mismatched = 0
    for qa in paragraph.get("qas") or []:
        example_id, question = str(qa["id"]), qa["question"]
        answers = qa.get("answers") or []
        spans = []
        for answer in answers:
            text, start = answer["text"], int(answer["answer_start"])
            if text and context[start:start + len(text)] == text:
                spans.append((start, start + len(text)))
            else:
                mismatched += 1
        if not question.strip():
            drops.append(Drop(example_id, question, EMPTY_QUESTION))
        elif not answers:
            drops.append(Drop(example_id, question, NO_ANSWER))
        elif not spans:
            answer = answers[0]
            drops.append(Drop(example_id, question, ANSWER_OFFSET_MISMATCH,
                              f"answer_start {answer['answer_start']}: {answer['text']!r} vs "
                              f"{context[int(answer['answer_start']):][:len(answer['text'])]!r}"))
        else:
            questions.append(TaskQuestion(example_id, question, tuple(sorted(set(spans)))))
    task = ReqaTask(source, title, (TaskParagraph(pid, context),), tuple(questions))
    return task, drops, mismatched


class ParseSquadFiles(beam.DoFn):
    """SQuAD v1.1 JSON files -> a ReqaTask per paragraph (also without questions: the paper
    indexes every paragraph); drops, dead letters.

    Takes a ``fileio.ReadableFile`` or, for tests, a ``(path, text)`` pair."""

    def process(self, readable: Any) -> Iterator[Any]:
        yield tally("input", "files")
        try:
            path, text = readable if isinstance(readable, tuple) else (
                readable.metadata.path, readable.read_utf8())
            articles = json.loads(text)["data"]
        except Exception as error:  # noqa: BLE001 - an unreadable file is dead-lettered
            yield tally("input", "unreadable_files")
            yield dead_letter("input", error, file=_path_of(readable))
            return
        for article_index, article in enumerate(articles):
            title = str(article.get("title", "")) if isinstance(article, dict) else ""
            paragraphs = article.get("paragraphs", []) if isinstance(article, dict) else None
            if not isinstance(paragraphs, list):
                yield dead_letter("input", "article without a paragraphs list", file=path,
                                  article=article_index)
                continue
            for index, paragraph in enumerate(paragraphs):
                yield from self._paragraph(path, title or f"article-{article_index}",
                                           index, paragraph)

    def _paragraph(self, path: str, title: str, index: int, paragraph: Any) -> Iterator[Any]:
        qas = paragraph.get("qas") if isinstance(paragraph, dict) else None
        count = len(qas) if isinstance(qas, list) else 0
        if count:
            yield tally(EXAMPLES, "read", count)
        try:
            task, drops, mismatched = squad_task(title, paragraph)
        except Exception as error:  # noqa: BLE001 - a malformed paragraph is dead-lettered
            if count:
                yield tally(EXAMPLES, "malformed", count)
            yield dead_letter(EXAMPLES, error, file=path, title=title, paragraph=index,
                              questions=count)
            return
        yield tally("paragraphs", "read")
        if not count:
            yield tally("paragraphs", "without_questions")
        if mismatched:
            yield tally("answers", f"dropped.{ANSWER_OFFSET_MISMATCH}", mismatched)
        for drop in drops:
            yield from _drop_outputs("squad", title, drop)
        yield task


def _path_of(readable: Any) -> str:
    if isinstance(readable, tuple):
        return readable[0]
    return getattr(getattr(readable, "metadata", None), "path", str(readable))


# ------------------------------------------------------------------------------------- NLQuAD

NLQUAD_FIELDS = ("id", "question", "context", "answer_start", "answer_end")


def split_paragraphs(context: str, separator: str = "\n") -> list[tuple[int, int]]:
    """``[start, end)`` of the non-blank paragraphs of ``context`` (split on ``separator``,
    surrounding whitespace excluded)."""
    spans, position = [], 0
    for piece in context.split(separator):
        start, end = position, position + len(piece)
        position = end + len(separator)
        while start < end and context[start].isspace():
            start += 1
        while end > start and context[end - 1].isspace():
            end -= 1
        if start < end:
            spans.append((start, end))
    return spans


def nlquad_key(row: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(article key, the row's fields ReQA needs)``; raises on a malformed row."""
    missing = [name for name in NLQUAD_FIELDS if row.get(name) is None]
    if missing:
        raise KeyError(f"missing fields {missing}")
    document = str(row.get("document_id") or row.get("url") or row.get("title") or "")
    context = row["context"]
    if not isinstance(context, str) or not isinstance(row["question"], str):
        raise TypeError("context and question must be strings")
    slim = {"id": str(row["id"]), "question": row["question"], "context": context,
            "answer_start": int(row["answer_start"]), "answer_end": int(row["answer_end"]),
            "document": document}
    return f"{document}\x00{stable_id(context)}", slim


def nlquad_task(rows: Iterable[dict[str, Any]]) -> tuple[ReqaTask, list[Drop]]:
    """The task of one NLQuAD article (rows sharing document and context)."""
    ordered = sorted(rows, key=lambda r: r["id"])
    context, document = ordered[0]["context"], ordered[0]["document"]
    paragraphs = tuple(TaskParagraph(paragraph_id("nlquad", document, context[s:e]),
                                     context[s:e], s) for s, e in split_paragraphs(context))
    questions, drops = [], []
    for row in ordered:
        start, end = row["answer_start"], row["answer_end"]
        if not row["question"].strip():
            drops.append(Drop(row["id"], row["question"], EMPTY_QUESTION))
        elif not 0 <= start < end <= len(context):
            drops.append(Drop(row["id"], row["question"], INVALID_ANSWER_SPAN,
                              f"[{start}, {end}) in a context of {len(context)} characters"))
        else:
            questions.append(TaskQuestion(row["id"], row["question"], ((start, end),)))
    return ReqaTask("nlquad", document, paragraphs, tuple(questions)), drops


class ParseNlquadFiles(beam.DoFn):
    """NLQuAD release Parquet files -> ``(article key, slim row)``; malformed rows are
    dead-lettered. Takes a ``fileio.ReadableFile`` or, for tests, a ``(path, rows)`` pair."""

    def process(self, readable: Any) -> Iterator[Any]:
        yield tally("input", "files")
        path = _path_of(readable)
        try:
            for row in self._rows(readable):
                yield from self._row(path, row)
        except Exception as error:  # noqa: BLE001 - an unreadable file is dead-lettered
            yield tally("input", "unreadable_files")
            yield dead_letter("input", error, file=path)

    @staticmethod
    def _rows(readable: Any) -> Iterator[dict[str, Any]]:
        if isinstance(readable, tuple):
            yield from readable[1]
            return
        import pyarrow.parquet as pq

        with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as handle:
            for batch in pq.ParquetFile(handle).iter_batches(batch_size=1024):
                yield from batch.to_pylist()

    def _row(self, path: str, row: dict[str, Any]) -> Iterator[Any]:
        yield tally("input", "rows")
        yield tally(EXAMPLES, "read")
        try:
            yield nlquad_key(row)
        except Exception as error:  # noqa: BLE001 - a malformed row is dead-lettered
            yield tally(EXAMPLES, "malformed")
            yield dead_letter(EXAMPLES, error, file=path, id=str(row.get("id")))


class BuildNlquadTasks(beam.DoFn):
    """``(article key, rows)`` -> the article's ReqaTask; drops."""

    def process(self, element: tuple[str, Iterable[dict[str, Any]]]) -> Iterator[Any]:
        _, rows = element
        task, drops = nlquad_task(rows)
        yield tally("paragraphs", "read", len(task.paragraphs))
        for drop in drops:
            yield from _drop_outputs("nlquad", task.document, drop)
        yield task


# ----------------------------------------------------------------------- sentences and labels


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


class LabelSentences(beam.DoFn):
    """Batches of ReqaTask -> ``(qid, occurrence)`` per kept example; ``(candidate_id, row)``
    on ``CANDIDATES``; drops, tallies, dead letters. spaCy is loaded in ``setup()``."""

    def __init__(self, batch_size: int = 64):
        self.batch_size = batch_size

    def setup(self) -> None:
        self._splitter = SentenceSplitter(self.batch_size)
        self._splitter.nlp  # noqa: B018 - load the model once per worker, here

    def process(self, tasks: list[ReqaTask]) -> Iterator[Any]:
        try:
            splits = self._splitter.split_all([p.text for t in tasks for p in t.paragraphs])
        except Exception:  # noqa: BLE001 - retry one by one so only the culprit is lost
            for task in tasks:
                yield from self._one(task)
            return
        position = 0
        for task in tasks:
            count = len(task.paragraphs)
            yield from self._outputs(task, label_task(task, splits[position:position + count]))
            position += count

    def _one(self, task: ReqaTask) -> Iterator[Any]:
        try:
            labeled = label_task(task, self._splitter.split_all(
                [p.text for p in task.paragraphs]))
        except Exception as error:  # noqa: BLE001 - dead-letter the task's examples
            if task.questions:
                yield tally(EXAMPLES, "malformed", len(task.questions))
            yield dead_letter("sentences", error, source=task.source, document=task.document,
                              examples=[q.example_id for q in task.questions])
            return
        yield from self._outputs(task, labeled)

    def _outputs(self, task: ReqaTask, labeled: Labeled) -> Iterator[Any]:
        for drop in labeled.drops:
            yield from _drop_outputs(task.source, task.document, drop)
        if labeled.crossing_answers:
            yield tally("answers", "cross_sentence_boundary", labeled.crossing_answers)
        if labeled.empty_paragraphs:
            yield tally("paragraphs", "without_sentences", labeled.empty_paragraphs)
        yield tally("candidates", "emitted", len(labeled.candidates))
        for row in labeled.candidates:
            yield beam.pvalue.TaggedOutput(CANDIDATES, (row["candidate_id"], row))
        for occurrence in labeled.occurrences:
            yield tally(EXAMPLES, "kept")
            yield occurrence["qid"], occurrence


# ------------------------------------------------------------------------------ merge, dedup


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
        yield tally("questions", "unique")
        if len(occurrences) > 1:
            yield tally("questions", "merged_occurrences", len(occurrences) - 1)
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
        yield tally("candidates", "unique")
        if len(rows) > 1:
            yield tally("candidates", "duplicates", len(rows) - 1)
        yield beam.pvalue.TaggedOutput(STATS, ("all/sentence_words",
                                               len(row["sentence"].split())))
        yield row


# --------------------------------------------------------------------------------- composite


class ReadReqaTasks(beam.PTransform):
    """The ReqaTasks of every input file matching ``pattern`` for ``source``.
    Returns ``(tasks, [tagged results carrying accounting outputs])``."""

    def __init__(self, source: str, pattern: str):
        super().__init__()
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}; expected one of {SOURCES}")
        self.source = source
        self.pattern = pattern

    def expand(self, pbegin):
        files = (pbegin
                 | "Pattern" >> beam.Create([self.pattern])
                 | "Match" >> fileio.MatchAll()
                 | "Open" >> fileio.ReadMatches(compression=CompressionTypes.AUTO))
        if self.source == "nq":
            parsed = files | "ParseNq" >> beam.ParDo(ParseNqFiles()).with_outputs(
                *SIDE_OUTPUTS, main="main")
            return parsed.main, [parsed]
        if self.source == "squad":
            parsed = files | "ParseSquad" >> beam.ParDo(ParseSquadFiles()).with_outputs(
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
    """Read ``source`` examples matching ``pattern`` and build the ReQA rows.

    Returns ``(questions, candidates, statistics, results)``: questions and candidates rows,
    ``(histogram key, value)`` pairs, and the tagged results for ``WriteAccounting``."""

    def __init__(self, source: str, pattern: str, batch_size: int = 64):
        super().__init__()
        self.source = source
        self.pattern = pattern
        self.batch_size = batch_size

    def expand(self, pbegin):
        tasks, results = pbegin | "Read" >> ReadReqaTasks(self.source, self.pattern)
        labeled = (tasks
                   | "Spread" >> beam.Reshuffle()
                   | "Batch" >> beam.BatchElements(min_batch_size=1,
                                                   max_batch_size=self.batch_size)
                   | "Sentences" >> beam.ParDo(LabelSentences(self.batch_size)).with_outputs(
                       *SIDE_OUTPUTS, CANDIDATES, main="main"))
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


BASELINE_QUESTIONS = 1000


def reqa_baselines(staging_dir: str, max_questions: int = BASELINE_QUESTIONS) -> dict[str, Any]:
    """ReQA Table 6-style untrained baselines: BM25 (bm25s) ranking every candidate sentence
    by its sentence text, and by its paragraph text (the context), scored with MRR and R@N at
    the sentence level (``transforms.metrics.reqa``). ReQA sets have no splits; ranking the whole
    index costs O(questions x candidates), so the first ``max_questions`` questions by qid
    (a stable, hash-random sample) are scored."""
    from transforms.clients.local_search import IndexTokenizer
    from transforms.metrics.reqa import reqa_metrics
    from transforms.release import read_group_rows

    questions = read_group_rows(staging_dir, "questions")
    candidates = read_group_rows(staging_dir, "candidates")
    questions = sorted(questions, key=lambda q: q["qid"])[:max_questions]
    metrics = ["sentence_mrr", "sentence_r@1", "sentence_r@5", "sentence_r@10"]
    if not questions or not candidates:
        return {"split": "all", "n": len(questions), "metrics": metrics, "rows": []}
    candidates.sort(key=lambda c: c["candidate_id"])
    ids = [c["candidate_id"] for c in candidates]
    gold = {q["qid"]: set(q["correct_candidate_ids"]) for q in questions}
    tokenize = IndexTokenizer("en")
    table = []
    for name, field in (("BM25 over sentences", "sentence"),
                        ("BM25 over paragraphs (context)", "context")):
        rankings = _bm25_rankings([c[field] for c in candidates], ids, questions, tokenize)
        scores = reqa_metrics(gold, rankings)
        table.append({"name": name, **{m: float(scores[m]) for m in metrics}})
    return {"split": "all", "n": len(questions), "metrics": metrics, "rows": table,
            "note": f"Every candidate ranked for each question (at most {max_questions} "
                    "questions, by qid); ties to the lower candidate id."}


def _bm25_rankings(texts: list[str], ids: list[str], questions: list[dict],
                   tokenize) -> dict[str, list[str]]:
    from filters.text.bm25 import bm25_retriever

    retriever, vocab = bm25_retriever(tokenize(texts))
    import numpy as np

    rankings = {}
    for question in questions:
        query = [t for t in tokenize([question["question"]])[0] if t in vocab]
        scores = np.asarray(retriever.get_scores(query) if query else np.zeros(len(ids)))
        # ids are sorted, so a stable sort on the score breaks ties by the lower id
        order = np.argsort(-scores, kind="stable")[:10]
        rankings[question["qid"]] = [ids[i] for i in order]
    return rankings
