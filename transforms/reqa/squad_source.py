"""SQuAD v1.1 JSON reader (Rajpurkar et al. 2016): every paragraph of every article becomes a
ReqaTask with its questions; an answer whose ``answer_start`` does not point at its ``text``
is dropped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import apache_beam as beam

from transforms.core.accounting import dead_letter, tally
from transforms.reqa.input_files import readable_path
from transforms.reqa.schema import (
    ANSWER_OFFSET_MISMATCH,
    EMPTY_QUESTION,
    NO_ANSWER,
    paragraph_id,
)
from transforms.reqa.tasks import (
    EXAMPLES,
    Drop,
    ReqaTask,
    TaskParagraph,
    TaskQuestion,
    drop_outputs,
)


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
            yield dead_letter("input", error, file=readable_path(readable))
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
            yield from drop_outputs("squad", title, drop)
        yield task
