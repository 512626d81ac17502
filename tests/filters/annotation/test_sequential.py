"""The confident stop rule (``filters.annotation.sequential``): a stage the model is sure of
stops, an uncertain one continues one judgment at a time, the cold start and the overlap
bound it, spans close on their skill-weighted posterior (exact curtailment without
skills), and the import aggregates what it closed."""

from __future__ import annotations

import pytest

from filters.annotation.curtail import curtail
from filters.annotation.jnq import JnqThresholds, PaperRules
from filters.annotation.sequential import (
    CONFIDENT,
    EXACT_RULE,
    StopRule,
    StopRuleError,
    aggregate_confident,
    confident_state,
    nq_confident,
)
from filters.annotation.votes import JnqVote
from filters.annotation.worker_models import item_key

T = JnqThresholds()
RULE = StopRule(CONFIDENT, 0.99, 3)
RULES = PaperRules(T)  # the labels: the paper's on the votes held; only posteriors vary
CANDIDATES = [4, 7]


def _votes(stage: str, values: list, paragraph: int | None = None) -> list[JnqVote]:
    return [JnqVote("q", f"w{i}", stage, value, paragraph) for i, value in enumerate(values)]


def _posterior(p_true: float, stage: str = "good_question", paragraph: int | None = None
               ) -> dict:
    return {item_key("q", stage, paragraph): {"true": p_true, "false": 1 - p_true}}


def _state(votes, posteriors, ways=10, rule=RULE):
    return confident_state("q", votes, CANDIDATES, "jnq", ways, T, RULES, posteriors, rule)


def test_a_confident_stage_stops_and_opens_the_next_stages_cold():
    state = _state(_votes("good_question", [True] * 3), _posterior(0.995))
    assert state.states[("good_question", None)].label is True
    assert [(s.stage, s.paragraph, s.more) for s in state.open] == [
        ("long_answer", 4, 3), ("long_answer", 7, 3), ("yes_no_question", None, 3)]
    exact = curtail("q", _votes("good_question", [True] * 3), CANDIDATES, "jnq", 10)
    assert [(s.stage, s.more) for s in exact.open] == [("good_question", 3)]


def test_an_uncertain_stage_asks_one_more_and_the_cold_start_comes_first():
    uncertain = _state(_votes("good_question", [True, True, False]), _posterior(0.9))
    assert [(s.stage, s.more) for s in uncertain.open] == [("good_question", 1)]
    cold = _state(_votes("good_question", [True, True]), _posterior(0.9999))
    assert [(s.stage, s.more) for s in cold.open] == [("good_question", 1)]
    first = _state([], {})
    assert [(s.stage, s.more) for s in first.open] == [("good_question", 3)]


def test_never_beyond_the_overlap():
    votes = _votes("good_question", [True, False, True, False])
    state = _state(votes, _posterior(0.6), ways=4)
    assert state.states[("good_question", None)].label is False  # 2 of 4 < 6 of 10
    assert state.open == ()
    near = _state(votes[:3], _posterior(0.6), ways=4)
    assert [(s.stage, s.more) for s in near.open] == [("good_question", 1)]


def _span_question(spans: list) -> tuple[list[JnqVote], dict]:
    votes = (_votes("good_question", [True] * 3) + _votes("long_answer", [True] * 3, 4)
             + _votes("long_answer", [False] * 3, 7) + _votes("yes_no_question", [False] * 3)
             + _votes("span", spans, 4))
    posteriors = {**_posterior(0.999), **_posterior(0.999, "long_answer", 4),
                  **_posterior(0.001, "long_answer", 7),
                  **_posterior(0.001, "yes_no_question")}
    return votes, posteriors


def test_without_skills_spans_stay_under_exact_curtailment():
    votes, posteriors = _span_question([])
    state = _state(votes, posteriors)
    assert [(s.stage, s.paragraph, s.more) for s in state.open] == [("span", 4, 3)]  # cold
    assert aggregate_confident("q", votes, CANDIDATES, "jnq", 10, T, RULES, posteriors,
                               RULE).outcome == "pending"
    spans, _ = _span_question([(0, 2)] * 10)
    result = aggregate_confident("q", spans, CANDIDATES, "jnq", 10, T, RULES, posteriors,
                                 RULE)
    assert result.outcome == "kept"
    assert [(p.paragraph_id, p.label, p.votes, p.span) for p in result.paragraphs] == [
        (4, "EXIST", 3, (0, 2)), (7, "NONE", 3, None)]
    # exact curtailment still closes it: after 9 "no span" one more cannot reach 2 votes
    nine_none, _ = _span_question([None] * 9)
    assert _state(nine_none, posteriors).open == ()


def test_skilled_workers_agreeing_close_a_span_with_the_majority_span():
    skills = {"w0": 0.95, "w1": 0.95, "w2": 0.9}
    agreed, posteriors = _span_question([(0, 2)] * 3)
    state = confident_state("q", agreed, CANDIDATES, "jnq", 10, T, RULES, posteriors, RULE,
                            skills)
    assert state.open == ()
    result = aggregate_confident("q", agreed, CANDIDATES, "jnq", 10, T, RULES, posteriors,
                                 RULE, skills)
    assert result.outcome == "kept" and result.paragraphs[0].span == (0, 2)
    # subsumption adopts (1, 2) (its own vote and its containers'), which the workers'
    # values do not make sure of: asked one more
    nested, _ = _span_question([(0, 2), (0, 2), (1, 2)])
    state = confident_state("q", nested, CANDIDATES, "jnq", 10, T, RULES, posteriors, RULE,
                            skills)
    assert [(s.stage, s.paragraph, s.more) for s in state.open] == [("span", 4, 1)]
    # the cold start holds: two sure workers are not enough under min_votes 3
    two, _ = _span_question([(0, 2)] * 2)
    state = confident_state("q", two, CANDIDATES, "jnq", 10, T, RULES, posteriors, RULE,
                            skills)
    assert [(s.stage, s.paragraph, s.more) for s in state.open] == [("span", 4, 1)]


def test_nq_stops_when_every_decision_is_sure():
    posteriors = {item_key("e", "has_answer"): {"true": 0.999, "false": 0.001},
                  item_key("e", "candidate", 3): {"true": 0.995, "false": 0.005}}
    assert nq_confident("e", [3, 3, 3], 5, posteriors, RULE) == 0
    assert nq_confident("e", [3, 3], 5, posteriors, RULE) == 1  # the cold start
    unsure = {**posteriors, item_key("e", "candidate", 3): {"true": 0.9, "false": 0.1}}
    assert nq_confident("e", [3, 3, 3], 5, unsure, RULE) == 1
    assert nq_confident("e", [3, 3, 3, 2, 3], 5, unsure, RULE) == 0


@pytest.mark.parametrize("confidence", [0.5, 1.0, 1.5, 0.2])
def test_a_confidence_outside_the_open_interval_is_refused(confidence):
    with pytest.raises(StopRuleError, match="above 0.5 and below 1"):
        StopRule(CONFIDENT, confidence)


def test_the_default_is_exact():
    assert EXACT_RULE.rule == "exact" and not EXACT_RULE.confident
    assert EXACT_RULE.describe() == {"rule": "exact"}
