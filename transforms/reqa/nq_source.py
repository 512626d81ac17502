"""NQ original-format reader (Kwiatkowski et al. 2019): an example becomes a ReqaTask of its
first annotation's long-answer ``<P>`` paragraph and its one short answer, as ReQA's
``nq_to_squad.py``; the paragraph text is the long answer's non-HTML tokens joined with
single spaces and the answer span comes from the token offsets."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import apache_beam as beam

from filters.text import safe_json
from transforms.core.accounting import dead_letter, tally
from transforms.reqa.counters import (
    EXAMPLES,
    FILES,
    INPUT,
    LINES,
    MALFORMED,
    PARAGRAPHS_READ,
    READ,
    UNREADABLE,
    UNREADABLE_FILES,
)
from transforms.reqa.input_files import readable_lines, readable_path
from transforms.reqa.schema import (
    EMPTY_QUESTION,
    EMPTY_SHORT_ANSWER,
    INVALID_UNICODE,
    LONG_ANSWER_NOT_PARAGRAPH,
    NO_ANNOTATION,
    NOT_ONE_SHORT_ANSWER,
    NULL_LONG_ANSWER,
    SHORT_ANSWER_OUTSIDE_LONG_ANSWER,
    paragraph_id,
)
from transforms.reqa.tasks import (
    Drop,
    ReqaTask,
    TaskParagraph,
    TaskQuestion,
    drop_outputs,
    has_lone_surrogate,
)
from transforms.sources.compressed import (
    TRUNCATED_COMPRESSION,
    CompressionDamage,
    check_stream,
    damage_reason,
)

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
    if has_lone_surrogate(question, example_id):
        return Drop(example_id, question, INVALID_UNICODE, "question holds a lone surrogate")
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
    if has_lone_surrogate(text, document):
        return Drop(example_id, question, INVALID_UNICODE,
                    "paragraph text or document title holds a lone surrogate")
    pid = paragraph_id("nq", document, text)
    return ReqaTask("nq", document, (TaskParagraph(pid, text),),
                    (TaskQuestion(example_id, question, ((inside[0][0], inside[-1][1]),)),))


class ParseNqFiles(beam.DoFn):
    """NQ original-format JSON lines -> ReqaTask per kept example; drops, dead letters.

    Takes a ``fileio.ReadableFile`` (``.jsonl.gz``/``.bz2``/``.xz``/``.zst`` decompressed by
    its extension) or, for tests, a ``(path, text)`` pair. A damaged or oversized file is
    dead-lettered with its ``reason`` and ``rows_read`` (its lines read) and counted
    (``input.unreadable_files``, ``input.unreadable.<reason>``): ``truncated_compression``
    keeps the complete lines before the cut; ``corrupt_compression`` and ``decoded_too_large``
    (more than ``max_decoded_bytes`` once decoded) keep none. A line nested too deep is a
    malformed example with reason ``too_deeply_nested``."""

    def __init__(self, max_decoded_bytes: int | None = None):
        super().__init__()
        self.max_decoded_bytes = max_decoded_bytes

    def process(self, readable: Any) -> Iterator[Any]:
        yield tally(FILES)
        number = 0
        try:
            # A corrupt or oversized stream is found only at its end: check it before
            # emitting any record.
            damage = None if isinstance(readable, tuple) else check_stream(
                readable, max_decoded_bytes=self.max_decoded_bytes)
            if damage is not None and damage_reason(damage) != TRUNCATED_COMPRESSION:
                raise CompressionDamage(damage)
            path, lines = readable_lines(readable, self.max_decoded_bytes)
            for number, line in enumerate(lines, start=1):
                yield from self._line(path, number, line)
        except CompressionDamage as damage:  # truncated: the complete lines before the cut kept
            yield from self._unreadable(readable_path(readable), damage.reason, damage.error,
                                        rows_read=number)
        except Exception as error:  # noqa: BLE001 - an unreadable file is dead-lettered
            yield tally(UNREADABLE_FILES)
            yield dead_letter(INPUT, error, file=readable_path(readable), line=number)

    @staticmethod
    def _unreadable(path: str, reason: str, error: Exception, rows_read: int) -> Iterator[Any]:
        yield tally(UNREADABLE_FILES)
        yield tally(UNREADABLE.member(reason))
        yield dead_letter(INPUT, error, file=path, reason=reason, rows_read=rows_read)

    def _line(self, path: str, number: int, line: str | UnicodeDecodeError) -> Iterator[Any]:
        if isinstance(line, str) and not line.strip():
            return
        yield tally(LINES)
        yield tally(READ)
        try:
            if isinstance(line, UnicodeDecodeError):
                raise line
            example = safe_json.loads(line)
            if not isinstance(example, dict):
                raise TypeError(f"an example is a JSON object, not {type(example).__name__}")
            outcome = nq_task(example)
        except Exception as error:  # noqa: BLE001 - a malformed line is dead-lettered
            yield tally(MALFORMED)
            text = line[:200] if isinstance(line, str) else repr(line.object[:200])
            reason = getattr(error, "reason", None)
            yield dead_letter(EXAMPLES, error, file=path, line=number, text=text,
                              **({"reason": reason} if isinstance(reason, str) else {}))
            return
        if isinstance(outcome, Drop):
            yield from drop_outputs("nq", example.get("document_title") or "", outcome)
        else:
            yield tally(PARAGRAPHS_READ)
            yield outcome
