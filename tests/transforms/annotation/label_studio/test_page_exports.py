"""Exports of NQ page tasks (``nq_config``'s HyperText) into votes: the box a mark falls in,
short answers to exact document tokens, and every inconsistent annotation refused by name."""

from __future__ import annotations

from typing import Any

import pytest

from filters.annotation.votes import parse_nq_vote
from tests.transforms.annotation.label_studio.fixtures import (
    annotation,
    choice,
    exported_task,
    nq_example,
    page_mark,
)
from transforms.annotation.label_studio.configs import (
    LONG_ANSWER_LABEL,
    LONG_ANSWER_MARKED,
    NO_ANSWER,
)
from transforms.annotation.label_studio.exports import votes_from_export
from transforms.annotation.label_studio.tasks import nq_task
from transforms.annotation.page import page_text

RELEASE = "0123456789abcdef"
TASK = nq_task(nq_example(), "dev", RELEASE)
TEXT = page_text(TASK["data"]["page"])


def _at(needle: str, occurrence: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(occurrence + 1):
        start = TEXT.index(needle, start + 1)
    return start, start + len(needle)


def _long(needle: str, occurrence: int = 0) -> dict[str, Any]:
    return page_mark(TASK, *_at(needle, occurrence), label=LONG_ANSWER_LABEL)


def _short(needle: str, occurrence: int = 0, text: str | None = None) -> dict[str, Any]:
    return page_mark(TASK, *_at(needle, occurrence), text=text)


def _good(*regions: dict[str, Any], decision: str | None = LONG_ANSWER_MARKED) -> list[dict]:
    made = [choice("question_good", "question", "good"), *regions]
    return made + ([choice("long_answer", "page", decision)] if decision else [])


def _votes(*results: list[dict]) -> list[dict]:
    export = [exported_task(7, TASK, [annotation(i + 1, i + 3, result)
                                      for i, result in enumerate(results)])]
    return list(votes_from_export(export, "nq"))


def _vote(**answer: Any) -> dict[str, Any]:
    return {"example_id": "-4242", "annotator_id": "3", "question_good": True,
            "long_answer_candidate": -1, "short_answers": [], "yes_no_answer": "NONE",
            "release": RELEASE, "submitted_at": "2025-01-02T03:04:05.000006Z", **answer}


@pytest.mark.parametrize(("mark", "candidate"), [
    (("#3 ", 0), 3),  # a box's tag, as clicking it selects it
    (("#3", 0), 3),
    (("Trade winds", 1), 3),  # words inside the row
    (("Name", 0), 2),
    (("Direction#3 Trade", 0), 1),  # across two rows: the table holding both
    (("Sailors used them", 0), 5),
    (("them .#6 Storms", 0), 4),  # across two list items: the list
    (("#4 ", 0), 4),
    (("The trade winds blow", 0), 0),
])
def test_the_long_answer_is_the_smallest_box_holding_the_mark(mark, candidate):
    (vote,) = _votes(_good(_long(*mark)))
    assert vote == _vote(long_answer_candidate=candidate)
    parse_nq_vote(vote)


def test_a_worker_who_changes_their_mind_gets_the_last_long_answer_marked():
    # Label Studio lists regions in the order they were made (a draft's first).
    (vote,) = _votes(_good(_long("#0 "), _long("#4 ")))
    assert vote == _vote(long_answer_candidate=4)
    (vote,) = _votes(_good(_long("#4 "), _long("#0 ")))
    assert vote == _vote(long_answer_candidate=0)


def test_short_answers_map_to_exact_document_tokens():
    tokens = nq_example()["document_tokens"]
    (vote,) = _votes(_good(_long("#3 "), _short("east", 1), _short("Trade winds", 1)))
    spans = [(s["start_token"], s["end_token"]) for s in vote["short_answers"]]
    assert [" ".join(t["token"] for t in tokens[s:e]) for s, e in spans] == [
        "Trade winds", "east"]
    assert vote["long_answer_candidate"] == 3


def test_a_partly_selected_word_is_the_whole_token():
    start, end = _at("winds", 2)
    (vote,) = _votes(_good(_long("#3 "), page_mark(TASK, start + 1, end - 1)))
    token = nq_example()["document_tokens"][vote["short_answers"][0]["start_token"]]
    assert token["token"] == "winds"


def test_selected_text_with_the_browsers_tabs_and_line_breaks_still_matches():
    (vote,) = _votes(_good(_long("#1 "), _short("NameDirection", text="Name\tDirection\n")))
    assert vote["long_answer_candidate"] == 1 and len(vote["short_answers"]) == 1


def test_yes_no_and_no_answer_and_a_bad_question():
    votes = _votes(_good(_long("#0 "), choice("yes_no_answer", "page", "YES")),
                   _good(decision=NO_ANSWER),
                   [choice("question_good", "question", "bad"), _long("#0 ")])
    assert [(v["question_good"], v["long_answer_candidate"], v["yes_no_answer"])
            for v in votes] == [(True, 0, "YES"), (True, -1, "NONE"), (False, -1, "NONE")]


@pytest.mark.parametrize(("result", "reason"), [
    (_good(_long("#0 "), decision=None), "malformed_annotation"),  # no decision
    (_good(), "malformed_annotation"),  # "the box I marked" with nothing marked
    (_good(_long("#0 "), decision=NO_ANSWER), "malformed_annotation"),
    (_good(_short("east"), decision=NO_ANSWER), "malformed_annotation"),
    (_good(choice("yes_no_answer", "page", "NO"), decision=NO_ANSWER), "malformed_annotation"),
    (_good(_long("Trade winds", 0)), "span_outside_candidate"),  # the heading: no box
    (_good(_long("#0 "), _short("east", text="west")), "span_text_mismatch"),
    (_good(_long("#0 "), page_mark(TASK, 5, len(TEXT) + 3)), "span_outside_candidate"),
    (_good(_long("#0 "), page_mark(TASK, 11, 14)), "span_outside_candidate"),  # "#0 " only
    (_good({**_long("#0 "), "value": {"labels": [LONG_ANSWER_LABEL]}}), "malformed_annotation"),
    (_good({**_long("#0 "), "value": {**_long("#0 ")["value"], "labels": ["Other"]}}),
     "malformed_annotation"),
    (_good(_long("#0 "), choice("yes_no_answer", "page", "MAYBE")), "malformed_annotation"),
])
def test_inconsistent_annotations_are_refused_by_name(result, reason):
    first, refused = _votes(_good(_long("#0 ")), result)
    assert first["long_answer_candidate"] == 0
    assert refused["error"] == reason and refused["message"]
    assert (refused["task"], refused["annotation"]) == (7, 2)


@pytest.mark.parametrize("change", [
    {"page": 5}, {"page_tokens": [1]}, {"page_starts": "0"}, {"boxes": [[0]]},
    {"boxes": [[0, "9"]]}, {"page_lengths": [0] * len(TASK["data"]["page_lengths"])},
    {"page_starts": sorted(TASK["data"]["page_starts"], reverse=True)},
    {"example_id": None},
])
def test_page_tasks_of_another_shape_are_unknown(change):
    export = [exported_task(7, {"data": {**TASK["data"], **change}},
                            [annotation(1, 3, _good(_long("#0 ")))])]
    assert [r["error"] for r in votes_from_export(export, "nq")] == ["unknown_task"]


def test_offsets_are_code_points_past_characters_outside_the_bmp():
    example = nq_example()
    example["document_tokens"][5]["token"] = "\U0001f30a"  # "The" -> a wave emoji
    task = nq_task(example, "dev", RELEASE)
    text = page_text(task["data"]["page"])
    start = text.index("east")
    export = [exported_task(7, task, [annotation(1, 3, [
        choice("question_good", "question", "good"), choice("long_answer", "page",
                                                            LONG_ANSWER_MARKED),
        page_mark(task, text.index("#0 "), text.index("#0 ") + 2, label=LONG_ANSWER_LABEL),
        page_mark(task, start, start + 4)])])]
    (vote,) = votes_from_export(export, "nq")
    token = vote["short_answers"][0]["start_token"]
    assert example["document_tokens"][token]["token"] == "east"
