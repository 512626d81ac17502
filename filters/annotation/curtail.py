"""Exact curtailment of JNQ / JBoolQ judgments: stop asking once no further vote can matter.

The papers ask a fixed overlap: ``ways`` (10) workers judge every stage a question needs (JNQ
§3.2-3.5; JBoolQ §4 in its own order). A stage's label is *decided* after ``k < ways``
judgments when every possible completion of the ``ways - k`` judgments still missing gives the
same label under the paper's thresholds (``filters.annotation.jnq``, applied to ``ways``
judgments). The full overlap's judgments are one such completion, so a decided label is the
full overlap's label, item for item: curtailment saves judgments without changing a decision.

Per rule:

* ``good_question``, ``long_answer`` (per paragraph), ``yes_no_question``: a count of "yes"
  against thresholds; decided when every final count ``yes + j`` (``0 <= j <= ways - k``)
  gives one label.
* ``yes_no_answer`` (per EXIST paragraph): YES/NO/NONE counts; decided when every split of the
  missing judgments into YES, NO and NONE gives one answer.
* ``span`` (per EXIST paragraph, §3.5's majority with subsumption, ``filters.annotation.
  spans``): one more vote for a span inside the current winner (or a repeat of any voted span)
  changes the adopted span, so a paragraph with a voted span is decided only at the full
  overlap. The one safe early stop: no span voted yet and fewer missing judgments than
  ``span_min_votes`` (they cannot reach adoption), which decides "no span".

Stages open in the order ``aggregate_question`` consults them: a question's other stages only
once ``good_question`` decides it good; in JNQ's order ``long_answer`` (every candidate) and
``yes_no_question`` together, then the short answer of each paragraph decided EXIST once the
question kind is decided; in JBoolQ's, ``yes_no_question``, then ``long_answer`` for a yes/no
question, then ``yes_no_answer`` on the EXIST paragraphs.

``more`` (what to ask next for an open stage and paragraph) is the smallest number of further
judgments after which the label *could* be decided (for some values of them): asking fewer
could never decide it, asking more may pay for judgments the answers make useless. A question
therefore takes a few rounds (at most ``ways`` per stage); every round asks only judgments
that some outcome of the round needs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from filters.annotation.jnq import (
    AMBIGUOUS_YES_NO,
    EXIST,
    ORDERS,
    YES_NO,
    JnqResult,
    JnqThresholds,
    aggregate_question,
    good_question,
    paragraph_label,
    yes_no_answer,
    yes_no_question,
)
from filters.annotation.votes import JnqVote, latest_votes

UNDECIDED = object()
PAPER = JnqThresholds()  # the papers' thresholds (JNQ §3.2-3.5)
CURTAILED_WORKER = "\x00curtailed"  # the id prefix of the stand-in judgments of a decided stage
_PADDING = {"good_question": False, "long_answer": False, "yes_no_question": False,
            "yes_no_answer": "NONE", "span": None}


@dataclass(frozen=True)
class Slot:
    """One open judgment slot group: ``more`` judgments of ``stage`` (and ``paragraph`` for
    the per-paragraph stages) are needed next."""

    stage: str
    paragraph: int | None
    more: int


@dataclass(frozen=True)
class StageState:
    """A stage's (or a paragraph's) state: its decided ``label`` (``UNDECIDED`` if open),
    the judgments it holds and the ``more`` it needs (0 when decided)."""

    label: Any
    judged: int
    more: int

    @property
    def decided(self) -> bool:
        return self.label is not UNDECIDED


@dataclass(frozen=True)
class Curtailment:
    """One question's state: the decided labels by ``(stage, paragraph)`` it consulted and
    the slots still open, in stage order. ``decided`` when nothing is open."""

    question_id: str
    states: dict[tuple[str, int | None], StageState]
    open: tuple[Slot, ...]

    @property
    def decided(self) -> bool:
        return not self.open


def _true(values: Sequence[Any]) -> int:
    return sum(1 for value in values if value is True)


def _first_decided(decide: Callable[[int], Any], remaining: int) -> int:
    """The smallest ``m`` in ``1..remaining`` for which ``decide(m)`` is decided."""
    for more in range(1, remaining + 1):
        if decide(more):
            return more
    return remaining


def count_state(yes: int, judged: int, ways: int, label: Callable[[int, int], Any]) -> StageState:
    """A yes-count stage with ``yes`` of ``judged`` judgments, ``label(yes, n)`` its rule."""
    n = max(judged, ways)
    remaining = n - judged

    def labels(y: int, left: int) -> set[Any]:
        return {label(y + j, n) for j in range(left + 1)}

    final = labels(yes, remaining)
    if len(final) == 1:
        return StageState(final.pop(), judged, 0)
    more = _first_decided(lambda m: any(len(labels(yes + j, remaining - m)) == 1
                                        for j in range(m + 1)), remaining)
    return StageState(UNDECIDED, judged, more)


def yes_no_answer_state(values: Sequence[Any], ways: int, t: JnqThresholds) -> StageState:
    """JNQ §3.4's YES/NO/NONE answer of one EXIST paragraph (``yes_no_answer``)."""
    judged = len(values)
    n = max(judged, ways)
    remaining = n - judged
    yes, no = values.count("YES"), values.count("NO")

    def answers(y: int, o: int, left: int) -> set[str]:
        return {yes_no_answer(y + a, o + b, n, t)
                for a in range(left + 1) for b in range(left + 1 - a)}

    final = answers(yes, no, remaining)
    if len(final) == 1:
        return StageState(final.pop(), judged, 0)
    more = _first_decided(lambda m: any(len(answers(yes + a, no + b, remaining - m)) == 1
                                        for a in range(m + 1) for b in range(m + 1 - a)),
                          remaining)
    return StageState(UNDECIDED, judged, more)


def span_state(values: Sequence[Any], ways: int, t: JnqThresholds) -> StageState:
    """JNQ §3.5's span of one EXIST paragraph: decided at the full overlap, or as "no span"
    when none is voted and the missing judgments cannot reach ``span_min_votes`` (module
    doc). The label is ``"decided"``: the span itself is ``majority_span`` of the votes."""
    judged = len(values)
    remaining = max(judged, ways) - judged
    if remaining == 0:
        return StageState("decided", judged, 0)
    floor = max(t.span_min_votes, 1)
    if all(value is None for value in values):
        if remaining < floor:
            return StageState("decided", judged, 0)
        return StageState(UNDECIDED, judged, remaining - floor + 1)
    return StageState(UNDECIDED, judged, remaining)


def stage_state(stage: str, values: Sequence[Any], ways: int,
                t: JnqThresholds = PAPER) -> StageState:
    """The state of one stage (one paragraph of a per-paragraph stage) given its values."""
    if stage == "good_question":
        return count_state(_true(values), len(values), ways,
                           lambda yes, n: good_question(yes, n, t))
    if stage == "long_answer":
        return count_state(_true(values), len(values), ways,
                           lambda yes, n: paragraph_label(yes, n, t))
    if stage == "yes_no_question":
        return count_state(_true(values), len(values), ways,
                           lambda yes, n: yes_no_question(yes, n, t))
    if stage == "yes_no_answer":
        return yes_no_answer_state(list(values), ways, t)
    if stage == "span":
        return span_state(values, ways, t)
    raise ValueError(f"unknown JNQ stage {stage!r}")


def _values(votes: Iterable[JnqVote]) -> dict[tuple[str, int | None], list[Any]]:
    by_slot: dict[tuple[str, int | None], dict[str, Any]] = defaultdict(dict)
    for vote in latest_votes(votes):
        by_slot[(vote.stage, vote.paragraph)][vote.annotator_id] = vote.value
    return {slot: list(values.values()) for slot, values in by_slot.items()}


def curtail(question_id: str, votes: Iterable[JnqVote], candidate_ids: Sequence[int],
            order: str, ways: int, t: JnqThresholds = PAPER) -> Curtailment:
    """Which of a question's stages are decided and which judgments it needs next (module
    doc); ``votes`` as for ``aggregate_question`` (checked, of this question)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    if ways < 1:
        raise ValueError("ways must be at least 1")
    values = _values(votes)
    return walk_stages(
        question_id, candidate_ids, order,
        lambda stage, paragraph: stage_state(stage, values.get((stage, paragraph), []), ways, t))


def walk_stages(question_id: str, candidate_ids: Sequence[int], order: str,
                judge: Callable[[str, int | None], StageState]) -> Curtailment:
    """Walk a question's stages in ``order`` (module doc), asking ``judge`` for the state of
    each (stage, paragraph) reached, and stop at the first undecided gate: the stages
    reached and the open slots among them (in the order reached)."""
    candidates = list(dict.fromkeys(candidate_ids))
    states: dict[tuple[str, int | None], StageState] = {}

    def state(stage: str, paragraph: int | None = None) -> StageState:
        found = judge(stage, paragraph)
        states[(stage, paragraph)] = found
        return found

    def finish() -> Curtailment:
        slots = tuple(Slot(stage, paragraph, s.more)
                      for (stage, paragraph), s in states.items() if not s.decided)
        return Curtailment(question_id, states, slots)

    if state("good_question").label is not True:
        return finish()
    if order == "jboolq":
        kind = state("yes_no_question").label
        if kind != YES_NO:
            return finish()
        labels = {p: state("long_answer", p).label for p in candidates}
    else:
        labels = {p: state("long_answer", p).label for p in candidates}
        kind = state("yes_no_question").label
        if kind in (UNDECIDED, AMBIGUOUS_YES_NO):
            return finish()
    stage = "yes_no_answer" if kind == YES_NO else "span"
    for paragraph, label in labels.items():
        if label == EXIST:
            state(stage, paragraph)
    return finish()


def aggregate_curtailed(question_id: str, votes: Iterable[JnqVote],
                        candidate_ids: Sequence[int], order: str, ways: int,
                        t: JnqThresholds = PAPER) -> JnqResult:
    """``aggregate_question`` over curtailed votes: a stage decided with fewer than ``ways``
    judgments is decided (the full overlap's label), not pending.

    The decided stages are completed with stand-in judgments (any completion gives the
    decided label) and aggregated by ``aggregate_question`` itself; ``yes_votes``, ``votes``,
    ``annotators`` and ``stage_votes`` then count the real judgments only. A question with an
    open stage is ``pending`` at the first one."""
    votes = list(votes)
    state = curtail(question_id, votes, candidate_ids, order, ways, t)
    if state.open:
        return JnqResult(question_id, "pending", state.open[0].stage, None, (),
                         _annotators(votes), {})
    padded = list(votes)
    padding: dict[str, int] = defaultdict(int)
    for (stage, paragraph), found in state.states.items():
        for number in range(found.judged, max(found.judged, ways)):
            padded.append(JnqVote(question_id, f"{CURTAILED_WORKER}{number}", stage,
                                  _PADDING[stage], paragraph))
            padding[stage] += 1
    result = aggregate_question(question_id, padded, candidate_ids, order, ways, t)
    real = _values(votes)
    paragraphs = []
    for judged in result.paragraphs:
        long_answers = real.get(("long_answer", judged.paragraph_id), [])
        paragraphs.append(replace(judged, yes_votes=_true(long_answers),
                                  votes=len(long_answers)))
    stage_votes = {stage: used - padding.get(stage, 0)
                   for stage, used in result.stage_votes.items()}
    return replace(result, paragraphs=tuple(paragraphs), stage_votes=stage_votes,
                   annotators=_annotators(votes))


def _annotators(votes: list[JnqVote]) -> int:
    return len({vote.annotator_id for vote in votes if vote.stage == "good_question"})


def fixed_overlap(state: Curtailment, ways: int) -> int:
    """The judgments a fixed overlap of ``ways`` spends on the stages ``state`` consulted
    (each at least ``ways``; more when more were given)."""
    return sum(max(found.judged, ways) for found in state.states.values())
