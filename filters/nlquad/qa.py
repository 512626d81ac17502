"""Turn an article's body blocks into an NLQuAD document with question-answer pairs.

NLQuAD (Soleimani, Monz, Worring, EACL 2021, §3):

* questions are the article's interrogative sub-headings (sub-headings ending with "?");
* the answer is the body paragraphs that follow the sub-heading up to the next sub-heading;
  we also end a section at a break-line, which frames analysis boxes and page templates;
* sub-headings, break-lines and templates are removed from the document so the answer
  boundaries are not revealed; questions whose answer contains a bullet list are discarded.
  Navigation lists are not answer text: "related stories" link lists and promo link lists
  (``Block.promo``: "LABEL: <a>headline</a>" items) are removed from the context and the
  answer alike, so a promo box closing a section does not cost its question; promo lists are
  counted (``removed_promo_lists``, the pipeline's ``promo_list_removed``).
* question-shaped page furniture (newsletter, comment/poll and advertisement prompts) is
  dropped with its own reason (``filters.nlquad.boilerplate_questions``).

Offsets are exact: ``context[answer_start:answer_end] == answer_text``; word offsets index
``context.split()`` (NLQuAD §5.1 computes IoU over word positions).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from filters.bbc.article import BREAK, LIST, PARAGRAPH, SUBHEADING, Block
from filters.bbc.boilerplate import is_template_text
from filters.nlquad.boilerplate_questions import Verdict, question_text_verdict

_INTERROGATIVE = re.compile(r"\?[\"'\u2019\u201d)\]]*$")

DROP_BOILERPLATE = "boilerplate_question"
DROP_BULLET_LIST = "bullet_list_answer"
DROP_EMPTY = "empty_answer"


def is_interrogative(subheading: str) -> bool:
    """NLQuAD §3: a sub-heading is a question when it ends with "?" (closing quotes allowed)."""
    return bool(_INTERROGATIVE.search(subheading.strip()))


@dataclass(frozen=True)
class QAPair:
    """One kept question with its long answer located in the context."""

    question: str
    ordinal: int
    answer_text: str
    answer_start: int
    answer_end: int
    answer_word_start: int
    answer_word_end: int
    answer_paragraphs: int
    first_paragraph: int


@dataclass(frozen=True)
class DroppedQuestion:
    question: str
    ordinal: int
    reason: str


@dataclass(frozen=True)
class NlquadDocument:
    """The cleaned document text, its paragraphs and the question outcomes."""

    context: str
    paragraphs: tuple[str, ...]
    qas: tuple[QAPair, ...]
    dropped: tuple[DroppedQuestion, ...]
    subheadings: int
    interrogative_subheadings: int
    removed_template_paragraphs: int
    removed_promo_lists: int = 0


@dataclass
class _Section:
    question: str
    ordinal: int
    paragraph_ids: list[int]
    template_paragraphs: int = 0
    has_text_list: bool = False


def build_document(
    blocks: Sequence[Block],
    is_boilerplate: Callable[[str], bool] = is_template_text,
    separator: str = "\n",
    question_rule: Callable[[str], Verdict] = question_text_verdict,
) -> NlquadDocument:
    """Build the context (paragraphs and text lists, no sub-headings) and the QA pairs;
    ``question_rule`` drops question-shaped furniture by its words."""
    paragraphs: list[str] = []
    sections: list[_Section] = []
    current: _Section | None = None
    subheadings = removed = promo_lists = 0
    for block in blocks:
        if block.kind == SUBHEADING:
            subheadings += 1
            current = None
            if is_interrogative(block.text):
                current = _Section(block.text, len(sections) + 1, [])
                sections.append(current)
        elif block.kind == BREAK:
            current = None
        elif block.kind == PARAGRAPH:
            if is_boilerplate(block.text):
                removed += 1
                if current is not None:
                    current.template_paragraphs += 1
                continue
            if current is not None:
                current.paragraph_ids.append(len(paragraphs))
            paragraphs.append(block.text)
        elif block.kind == LIST and block.promo:
            promo_lists += 1
        elif block.kind == LIST and not block.link_only:
            if current is not None:
                current.has_text_list = True
            paragraphs.extend(block.items)

    starts, offset = [], 0
    for text in paragraphs:
        starts.append(offset)
        offset += len(text) + len(separator)
    context = separator.join(paragraphs)
    word_starts = _word_index(context, starts)

    qas: list[QAPair] = []
    dropped: list[DroppedQuestion] = []
    for section in sections:
        reason = _drop_reason(section, is_boilerplate, question_rule)
        if reason:
            dropped.append(DroppedQuestion(section.question, section.ordinal, reason))
            continue
        first, last = section.paragraph_ids[0], section.paragraph_ids[-1]
        start, end = starts[first], starts[last] + len(paragraphs[last])
        answer = context[start:end]
        word_start = word_starts[first]
        qas.append(QAPair(section.question, section.ordinal, answer, start, end, word_start,
                          word_start + len(answer.split()), len(section.paragraph_ids),
                          first))
    return NlquadDocument(context, tuple(paragraphs), tuple(qas), tuple(dropped), subheadings,
                          len(sections), removed, promo_lists)


def _drop_reason(section: _Section, is_boilerplate: Callable[[str], bool],
                 question_rule: Callable[[str], Verdict]) -> str | None:
    if is_boilerplate(section.question) or (
        section.template_paragraphs and not section.paragraph_ids
    ):
        return DROP_BOILERPLATE
    verdict = question_rule(section.question)
    if not verdict.keep:
        return verdict.reason
    if section.has_text_list:
        return DROP_BULLET_LIST
    if not section.paragraph_ids:
        return DROP_EMPTY
    return None


def _word_index(context: str, starts: list[int]) -> list[int]:
    """Number of whitespace-separated words before each paragraph start."""
    result, words, cursor = [], 0, 0
    for start in starts:
        words += len(context[cursor:start].split())
        cursor = start
        result.append(words)
    return result
