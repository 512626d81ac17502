"""Simulated adaptive rounds: the curtailed campaign's decisions are the full overlap's."""

from __future__ import annotations

import pytest

from filters.annotation.votes import parse_jnq_vote
from transforms.annotation.simulate import WorkerPool
from transforms.annotation.simulate_rounds import answer_jnq_requests, jnq_campaign

ROW = {"id": "q1", "question": "?", "candidate_paragraph_ids": [1, 2, 3],
       "candidate_ranks": [0, 1, 2],
       "paragraphs": [{"id": p, "text": f"paragraph number {p} of the page"} for p in (1, 2, 3)]}


def _rows(count: int) -> list[dict]:
    return [{**ROW, "id": f"q{number}"} for number in range(count)]


@pytest.mark.parametrize("order", ["jnq", "jboolq"])
def test_a_small_campaign_saves_judgments_with_identical_decisions(order):
    found = jnq_campaign(_rows(60), WorkerPool(size=20, spammer_share=0.2, seed=3), order)
    assert found["identical"] == found["questions"] == 60
    assert 0 < found["judgments"] < found["full_overlap"]


def test_answers_come_from_workers_not_yet_asked():
    pool = WorkerPool(size=20, seed=1)
    first = answer_jnq_requests(ROW, [{"stage": "good_question", "more": 4}], [], 10, pool,
                                "jnq")
    assert len(first) == 4 and len({v["annotator_id"] for v in first}) == 4
    again = answer_jnq_requests(ROW, [{"stage": "good_question", "more": 6}],
                                [parse_jnq_vote(v) for v in first], 10, pool, "jnq")
    assert not {v["annotator_id"] for v in again} & {v["annotator_id"] for v in first}
    assert len(again) == 6
