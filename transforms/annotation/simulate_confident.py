"""Simulated campaigns under the confident stop rule, without Beam (benchmarks, tests).

Each round does what ``annotate next --stop confident`` then ``annotate simulate --requests``
do: fit Dawid-Skene on every vote so far (``confident.confident_round``), ask every question's
open slots (``filters.annotation.sequential``) and let the simulated pool answer them
(``simulate_rounds``: the same draws as the full overlap's, so the votes are a subset of the
full overlap's). The campaign ends when a round asks nothing; its decisions are then the
import's (``Confident.aggregate`` under the last fit, on every vote).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from filters.annotation.curtail import PAPER
from filters.annotation.jnq import JnqResult, JnqThresholds
from filters.annotation.nq_decisions import nq_decisions
from filters.annotation.sequential import StopRule
from filters.annotation.votes import JnqVote, parse_jnq_vote, parse_nq_vote
from transforms.annotation.confident import Confident, confident_round
from transforms.annotation.simulate import WorkerPool
from transforms.annotation.simulate_rounds import answer_jnq_requests, answer_nq_request

MAX_ROUNDS = 100  # a guard: each round adds a judgment to every open slot, ways bounds them


def _all(votes: Mapping[str, list[Any]]) -> list[Any]:
    return [vote for judged in votes.values() for vote in judged]


def _rounds(ask: Callable[[], tuple[Confident, int]]) -> tuple[Confident, int]:
    """Call ``ask`` (one round: the model fitted on the votes so far, and how many judgments
    it asked) until a round asks nothing: that round's model and the rounds that asked."""
    rounds = 0
    while True:
        confident, asked = ask()
        if not asked:
            return confident, rounds
        rounds += 1
        if rounds > MAX_ROUNDS:
            raise RuntimeError(f"no end after {MAX_ROUNDS} rounds")


def jnq_confident_campaign(rows: Sequence[Mapping[str, Any]], pool: WorkerPool, order: str,
                           ways: int, rule: StopRule, t: JnqThresholds = PAPER
                           ) -> dict[str, Any]:
    """Rounds until nothing is open: ``{"results": {question id: JnqResult}, "votes": {id:
    [JnqVote]}, "judgments", "rounds", "model": the last Confident}``."""
    votes: dict[str, list[JnqVote]] = {str(row["id"]): [] for row in rows}

    def ask() -> tuple[Confident, int]:
        confident = confident_round(rule, _all(votes), t)
        asked = 0
        for row in rows:
            question_id = str(row["id"])
            candidates = [int(p) for p in row["candidate_paragraph_ids"]]
            state = confident.jnq_state(question_id, votes[question_id], candidates, order,
                                        ways)
            if not state.open:
                continue
            requests = [{"stage": s.stage, "paragraph": s.paragraph, "more": s.more}
                        for s in state.open]
            fresh = [parse_jnq_vote(v) for v in answer_jnq_requests(
                row, requests, votes[question_id], ways, pool, order)]
            if not fresh:
                raise RuntimeError(f"{question_id}: open slots but no worker left to ask")
            votes[question_id] += fresh
            asked += len(fresh)
        return confident, asked

    confident, rounds = _rounds(ask)
    results: dict[str, JnqResult] = {
        str(row["id"]): confident.aggregate(
            str(row["id"]), votes[str(row["id"])],
            [int(p) for p in row["candidate_paragraph_ids"]], order, ways)
        for row in rows}
    return {"results": results, "votes": votes, "judgments": len(_all(votes)),
            "rounds": rounds, "model": confident}


def nq_confident_campaign(examples: Sequence[Mapping[str, Any]], pool: WorkerPool, ways: int,
                          rule: StopRule) -> dict[str, Any]:
    """NQ rounds until every example is closed: ``{"votes": {example id: [vote records]},
    "decisions": {example id: nq_decisions rows}, "judgments", "rounds"}``."""
    votes: dict[str, list[dict[str, Any]]] = {str(e["example_id"]): [] for e in examples}

    def ask() -> tuple[Confident, int]:
        parsed = {item: [parse_nq_vote(v) for v in judged] for item, judged in votes.items()}
        confident: Confident = confident_round(rule, _all(parsed), PAPER)
        asked = 0
        for example in examples:
            item = str(example["example_id"])
            more = confident.nq_more(item, parsed[item], ways)
            if more:
                fresh = answer_nq_request(example, {"more": more}, parsed[item], ways, pool)
                votes[item] += fresh
                asked += len(fresh)
        return confident, asked

    confident, rounds = _rounds(ask)
    decisions = {item: nq_decisions(item, [v["long_answer_candidate"] for v in judged], "ds",
                                    confident.posteriors)
                 for item, judged in votes.items()}
    return {"votes": votes, "decisions": decisions, "judgments": len(_all(votes)),
            "rounds": rounds, "model": confident}

