"""NQ's model decisions on a tiny campaign: a spammer's candidate or short answer that NQ
§5.1's rule takes on a tie is outweighed by a careful worker's (``nq_decisions`` with skills
and short answers), and the short answer is read from the workers who chose the decided
candidate."""

import random

import pytest

from filters.annotation.nq_decisions import nq_decisions, nq_vote_decisions
from filters.annotation.nq_short import (
    nq_short,
    paper_short,
    short_label,
    vote_weight,
    weighted_choice,
)
from filters.annotation.votes import NqVote
from filters.annotation.worker_models import item_key, nq_items

CAREFUL = ("c0", "c1", "c2")
SPAMMERS = ("s0", "s1")


def _span(candidate: int) -> tuple[tuple[int, int], ...]:
    return ((candidate * 10 + 5, candidate * 10 + 7),)


def _campaign() -> list[NqVote]:
    """80 examples judged by 3 careful workers (a missed long answer 40% of the time) and 2
    spammers (no answer half the time, else a random candidate with a random span)."""
    rng = random.Random(3)
    votes = []
    for number in range(80):
        example = f"e{number:02d}"
        truth = -1 if number % 3 == 0 else number % 10
        for worker in CAREFUL:
            if truth < 0 or rng.random() < 0.4:
                votes.append(NqVote(example, worker, True, -1, (), "NONE"))
            else:
                votes.append(NqVote(example, worker, True, truth, _span(truth), "NONE"))
        for worker in SPAMMERS:
            if rng.random() < 0.5:
                votes.append(NqVote(example, worker, True, -1, (), "NONE"))
            else:
                pick = rng.randrange(10)
                start = pick * 10 + rng.randrange(8)
                votes.append(NqVote(example, worker, True, pick, ((start, start + 1),), "NONE"))
    return votes


# Two examples where only one careful worker found the answer and a spammer ties it:
# "tie_long": the spammer's candidate 2 has the lower index (NQ §5.1 takes it);
# "tie_short": the spammer chose the right candidate 4 with a span that sorts first.
TIES = [NqVote("tie_long", "c0", True, 6, _span(6), "NONE"),
        NqVote("tie_long", "c1", True, -1, (), "NONE"),
        NqVote("tie_long", "c2", True, -1, (), "NONE"),
        NqVote("tie_long", "s0", True, 2, ((21, 22),), "NONE"),
        NqVote("tie_long", "s1", True, -1, (), "NONE"),
        NqVote("tie_short", "c0", True, 4, _span(4), "NONE"),
        NqVote("tie_short", "c1", True, -1, (), "NONE"),
        NqVote("tie_short", "c2", True, -1, (), "NONE"),
        NqVote("tie_short", "s0", True, 4, ((41, 42),), "NONE"),
        NqVote("tie_short", "s1", True, -1, (), "NONE")]


@pytest.fixture(scope="module")
def model():
    pytest.importorskip("crowdkit.aggregation")
    from transforms.annotation.worker_fit import fit_campaign

    return fit_campaign("ds", _campaign() + TIES)


def _decided(example: str, aggregate: str, model=None) -> dict[str, dict]:
    votes = [v for v in TIES if v.example_id == example]
    rows = nq_vote_decisions(example, votes, aggregate,
                             None if model is None else model.posteriors,
                             None if model is None else model.skills)
    return {row["decision"]: row for row in rows}


def test_skills_put_spammers_at_chance(model):
    assert max(model.skills[w] for w in SPAMMERS) < 0.6 < min(model.skills[w] for w in CAREFUL)


def test_a_spammers_candidate_no_longer_wins_a_tie(model):
    paper = _decided("tie_long", "paper")
    assert paper["long_answer"]["candidate"] == 2  # NQ §5.1: 1-1, the lowest index
    ds = _decided("tie_long", "ds", model)
    assert ds["has_answer"]["label"] == "true"
    assert ds["long_answer"]["candidate"] == 6
    assert ds["short_answer"]["label"] == short_label((_span(6), "NONE"))
    assert 0.0 <= ds["short_answer"]["confidence"] <= 1.0


def test_a_spammers_short_answer_no_longer_wins_a_tie(model):
    paper = _decided("tie_short", "paper")
    assert paper["long_answer"]["candidate"] == 4
    assert paper["short_answer"]["label"] == "[[41, 42]]"  # 1-1, the first in sorted order
    ds = _decided("tie_short", "ds", model)
    assert ds["long_answer"]["candidate"] == 4
    assert ds["short_answer"]["label"] == "[[45, 47]]"


def test_short_given_is_voted_by_who_chose_the_candidate():
    kinds = nq_items([v for v in TIES if v.example_id == "tie_short"])
    assert kinds["short_given"] == [(item_key("tie_short", "short_given", 4), "c0", "true"),
                                    (item_key("tie_short", "short_given", 4), "s0", "true")]
    assert len(kinds["has_answer"]) == 5


def test_the_short_answer_comes_from_the_annotators_of_the_decided_candidate():
    """Two of five gave candidate 3, one of them a span; another gave a span in candidate 8:
    NQ §5.1 counts two short answers (a tie), a model reads only candidate 3's annotators."""
    candidates = [3, 3, 8, -1, -1]
    shorts = [nq_short([(31, 33)], "NONE"), None, nq_short([(81, 82)], "NONE"), None, None]
    posteriors = {item_key("e", "has_answer"): {"true": 0.9, "false": 0.1},
                  item_key("e", "candidate", 3): {"true": 0.8, "false": 0.2},
                  item_key("e", "candidate", 8): {"true": 0.1, "false": 0.9},
                  item_key("e", "short_given", 3): {"true": 0.7, "false": 0.3}}
    skills = [0.9, 0.9, 0.9, 0.9, 0.9]
    rows = nq_decisions("e", candidates, "ds", posteriors, shorts, skills)
    assert [(r["decision"], r["candidate"], r["label"]) for r in rows] == [
        ("has_answer", None, "true"), ("long_answer", 3, "3"),
        ("short_answer", 3, "[[31, 33]]")]
    assert rows[2]["confidence"] == pytest.approx(0.7)
    posteriors[item_key("e", "short_given", 3)] = {"true": 0.2, "false": 0.8}
    none = nq_decisions("e", candidates, "ds", posteriors, shorts, skills)[2]
    assert (none["label"], none["confidence"]) == ("null", pytest.approx(0.8))
    paper = nq_decisions("e", candidates, "paper", None, shorts)
    assert (paper[2]["candidate"], paper[2]["label"]) == (3, "[[31, 33]]")


def test_paper_short_answer_follows_nq_5_1():
    span = nq_short([{"start_token": 5, "end_token": 7}], "NONE")
    assert paper_short([span, span, None, None, None]) == (span, 1.0)
    assert paper_short([span, None, None, None, None]) == (None, 0.8)
    assert paper_short([span]) == (span, 1.0)  # 1-way
    yes = nq_short([], "YES")
    assert paper_short([yes, span, yes, None, None]) == (yes, pytest.approx(2 / 3))
    assert nq_short([], "NONE") is None
    assert [short_label(s) for s in (None, span, yes)] == ["null", "[[5, 7]]", "YES"]
    without = nq_decisions("e", [3, 3, -1, -1, -1])
    assert [r["decision"] for r in without] == ["has_answer", "long_answer"]
    with pytest.raises(ValueError, match="one entry per annotation"):
        nq_decisions("e", [3, 3], shorts=[None])


def test_vote_weights():
    assert vote_weight(0.5) == vote_weight(None) == vote_weight(0.1) < 0.05
    assert vote_weight(0.99) == vote_weight(1.0) > 4
    assert weighted_choice([2, 6], [vote_weight(0.5), vote_weight(0.95)]) == 6
    assert weighted_choice([6, 2], [1.0, 1.0]) == 2  # a tie: the first in sorted order
    assert weighted_choice([6, 6, 2], [1.0, 1.0, 2.0]) == 6  # equal weight: the more often
