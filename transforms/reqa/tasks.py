"""What the source readers emit: a ReqaTask (paragraphs of a document and the questions
answered in them) per kept unit, or a Drop with a named reason, and the outputs recording a
dropped example."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from transforms.core.accounting import rejected, tally
from transforms.reqa.counters import DROPPED

DROPPED_EXAMPLES = "dropped_examples"  # rejected/<kind>/
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(*texts: object) -> bool:
    """Whether any of the texts holds a lone surrogate (not encodable as UTF-8)."""
    return any(isinstance(text, str) and _SURROGATE.search(text) for text in texts)


def printable(text: str) -> str:
    """``text`` with its lone surrogates as ``\\udxxx`` escapes (writable as UTF-8)."""
    if not has_lone_surrogate(text):
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


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


def drop_outputs(source: str, document: str, drop: Drop) -> Iterator[Any]:
    """The ``examples.dropped.<reason>`` tally and the ``rejected/dropped_examples/`` row."""
    yield tally(DROPPED.member(drop.reason))
    yield rejected(DROPPED_EXAMPLES, {"source": source, "document": printable(document),
                                      "example_id": printable(drop.example_id),
                                      "question": printable(drop.question),
                                      "reason": drop.reason, "detail": printable(drop.detail)})
