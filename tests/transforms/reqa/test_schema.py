"""ReQA stable ids (transforms.reqa.schema)."""

from __future__ import annotations

from transforms.reqa.schema import candidate_id, paragraph_id, question_id


def test_ids_are_stable_and_distinct():
    assert question_id("squad", "Q") == question_id("squad", "Q") != question_id("nq", "Q")
    pid = paragraph_id("nq", "D", "text")
    assert len(pid) == 24 and pid != paragraph_id("nq", "E", "text")
    assert candidate_id("nq", pid, 0, 4) != candidate_id("nq", pid, 0, 5)
