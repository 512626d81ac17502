"""--aggregate's worker models on a tiny hand-made campaign: spammers outvoted by skill."""

import random
import sys

import pytest

from filters.annotation.jnq import JnqThresholds, aggregate_question
from filters.annotation.votes import JnqVote, NqVote
from filters.annotation.worker_models import (
    answer_decision,
    binary_decision,
    item_key,
    nq_items,
    vote_share,
)
from transforms.annotation.worker_fit import fit_campaign, require_crowd_kit
from transforms.annotation.worker_rules import decisions, rules_for
from transforms.core.errors import UsageError

pytest.importorskip("crowdkit.aggregation")

TRUTH = {f"q{i:03d}": i % 2 == 0 for i in range(80)}


def _campaign() -> list[JnqVote]:
    """3 careful workers (90% right) and 7 who answer at random, 10 per question."""
    rng = random.Random(7)
    votes = []
    for question, good in TRUTH.items():
        for w in range(3):
            votes.append(JnqVote(question, f"good{w}", "good_question",
                                 good if rng.random() < 0.9 else not good))
        for w in range(7):
            votes.append(JnqVote(question, f"spam{w}", "good_question", rng.random() < 0.5))
    return votes


def _accuracy(votes: list[JnqVote], aggregate: str) -> tuple[float, object]:
    model = fit_campaign(aggregate, votes)
    rules = rules_for(model, JnqThresholds())
    right = 0
    for question, good in TRUTH.items():
        mine = [v for v in votes if v.question_id == question]
        result = aggregate_question(question, mine, [0], "jnq", 10, rules=rules)
        right += (result.outcome != "bad_question") == good
    return right / len(TRUTH), model


@pytest.fixture(scope="module")
def campaign():
    votes = _campaign()
    return votes, {a: _accuracy(votes, a) for a in ("paper", "ds", "mace", "glad")}


def test_models_outvote_spammers(campaign):
    _votes, results = campaign
    paper = results["paper"][0]
    assert paper < 0.9  # 7 random workers push the paper's 6-of-10 rule around
    for aggregate in ("ds", "mace", "glad"):
        assert results[aggregate][0] >= paper + 0.05, aggregate


def test_skills_separate_careful_workers_from_spammers(campaign):
    _votes, results = campaign
    for aggregate in ("ds", "mace", "glad"):
        skills = results[aggregate][1].skills
        assert set(skills) == {f"good{w}" for w in range(3)} | {f"spam{w}" for w in range(7)}
        assert min(skills[f"good{w}"] for w in range(3)) > max(
            skills[f"spam{w}"] for w in range(7)), aggregate
        assert all(0.0 <= s <= 1.0 for s in skills.values())
    assert results["paper"][1].skills == {}


def test_decisions_carry_confidences_in_unit_interval(campaign):
    votes, results = campaign
    question = "q001"  # a bad question: decided at the first stage
    mine = [v for v in votes if v.question_id == question]
    for aggregate in ("paper", "ds"):
        model = results[aggregate][1]
        result = aggregate_question(question, mine, [0], "jnq", 10,
                                    rules=rules_for(model, JnqThresholds()))
        rows = decisions(result, mine, model)
        assert rows[0]["stage"] == "good_question"
        assert all(0.0 <= r["confidence"] <= 1.0 for r in rows)
    paper_rows = decisions(aggregate_question(question, mine, [0], "jnq", 10), mine, None)
    trues = sum(1 for v in mine if v.value is True)
    assert paper_rows[0]["confidence"] == pytest.approx(max(trues, 10 - trues) / 10)


def test_posterior_maps_to_the_papers_labels():
    assert binary_decision({"true": 0.7}, 0.7, 0.4) is True
    assert binary_decision({"true": 0.5}, 0.7, 0.4) == "ambiguous"
    assert binary_decision({"true": 0.39}, 0.7, 0.4) is False
    assert answer_decision({"YES": 0.85, "NO": 0.1, "NONE": 0.05}, 0.8) == "YES"
    assert answer_decision({"YES": 0.6, "NO": 0.3, "NONE": 0.1}, 0.8) == "NONE"
    assert vote_share([True] * 7 + [False] * 3) == pytest.approx(0.7)
    assert vote_share([]) is None


def test_nq_is_formulated_per_decision():
    votes = [NqVote("e1", "a", True, 3, (), "NONE"), NqVote("e1", "b", True, 5, (), "NONE"),
             NqVote("e1", "c", True, -1, (), "NONE")]
    kinds = nq_items(votes)
    assert sorted(kinds["has_answer"]) == [(item_key("e1", "has_answer"), w, label)
                                           for w, label in (("a", "true"), ("b", "true"),
                                                            ("c", "false"))]
    candidate = {(i, w): label for i, w, label in kinds["candidate"]}
    assert candidate[(item_key("e1", "candidate", 3), "a")] == "true"
    assert candidate[(item_key("e1", "candidate", 3), "b")] == "false"
    assert candidate[(item_key("e1", "candidate", 5), "c")] == "false"
    assert len(candidate) == 6  # two candidates chosen, three workers


def test_missing_crowd_kit_is_a_usage_error(monkeypatch):
    require_crowd_kit("paper")  # never needs it
    monkeypatch.setitem(sys.modules, "crowdkit.aggregation", None)
    with pytest.raises(UsageError, match=r"pip install '\.\[crowd\]'"):
        require_crowd_kit("ds")


def test_nq_paper_decisions_follow_nq_5_1():
    from filters.annotation.nq_decisions import compare, nq_decisions

    two_of_five = nq_decisions("e", [3, 3, -1, -1, -1])
    assert [(d["decision"], d["label"], d["confidence"]) for d in two_of_five] == [
        ("has_answer", "true", 0.4), ("long_answer", "3", 1.0)]
    one_of_five = nq_decisions("e", [4, -1, -1, -1, -1])
    assert [(d["label"], d["confidence"]) for d in one_of_five] == [("false", 0.8)]
    assert [d["label"] for d in nq_decisions("e", [7])] == ["true", "7"]  # 1-way
    assert compare(two_of_five, 3) == (2, 2)
    assert compare(two_of_five, 5) == (2, 1)
    assert compare(two_of_five, -1) == (1, 0)
