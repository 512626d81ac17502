"""The pure parts of a ReQA refresh: which row is written for an id and what it counts, and
which paragraphs are split (``transforms.reqa.refresh``, ``labeling.task_sentences``)."""

from __future__ import annotations

import pytest

from transforms.core.accounting import TALLY
from transforms.reqa.labeling import task_sentences
from transforms.reqa.refresh import choose, paragraph_sentences, row_key
from transforms.reqa.tasks import ReqaTask, TaskParagraph, TaskQuestion

OLD = {"qid": "q1", "question": "who?", "example_ids": ["e1"]}


def outcome(previous: list[dict], fresh: list[dict], recompute_all: bool = False):
    out = list(choose(("qid:q1", {"previous": previous, "fresh": fresh}), recompute_all))
    tallies = [o.value for o in out if getattr(o, "tag", None) == TALLY]
    rows = [o for o in out if not hasattr(o, "tag")]
    return tallies, rows


def test_the_previous_row_is_written_when_this_runs_row_has_the_same_values():
    tallies, rows = outcome([OLD], [dict(OLD)])
    assert tallies == [("refresh.carried", 1)] and rows[0] is OLD


@pytest.mark.parametrize("previous, fresh, recompute_all, counted, written", [
    ([OLD], [{**OLD, "example_ids": ["e1", "e2"]}], False, "recomputed", "fresh"),
    ([OLD], [dict(OLD)], True, "recomputed", "fresh"),
    ([], [dict(OLD)], False, "new", "fresh"),
    ([OLD], [], False, "removed", None),
])
def test_other_values_new_ids_and_gone_ids(previous, fresh, recompute_all, counted, written):
    tallies, rows = outcome(previous, fresh, recompute_all)
    assert tallies == [(f"refresh.{counted}", 1)]
    assert rows == ([] if written is None else fresh)
    if written:
        assert rows[0] is fresh[0]


def test_row_keys_name_their_table():
    assert row_key({"qid": "a", "question": "?"}) == "qid:a"
    assert row_key({"candidate_id": "a", "sentence": "."}) == "candidate_id:a"
    with pytest.raises(KeyError):
        row_key({"id": "a"})


def test_previous_sentences_are_ordered_offsets_of_a_paragraph():
    assert paragraph_sentences(("p", [(10, 20), (0, 9), (10, 20)])) == (
        "p", ((0, 9), (10, 20)))


def test_known_paragraphs_are_not_split_and_the_others_keep_their_order():
    def task(*ids: str) -> ReqaTask:
        return ReqaTask("nlquad", "doc", tuple(TaskParagraph(i, f"text {i}") for i in ids),
                        (TaskQuestion("e", "q", ((0, 1),)),))

    asked: list[list[str]] = []

    def split_all(texts: list[str]):
        asked.append(list(texts))
        return [[(0, len(t))] for t in texts]

    known = {"b": ((0, 2), (3, 6))}
    got = task_sentences([task("a", "b"), task("c")], known, split_all)
    assert asked == [["text a", "text c"]]
    assert got == [[[(0, 6)], ((0, 2), (3, 6))], [[(0, 6)]]]
    asked.clear()
    assert task_sentences([task("b")], known, split_all) == [[((0, 2), (3, 6))]]
    assert asked == []  # nothing left to split: the splitter is not called
