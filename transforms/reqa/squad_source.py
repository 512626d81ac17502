"""SQuAD v1.1 JSON reader (Rajpurkar et al. 2016): every paragraph of every article becomes a
ReqaTask with its questions; an answer whose ``answer_start`` does not point at its ``text``
is dropped.

Malformed shapes are dead-lettered with a ``reason`` at the smallest unit that holds them: the
file (``malformed_file``: not ``{"data": [...]}``), an article (``malformed_article``), a
paragraph (``malformed_paragraph``), a question (``malformed_question``). An answer of the wrong
shape drops only its question (``examples.dropped.malformed_answer``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import apache_beam as beam

from filters.text import safe_json
from transforms.core.accounting import dead_letter, tally
from transforms.reqa.counters import (
    ANSWER_OFFSET_MISMATCHES,
    EXAMPLES,
    FILES,
    INPUT,
    MALFORMED,
    MALFORMED_ARTICLES,
    MALFORMED_PARAGRAPHS,
    PARAGRAPHS_INVALID_UNICODE,
    PARAGRAPHS_READ,
    PARAGRAPHS_WITHOUT_QUESTIONS,
    READ,
    UNREADABLE,
    UNREADABLE_FILES,
)
from transforms.reqa.input_files import readable_path
from transforms.reqa.schema import (
    ANSWER_OFFSET_MISMATCH,
    EMPTY_QUESTION,
    INVALID_UNICODE,
    MALFORMED_ANSWER,
    MALFORMED_ARTICLE,
    MALFORMED_FILE,
    MALFORMED_PARAGRAPH,
    MALFORMED_QUESTION,
    NO_ANSWER,
    paragraph_id,
)
from transforms.reqa.tasks import (
    Drop,
    ReqaTask,
    TaskParagraph,
    TaskQuestion,
    drop_outputs,
    has_lone_surrogate,
    printable,
)
from transforms.sources.compressed import damage_reason, read_decompressed


def _malformed_answer(answer: Any) -> str:
    """Why an answer has the wrong shape, or ``""``."""
    if not isinstance(answer, dict):
        return f"answer is a {type(answer).__name__}, not an object"
    if not isinstance(answer.get("text"), str):
        return "answer text is not a string"
    try:
        int(answer.get("answer_start"))
    except (TypeError, ValueError, OverflowError):
        return f"answer_start is not an integer: {str(answer.get('answer_start'))[:50]!r}"
    return ""


def squad_task(title: str, paragraph: dict[str, Any], source: str = "squad"
               ) -> tuple[ReqaTask, list[Drop], int]:
    """The task of one SQuAD paragraph, the dropped questions and the number of answers
    dropped because ``context[answer_start:answer_start + len(text)] != text``.

    Raises TypeError for a malformed paragraph; a question of the wrong shape is a Drop with
    reason ``malformed_question`` (the caller dead-letters it), one with an answer of the wrong
    shape a Drop ``malformed_answer``."""
    context = paragraph["context"]
    if not isinstance(context, str):
        raise TypeError("paragraph context is not a string")
    qas = paragraph.get("qas") or []
    if not isinstance(qas, list):
        raise TypeError("paragraph qas is not a list")
    if has_lone_surrogate(context, title):  # every question dropped; no paragraph to index
        drops = [Drop(str(qa["id"]), qa["question"], INVALID_UNICODE,
                      "paragraph context or title holds a lone surrogate")
                 if isinstance(qa, dict) and isinstance(qa.get("question"), str)
                 and qa.get("id") is not None else
                 Drop(str(qa.get("id", index)) if isinstance(qa, dict) else str(index), "",
                      MALFORMED_QUESTION,
                      "question is not an object with an id and a question string")
                 for index, qa in enumerate(qas)]
        return ReqaTask(source, title, (), ()), drops, 0
    pid = paragraph_id(source, title, context)
    questions: list[TaskQuestion] = []
    drops: list[Drop] = []
    mismatched = 0
    for index, qa in enumerate(qas):
        if not (isinstance(qa, dict) and isinstance(qa.get("question"), str)
                and qa.get("id") is not None):
            example_id = str(qa.get("id", index)) if isinstance(qa, dict) else str(index)
            drops.append(Drop(example_id, "", MALFORMED_QUESTION,
                              "question is not an object with an id and a question string"))
            continue
        example_id, question = str(qa["id"]), qa["question"]
        if has_lone_surrogate(question, example_id):
            drops.append(Drop(example_id, question, INVALID_UNICODE,
                              "question or id holds a lone surrogate"))
            continue
        answers = qa.get("answers") or []
        if not isinstance(answers, list):
            answers = [answers]
        malformed = next(filter(None, map(_malformed_answer, answers)), "")
        if malformed:
            drops.append(Drop(example_id, question, MALFORMED_ANSWER, malformed))
            continue
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

    Takes a ``fileio.ReadableFile`` or, for tests, a ``(path, text)`` pair. A file that is
    damaged, decodes past ``max_decoded_bytes`` (``decoded_too_large``) or nests deeper than
    ``safe_json`` allows (``too_deeply_nested``) is counted and dead-lettered whole."""

    def __init__(self, max_decoded_bytes: int | None = None):
        super().__init__()
        self.max_decoded_bytes = max_decoded_bytes

    def process(self, readable: Any) -> Iterator[Any]:
        yield tally(FILES)
        damage = None
        try:
            if isinstance(readable, tuple):
                path, text = readable
            else:
                path = readable.metadata.path
                data, damage = read_decompressed(readable,
                                                 max_decoded_bytes=self.max_decoded_bytes)
                text = data.decode("utf-8") if damage is None else ""
                del data
            if damage is None:
                content = safe_json.loads(text)
        except safe_json.JsonTooDeep as error:
            yield tally(UNREADABLE_FILES)
            yield tally(UNREADABLE.member(error.reason))
            yield dead_letter(INPUT, error, file=readable_path(readable), reason=error.reason)
            return
        except Exception as error:  # noqa: BLE001 - an unreadable file is dead-lettered
            yield tally(UNREADABLE_FILES)
            yield dead_letter(INPUT, error, file=readable_path(readable))
            return
        if damage is not None:  # one JSON document: nothing before the damage is a record
            reason = damage_reason(damage)
            yield tally(UNREADABLE_FILES)
            yield tally(UNREADABLE.member(reason))
            yield dead_letter(INPUT, damage, file=path, reason=reason, rows_read=0)
            return
        articles = content.get("data") if isinstance(content, dict) else None
        if not isinstance(articles, list):
            yield tally(UNREADABLE_FILES)
            yield tally(UNREADABLE.member(MALFORMED_FILE))
            yield dead_letter(INPUT, 'not a SQuAD file: expected {"data": [articles]}',
                              file=path, reason=MALFORMED_FILE)
            return
        for article_index, article in enumerate(articles):
            title = str(article.get("title", "")) if isinstance(article, dict) else ""
            paragraphs = article.get("paragraphs", []) if isinstance(article, dict) else None
            if not isinstance(paragraphs, list):
                yield tally(MALFORMED_ARTICLES)
                yield dead_letter(INPUT, "article without a paragraphs list", file=path,
                                  article=article_index, reason=MALFORMED_ARTICLE)
                continue
            for index, paragraph in enumerate(paragraphs):
                yield from self._paragraph(path, title or f"article-{article_index}",
                                           index, paragraph)

    def _paragraph(self, path: str, title: str, index: int, paragraph: Any) -> Iterator[Any]:
        qas = paragraph.get("qas") if isinstance(paragraph, dict) else None
        count = len(qas) if isinstance(qas, list) else 0
        if count:
            yield tally(READ, count)
        try:
            task, drops, mismatched = squad_task(title, paragraph)
        except Exception as error:  # noqa: BLE001 - a malformed paragraph is dead-lettered
            yield tally(MALFORMED_PARAGRAPHS)
            if count:
                yield tally(MALFORMED, count)
            yield dead_letter(EXAMPLES, error, file=path, title=title, paragraph=index,
                              questions=count, reason=MALFORMED_PARAGRAPH)
            return
        if not task.paragraphs:  # its text cannot be written: its questions are dropped below
            yield tally(PARAGRAPHS_INVALID_UNICODE)
        else:
            yield tally(PARAGRAPHS_READ)
        if not count and task.paragraphs:
            yield tally(PARAGRAPHS_WITHOUT_QUESTIONS)
        if mismatched:
            yield tally(ANSWER_OFFSET_MISMATCHES, mismatched)
        for drop in drops:
            if drop.reason == MALFORMED_QUESTION:
                yield tally(MALFORMED)
                yield dead_letter(EXAMPLES, drop.detail, file=path, title=printable(title),
                                  paragraph=index, example_id=printable(drop.example_id),
                                  reason=MALFORMED_QUESTION)
            else:
                yield from drop_outputs("squad", title, drop)
        if task.paragraphs:
            yield task
