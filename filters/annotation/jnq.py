"""JNQ and JBoolQ vote aggregation: the paper's thresholds, one pure function per rule.

Uematsu et al., "A Benchmark Suite of Japanese Natural Questions": 10 crowd workers judge each
stage (JNQ §3.2-3.5); JBoolQ (the same paper's §4) asks the stages in another order. The
defaults of ``JnqThresholds`` are the paper's counts out of ``workers``; with ``n != workers``
judgments a rule is applied as a fraction, ``count * workers >= threshold * n``.

Stage orders (``aggregate_question``):

* ``jnq``: good question -> long answer per candidate paragraph -> yes/no question -> on the
  EXIST paragraphs, the yes/no answer (yes/no questions) or the span (other questions). The
  yes/no question stage is needed for every good question, with or without an EXIST
  paragraph. A yes/no question is ``kept`` in JNQ with ``is_yes_no_question`` and its
  YES/NO/NONE short answers (JNQ §3.5, Table 2 counts such paragraphs), and the JBoolQ
  import merges it into JBoolQ as well (§4).
* ``jboolq``: good question -> yes/no question (``not_yes_no_question`` and
  ``ambiguous_yes_no`` stop here) -> long answer -> yes/no answer on the EXIST paragraphs.

A stage the question needs with fewer than ``ways`` distinct workers (on any paragraph it is
needed for) makes the question ``pending`` at that stage: nothing is aggregated. Judgments of
stages a question does not need (spans of a bad question) are ignored.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from filters.annotation.spans import majority_span
from filters.annotation.votes import PARAGRAPH_STAGES, JnqVote, VoteError, latest_votes

ORDERS = ("jnq", "jboolq")
EXIST, AMBIGUOUS, NONE = "EXIST", "AMBIGUOUS", "NONE"
YES_NO, AMBIGUOUS_YES_NO, NOT_YES_NO = "yes_no", "ambiguous", "not_yes_no"
OUTCOMES = ("kept", "bad_question", "ambiguous_yes_no", "not_yes_no_question", "pending")


@dataclass(frozen=True)
class JnqThresholds:
    """The paper's vote counts out of ``workers`` (JNQ §3.2-3.5, JBoolQ §4)."""

    workers: int = 10
    good_question: int = 6
    exist: int = 7
    ambiguous: int = 4
    yes_no_question: int = 7
    yes_no_ambiguous: int = 4
    yes_no_answer: int = 8
    span_min_votes: int = 2


def at_least(count: int, n: int, threshold: int, workers: int) -> bool:
    """Whether ``count`` of ``n`` judgments reach ``threshold`` of ``workers`` (JNQ §3.2-3.5).

    With ``n == workers`` this is ``count >= threshold``; otherwise the same fraction,
    ``count * workers >= threshold * n``. No judgments reach nothing."""
    return n > 0 and count * workers >= threshold * n


def good_question(good: int, n: int, t: JnqThresholds) -> bool:
    """JNQ §3.2: a question is kept when at least 6 of 10 workers judge it good."""
    return at_least(good, n, t.good_question, t.workers)


def paragraph_label(yes: int, n: int, t: JnqThresholds) -> str:
    """JNQ §3.3-3.4: a candidate paragraph is EXIST with >= 7 of 10 "contains enough
    information" votes, AMBIGUOUS with 4-6 and NONE with <= 3."""
    if at_least(yes, n, t.exist, t.workers):
        return EXIST
    if at_least(yes, n, t.ambiguous, t.workers):
        return AMBIGUOUS
    return NONE


def yes_no_question(yes: int, n: int, t: JnqThresholds) -> str:
    """JNQ §3.4 (and JBoolQ §4): >= 7 of 10 make a yes/no question, 4-6 an ambiguous one
    (removed), <= 3 not a yes/no question."""
    if at_least(yes, n, t.yes_no_question, t.workers):
        return YES_NO
    if at_least(yes, n, t.yes_no_ambiguous, t.workers):
        return AMBIGUOUS_YES_NO
    return NOT_YES_NO


def yes_no_answer(yes: int, no: int, n: int, t: JnqThresholds) -> str:
    """JNQ §3.4: an EXIST paragraph of a yes/no question answers YES (or NO) when more than
    seven (>= 8) of 10 workers say so; otherwise it has a long answer only (NONE). Should
    lowered thresholds let both reach it, the answer is NONE."""
    is_yes = at_least(yes, n, t.yes_no_answer, t.workers)
    is_no = at_least(no, n, t.yes_no_answer, t.workers)
    if is_yes != is_no:
        return "YES" if is_yes else "NO"
    return NONE


@dataclass(frozen=True)
class ParagraphJudgment:
    """One candidate paragraph's aggregated long answer (JNQ §3.3) and short answer (§3.4-3.5).

    ``short_answer_type`` is ``span``, ``yes_no`` or ``none``; ``yes_votes`` of ``votes``
    workers found the paragraph to contain enough information."""

    paragraph_id: int
    label: str
    yes_votes: int
    votes: int
    short_answer_type: str
    span: tuple[int, int] | None
    yes_no_answer: str


@dataclass(frozen=True)
class JnqResult:
    """One question's aggregation (JNQ §3.2-3.5, JBoolQ §4).

    ``paragraphs`` follow the candidate order and are empty when the question was dropped
    before the long-answer stage or is pending. ``annotators`` counts the distinct workers of
    the good-question stage; ``stage_votes`` the judgments each consulted stage used."""

    question_id: str
    outcome: str
    pending_stage: str | None
    is_yes_no_question: bool | None
    paragraphs: tuple[ParagraphJudgment, ...]
    annotators: int
    stage_votes: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class PaperRules:
    """The stage decisions of ``aggregate_question``: the paper's thresholds on vote counts.

    Another object with these four methods (``transforms.annotation.worker_rules``: a worker
    model's posteriors) decides the same stages otherwise; the stage order is unchanged."""

    t: JnqThresholds = JnqThresholds()

    def good_question(self, question_id: str, values: Sequence[Any]) -> bool:
        return good_question(_true(values), len(values), self.t)

    def yes_no_question(self, question_id: str, values: Sequence[Any]) -> str:
        return yes_no_question(_true(values), len(values), self.t)

    def paragraph_label(self, question_id: str, paragraph: int, values: Sequence[Any]) -> str:
        return paragraph_label(_true(values), len(values), self.t)

    def yes_no_answer(self, question_id: str, paragraph: int, values: Sequence[Any]) -> str:
        return yes_no_answer(values.count("YES"), values.count("NO"), len(values), self.t)


class JnqVoteError(VoteError):
    """A JNQ/JBoolQ vote that does not fit its question; ``reason`` is ``unknown_paragraph``
    or ``span_outside_paragraph`` (the dead-letter reason)."""


def check_vote(vote: JnqVote, candidate_ids: Sequence[int],
               paragraph_lengths: Mapping[int, int]) -> None:
    """Raise ``JnqVoteError`` for a vote on a paragraph outside the candidates shown to the
    workers (JNQ §3.3: five per question) or a span outside ``[0, len(text)]`` of its
    paragraph (JNQ §3.5: spans are characters of the paragraph's text)."""
    if vote.stage not in PARAGRAPH_STAGES:
        return
    if vote.paragraph not in candidate_ids:
        raise JnqVoteError("unknown_paragraph",
                           f"question {vote.question_id}: paragraph {vote.paragraph} is not "
                           f"one of its candidates {list(candidate_ids)}")
    if vote.stage != "span" or vote.value is None:
        return
    length = paragraph_lengths.get(vote.paragraph)
    if length is None:
        raise JnqVoteError("unknown_paragraph",
                           f"question {vote.question_id}: paragraph {vote.paragraph} has no "
                           "text")
    start, end = vote.value
    if not 0 <= start < end <= length:
        raise JnqVoteError("span_outside_paragraph",
                           f"question {vote.question_id}: span [{start}, {end}) is outside "
                           f"paragraph {vote.paragraph} of {length} characters")


class _Pending(Exception):
    def __init__(self, stage: str):
        super().__init__(stage)
        self.stage = stage


class _Judgments:
    """The latest judgments of one question, by stage and paragraph, checked for ``ways``."""

    def __init__(self, votes: Iterable[JnqVote], ways: int):
        self.ways = ways
        self.by_stage: dict[tuple[str, int | None], dict[str, Any]] = defaultdict(dict)
        for vote in latest_votes(votes):
            self.by_stage[(vote.stage, vote.paragraph)][vote.annotator_id] = vote.value
        self.used: dict[str, int] = {}

    def values(self, stage: str, paragraph: int | None = None) -> list[Any]:
        values = list(self.by_stage.get((stage, paragraph), {}).values())
        self.used[stage] = self.used.get(stage, 0) + len(values)
        return values

    def require(self, stage: str, paragraphs: Sequence[int | None] = (None,)) -> list[list[Any]]:
        """The values of ``stage`` (per paragraph); ``_Pending`` when any has too few."""
        values = [self.values(stage, paragraph) for paragraph in paragraphs]
        if any(len(judged) < self.ways for judged in values):
            raise _Pending(stage)
        return values


def _true(values: Sequence[Any]) -> int:
    return sum(1 for value in values if value is True)


def _question_kind(judgments: _Judgments, rules: PaperRules, question_id: str) -> str:
    (values,) = judgments.require("yes_no_question")
    return rules.yes_no_question(question_id, values)


def _long_answers(judgments: _Judgments, candidate_ids: Sequence[int],
                  rules: PaperRules, question_id: str) -> list[ParagraphJudgment]:
    judged = judgments.require("long_answer", candidate_ids)
    paragraphs = []
    for paragraph_id, values in zip(candidate_ids, judged, strict=True):
        yes = _true(values)
        paragraphs.append(ParagraphJudgment(
            paragraph_id=paragraph_id,
            label=rules.paragraph_label(question_id, paragraph_id, values),
            yes_votes=yes, votes=len(values), short_answer_type="none", span=None,
            yes_no_answer=NONE))
    return paragraphs


def _short_answers(judgments: _Judgments, paragraphs: list[ParagraphJudgment],
                   is_yes_no: bool, t: JnqThresholds, rules: PaperRules,
                   question_id: str) -> list[ParagraphJudgment]:
    exist = [p.paragraph_id for p in paragraphs if p.label == EXIST]
    stage = "yes_no_answer" if is_yes_no else "span"
    answers = dict(zip(exist, judgments.require(stage, exist), strict=True))
    result = []
    for paragraph in paragraphs:
        values = answers.get(paragraph.paragraph_id)
        if values is None:
            result.append(paragraph)
        elif is_yes_no:
            answer = rules.yes_no_answer(question_id, paragraph.paragraph_id, values)
            result.append(replace(paragraph, yes_no_answer=answer,
                                  short_answer_type="yes_no" if answer != NONE else "none"))
        else:
            span = majority_span(values, t.span_min_votes)
            result.append(replace(paragraph, span=span,
                                  short_answer_type="span" if span else "none"))
    return result



def aggregate_question(question_id: str, votes: Iterable[JnqVote], candidate_ids: Sequence[int],
                       order: str, ways: int, t: JnqThresholds = JnqThresholds(),
                       rules: PaperRules | None = None) -> JnqResult:
    """One question's outcome from its workers' votes (JNQ §3.2-3.5; JBoolQ §4 for ``jboolq``).

    ``votes`` may hold duplicates (the latest judgment of a worker counts) and should have
    passed ``check_vote``; votes on paragraphs outside ``candidate_ids`` are ignored. Outcomes:
    ``kept`` (in JNQ order a yes/no question too, JNQ §3.5 / Table 2), ``bad_question``,
    ``ambiguous_yes_no``, ``not_yes_no_question`` (JBoolQ order only) and ``pending``.
    ``rules`` decides each stage from its values (default: ``PaperRules(t)``); spans are
    always the paper's majority span."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    if ways < 1:
        raise ValueError("ways must be at least 1")
    votes = list(votes)
    for vote in votes:
        if vote.question_id != question_id:
            raise ValueError(f"a vote for question {vote.question_id} among {question_id}'s")
    candidates = list(dict.fromkeys(candidate_ids))
    rules = rules or PaperRules(t)
    judgments = _Judgments(votes, ways)
    annotators = len(judgments.by_stage.get(("good_question", None), {}))

    def result(outcome: str, pending_stage: str | None = None, is_yes_no: bool | None = None,
               paragraphs: Sequence[ParagraphJudgment] = ()) -> JnqResult:
        return JnqResult(question_id, outcome, pending_stage, is_yes_no, tuple(paragraphs),
                         annotators, dict(judgments.used))

    try:
        (good,) = judgments.require("good_question")
        if not rules.good_question(question_id, good):
            return result("bad_question")
        if order == "jboolq":
            kind = _question_kind(judgments, rules, question_id)
            if kind == AMBIGUOUS_YES_NO:
                return result("ambiguous_yes_no")
            if kind == NOT_YES_NO:
                return result("not_yes_no_question", is_yes_no=False)
            paragraphs = _long_answers(judgments, candidates, rules, question_id)
        else:
            paragraphs = _long_answers(judgments, candidates, rules, question_id)
            kind = _question_kind(judgments, rules, question_id)
            if kind == AMBIGUOUS_YES_NO:
                return result("ambiguous_yes_no", paragraphs=paragraphs)
        is_yes_no = kind == YES_NO
        paragraphs = _short_answers(judgments, paragraphs, is_yes_no, t, rules, question_id)
        return result("kept", is_yes_no=is_yes_no, paragraphs=paragraphs)
    except _Pending as pending:
        return result("pending", pending_stage=pending.stage)

