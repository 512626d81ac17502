"""NLQuAD release reader (this toolkit's Parquet, one row per question): rows are grouped by
article; the context is split into paragraphs on ``"\\n"`` and each question's answer is the
long answer ``[answer_start, answer_end)`` in the context's coordinates."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes

from transforms.core.accounting import dead_letter, tally
from transforms.reqa.counters import (
    EXAMPLES,
    FILES,
    INPUT,
    MALFORMED,
    PARAGRAPHS_READ,
    READ,
    ROWS,
    UNREADABLE_FILES,
)
from transforms.reqa.input_files import readable_path
from transforms.reqa.schema import (
    EMPTY_QUESTION,
    INVALID_ANSWER_SPAN,
    INVALID_UNICODE,
    paragraph_id,
    stable_id,
)
from transforms.reqa.tasks import (
    Drop,
    ReqaTask,
    TaskParagraph,
    TaskQuestion,
    drop_outputs,
    has_lone_surrogate,
)

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
        yield tally(FILES)
        path = readable_path(readable)
        try:
            for row in self._rows(readable):
                yield from self._row(path, row)
        except Exception as error:  # noqa: BLE001 - an unreadable file is dead-lettered
            yield tally(UNREADABLE_FILES)
            yield dead_letter(INPUT, error, file=path)

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
        yield tally(ROWS)
        yield tally(READ)
        texts = {name: row.get(name) for name in ("id", "question", "context", "document_id",
                                                  "url", "title")}
        bad = [name for name, text in texts.items() if has_lone_surrogate(text)]
        if bad:  # a lone surrogate could be neither hashed into an id nor written
            question = row.get("question") if isinstance(row.get("question"), str) else ""
            document = str(row.get("document_id") or row.get("url") or row.get("title") or "")
            yield from drop_outputs("nlquad", document, Drop(
                str(row.get("id")), question, INVALID_UNICODE,
                f"lone surrogate in {', '.join(bad)}"))
            return
        try:
            yield nlquad_key(row)
        except Exception as error:  # noqa: BLE001 - a malformed row is dead-lettered
            yield tally(MALFORMED)
            yield dead_letter(EXAMPLES, error, file=path, id=str(row.get("id")))


class BuildNlquadTasks(beam.DoFn):
    """``(article key, rows)`` -> the article's ReqaTask; drops."""

    def process(self, element: tuple[str, Iterable[dict[str, Any]]]) -> Iterator[Any]:
        _, rows = element
        task, drops = nlquad_task(rows)
        yield tally(PARAGRAPHS_READ, len(task.paragraphs))
        for drop in drops:
            yield from drop_outputs("nlquad", task.document, drop)
        yield task
