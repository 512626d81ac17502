"""Exact curtailment (JNQ §3.2-3.5, JBoolQ §4): decided stages, ``more``, and the identity of
curtailed and full-overlap decisions over many seeded random vote sets."""

from __future__ import annotations

import random

import pytest

from filters.annotation.curtail import (
    UNDECIDED,
    aggregate_curtailed,
    curtail,
    fixed_overlap,
    stage_state,
)
from filters.annotation.jnq import aggregate_question
from filters.annotation.votes import JnqVote


def _votes(stage: str, values: list, paragraph: int | None = None, qid: str = "q") -> list:
    return [JnqVote(qid, f"w{i:02d}", stage, value, paragraph) for i, value in enumerate(values)]


def test_good_question_decided_by_six_yes_or_five_no():
    assert stage_state("good_question", [True] * 6, 10).label is True
    assert stage_state("good_question", [False] * 5, 10).label is False
    open_ = stage_state("good_question", [True] * 5 + [False] * 4, 10)
    assert open_.label is UNDECIDED and open_.more == 1
    assert stage_state("good_question", [], 10).more == 5  # 5 "no" could decide it


def test_long_answer_three_labels():
    assert stage_state("long_answer", [False] * 7, 10).label == "NONE"
    assert stage_state("long_answer", [True] * 7, 10).label == "EXIST"
    # 4 yes and 3 no: 4..7 yes possible -> AMBIGUOUS or EXIST, one more "no" decides
    state = stage_state("long_answer", [True] * 4 + [False] * 3, 10)
    assert state.label is UNDECIDED and state.more == 1
    assert stage_state("long_answer", [True] * 4 + [False] * 4, 10).label == "AMBIGUOUS"


def test_yes_no_answer_needs_eight_of_ten():
    assert stage_state("yes_no_answer", ["YES"] * 8, 10).label == "YES"
    assert stage_state("yes_no_answer", ["NONE"] * 3, 10).label == "NONE"
    state = stage_state("yes_no_answer", ["YES"] * 7 + ["NONE"] * 2, 10)
    assert state.label is UNDECIDED and state.more == 1


def test_span_waits_for_the_full_overlap_unless_no_span_can_be_adopted():
    assert stage_state("span", [(0, 4)] * 9, 10).label is UNDECIDED  # a sub-span could win
    assert stage_state("span", [(0, 4)] * 9, 10).more == 1
    assert stage_state("span", [None] * 9, 10).label == "decided"  # 1 vote is never adopted
    assert stage_state("span", [], 10).more == 9
    assert stage_state("span", [(0, 4)] * 10, 10).label == "decided"


def test_stages_open_in_the_papers_order():
    state = curtail("q", [], [1, 2], "jnq", 10)
    assert [(s.stage, s.paragraph, s.more) for s in state.open] == [("good_question", None, 5)]
    good = _votes("good_question", [True] * 6)
    state = curtail("q", good, [1, 2], "jnq", 10)
    assert [(s.stage, s.paragraph) for s in state.open] == [
        ("long_answer", 1), ("long_answer", 2), ("yes_no_question", None)]
    state = curtail("q", good, [1, 2], "jboolq", 10)
    assert [(s.stage, s.paragraph) for s in state.open] == [("yes_no_question", None)]
    bad = _votes("good_question", [False] * 5)
    assert curtail("q", bad, [1, 2], "jnq", 10).decided
    assert aggregate_curtailed("q", bad, [1, 2], "jnq", 10).outcome == "bad_question"


def test_curtailed_aggregate_counts_real_judgments():
    votes = (_votes("good_question", [True] * 6) + _votes("long_answer", [False] * 7, 1)
             + _votes("yes_no_question", [False] * 7))
    result = aggregate_curtailed("q", votes, [1], "jnq", 10)
    assert result.outcome == "kept" and result.is_yes_no_question is False
    [paragraph] = result.paragraphs
    assert (paragraph.label, paragraph.yes_votes, paragraph.votes) == ("NONE", 0, 7)
    assert result.annotators == 6
    assert result.stage_votes == {"good_question": 6, "long_answer": 7, "yes_no_question": 7}
    assert aggregate_question("q", votes, [1], "jnq", 10).outcome == "pending"


SPANS = [(0, 4), (1, 3), (2, 3), (0, 8), (4, 6), (5, 6)]


def _value(stage: str, rng: random.Random, lean: float) -> object:
    if stage == "yes_no_answer":
        return rng.choices(["YES", "NO", "NONE"], [lean, 1 - lean, 0.3])[0]
    if stage == "span":
        return None if rng.random() < 0.3 else rng.choice(SPANS[:rng.randint(1, len(SPANS))])
    return rng.random() < lean


def _full_votes(rng: random.Random, qid: str, candidates: list[int], ways: int) -> list:
    """A value for every worker on every slot a question could need, leaning per slot (so
    counts near the thresholds are common)."""
    votes = []
    for stage in ("good_question", "yes_no_question"):
        lean = rng.random()
        votes += [JnqVote(qid, f"w{i:02d}", stage, _value(stage, rng, lean))
                  for i in range(ways)]
    for stage in ("long_answer", "yes_no_answer", "span"):
        for paragraph in candidates:
            lean = rng.random()
            votes += [JnqVote(qid, f"w{i:02d}", stage, _value(stage, rng, lean), paragraph)
                      for i in range(ways)]
    return votes


def _decisions(result) -> tuple:
    return (result.outcome, result.is_yes_no_question,
            tuple((p.paragraph_id, p.label, p.short_answer_type, p.span, p.yes_no_answer)
                  for p in result.paragraphs))


def run_rounds(qid: str, full: list, candidates: list[int], order: str, ways: int
               ) -> tuple[list, int]:
    """Feed the full set's votes in worker order as ``curtail`` asks; (votes, rounds)."""
    queue: dict[tuple, list] = {}
    for vote in full:
        queue.setdefault((vote.stage, vote.paragraph), []).append(vote)
    given: list = []
    for rounds in range(1, 10 * ways):
        state = curtail(qid, given, candidates, order, ways)
        if state.decided:
            return given, rounds - 1
        for slot in state.open:
            pending = queue[(slot.stage, slot.paragraph)]
            assert 1 <= slot.more <= len(pending)
            given += pending[:slot.more]
            del pending[:slot.more]
    raise AssertionError("rounds never ended")


@pytest.mark.parametrize("order", ["jnq", "jboolq"])
@pytest.mark.parametrize("ways", [10, 5])
def test_curtailed_decisions_equal_the_full_overlaps(order, ways):
    rng = random.Random(f"curtail-{order}-{ways}")
    used = full_overlap = 0
    for number in range(400):
        qid = f"q{number}"
        candidates = list(range(rng.randint(1, 5)))
        full = _full_votes(rng, qid, candidates, ways)
        expected = aggregate_question(qid, full, candidates, order, ways)
        given, rounds = run_rounds(qid, full, candidates, order, ways)
        result = aggregate_curtailed(qid, given, candidates, order, ways)
        assert _decisions(result) == _decisions(expected), qid
        assert rounds <= 5 * ways
        used += len(given)
        full_overlap += fixed_overlap(curtail(qid, given, candidates, order, ways), ways)
        assert sum(expected.stage_votes.values()) == fixed_overlap(
            curtail(qid, given, candidates, order, ways), ways)
    assert used < full_overlap


def test_a_complete_vote_set_aggregates_as_the_paper_does():
    rng = random.Random("complete")
    for number in range(100):
        candidates = [0, 1, 2]
        full = _full_votes(rng, f"q{number}", candidates, 10)
        for order in ("jnq", "jboolq"):
            expected = aggregate_question(f"q{number}", full, candidates, order, 10)
            assert aggregate_curtailed(f"q{number}", full, candidates, order, 10) == expected
