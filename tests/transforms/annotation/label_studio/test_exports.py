"""Label Studio JSON exports (hand-written in the shape 1.23 exports) into votes or errors."""

from __future__ import annotations

import pytest

from filters.annotation.votes import parse_jnq_vote, parse_nq_vote
from tests.transforms.annotation.label_studio.fixtures import (
    annotation,
    choice,
    exported_task,
    jnq_row,
    legacy_nq_task,
    nq_example,
    paragraph_span,
    text_span,
)
from transforms.annotation.label_studio.exports import votes_from_export
from transforms.annotation.label_studio.tasks import jnq_tasks

RELEASE = "0123456789abcdef"
WHEN = "2025-01-02T03:04:05.000006Z"


def _good(candidate: str, *more: dict) -> list[dict]:
    return [choice("question_good", "question", "good"),
            choice("long_answer", "candidates", candidate), *more]


def _nq_export(*annotations: dict) -> list[dict]:
    """An export of a task made before the page layout (``Paragraphs`` of candidates)."""
    return [exported_task(7, legacy_nq_task(nq_example(), "dev", RELEASE), list(annotations))]


def _nq_vote(annotator: str, candidate: int, spans=(), yes_no="NONE", good=True) -> dict:
    return {"example_id": "-4242", "annotator_id": annotator, "question_good": good,
            "long_answer_candidate": candidate,
            "short_answers": [{"start_token": s, "end_token": e} for s, e in spans],
            "yes_no_answer": yes_no, "release": RELEASE, "submitted_at": WHEN}


def test_nq_annotations_of_tasks_made_before_the_page_layout_become_votes():
    export = _nq_export(
        annotation(1, 3, _good("#1 Table (top level)", paragraph_span(3, 14, 18, "east"))),
        annotation(2, {"id": 4, "email": "w4@example.com"},
                   [choice("question_good", "question", "bad"),
                    choice("long_answer", "candidates", "#0 P (top level)")]),
        annotation(4, 5, _good("#0 P (top level)", choice("yes_no_answer", "candidates", "YES"))),
        annotation(5, 6, _good("#4 Ul (top level)",
                               paragraph_span(5, 2, 8, "Sailors ... Storms", last_paragraph=6))),
        annotation(6, 8, _good("No answer")),
    )
    votes = list(votes_from_export(export, "nq"))
    assert votes == [
        _nq_vote("3", 1, spans=[(29, 30)]),
        _nq_vote("4", -1, good=False),
        _nq_vote("5", 0, yes_no="YES"),
        _nq_vote("6", 4, spans=[(35, 42)]),
        _nq_vote("8", -1),
    ]
    for vote in votes:
        parse_nq_vote(vote)


def test_a_span_marked_in_a_table_maps_to_the_same_tokens_as_in_its_row():
    in_table = paragraph_span(1, 31, 35, "east")
    in_row = paragraph_span(3, 14, 18, "east")
    export = _nq_export(annotation(1, 3, _good("#3 Tr in #1", in_table, in_row)))
    (vote,) = votes_from_export(export, "nq")
    assert vote["short_answers"] == [{"start_token": 29, "end_token": 30}]


@pytest.mark.parametrize(("result", "reason"), [
    ([choice("long_answer", "candidates", "#0 P (top level)")], "malformed_annotation"),
    (_good("#9 Td in #1"), "malformed_annotation"),
    ([choice("question_good", "question", "good", "bad")], "malformed_annotation"),
    (_good("#0 P (top level)", choice("yes_no_answer", "candidates", "MAYBE")),
     "malformed_annotation"),
    (_good("#3 Tr in #1", paragraph_span(3, 14, 99, "east")), "span_outside_candidate"),
    (_good("#3 Tr in #1", paragraph_span(3, 11, 14, " | ")), "span_outside_candidate"),
    (_good("#3 Tr in #1", paragraph_span(9, 0, 4, "east")), "span_outside_candidate"),
    (_good("#3 Tr in #1", {"from_name": "short_answer", "value": {"start": "3", "end": "3"}}),
     "malformed_annotation"),
    ("not a list", "malformed_annotation"),
])
def test_unusable_nq_annotations_are_errors_naming_task_and_annotation(result, reason):
    good = annotation(1, 3, _good("#1 Table (top level)"))
    export = _nq_export(good, annotation(2, 4, result))
    first, second = votes_from_export(export, "nq")
    assert first["annotator_id"] == "3"
    assert second["error"] == reason
    assert (second["task"], second["annotation"]) == (7, 2)
    assert second["message"]


def test_cancelled_annotations_and_missing_annotators_are_errors():
    export = _nq_export(annotation(1, 3, [], was_cancelled=True),
                        annotation(2, None, _good("No answer")))
    errors = list(votes_from_export(export, "nq"))
    assert [e["error"] for e in errors] == ["cancelled_annotation", "malformed_annotation"]


def test_tasks_this_tool_did_not_write_are_unknown():
    jnq_task = jnq_tasks(jnq_row(), "good_question", "dev", RELEASE)[0]
    export = [exported_task(1, jnq_task, [annotation(1, 3, [])]),
              exported_task(2, {"data": {"text": "hello"}}, [annotation(2, 3, [])])]
    assert [e["error"] for e in votes_from_export(export, "nq")] == ["unknown_task"] * 2
    nq = _nq_export(annotation(1, 3, _good("No answer")))
    assert [e["error"] for e in votes_from_export(nq, "jboolq")] == ["unknown_task"]


def test_the_export_must_be_a_task_list_and_the_dataset_known():
    with pytest.raises(ValueError, match="list of tasks"):
        list(votes_from_export({"tasks": []}, "nq"))
    with pytest.raises(ValueError, match="dataset"):
        list(votes_from_export([], "squad"))


def _jnq_export(stage: str, results: list[list[dict]], paragraphs=(0,)) -> list[dict]:
    tasks = jnq_tasks(jnq_row(), stage, "dev", RELEASE,
                      paragraphs=list(paragraphs) if stage not in (
                          "good_question", "yes_no_question") else None)
    return [exported_task(10 + i, task, [annotation(100 + j, 3 + j, result)
                                         for j, result in enumerate(results)])
            for i, task in enumerate(tasks)]


def _jnq_vote(annotator: str, stage: str, value, paragraph=None) -> dict:
    vote = {"question_id": "9876543210", "annotator_id": annotator, "stage": stage,
            "value": value, "release": RELEASE, "submitted_at": WHEN}
    if paragraph is not None:
        vote["paragraph"] = paragraph
    return vote


@pytest.mark.parametrize(("stage", "to_name", "values", "expected", "paragraph"), [
    ("good_question", "question", ("good", "bad"), (True, False), None),
    ("yes_no_question", "question", ("yes", "no"), (True, False), None),
    ("long_answer", "paragraph", ("yes", "no"), (True, False), 3),
    ("yes_no_answer", "paragraph", ("YES", "NONE"), ("YES", "NONE"), 3),
])
def test_jnq_choice_stages_become_judgments(stage, to_name, values, expected, paragraph):
    export = _jnq_export(stage, [[choice(stage, to_name, value)] for value in values],
                         paragraphs=(3,))
    votes = list(votes_from_export(export, "jnq"))
    assert votes == [_jnq_vote(str(3 + i), stage, value, paragraph)
                     for i, value in enumerate(expected)]
    for vote in votes:
        parse_jnq_vote(vote)


def test_jnq_spans_are_paragraph_characters_or_null():
    export = _jnq_export("span", [
        [text_span(0, 3, "貿易風")],
        [choice("no_span", "paragraph", "No span")],
        [text_span(0, 3, "貿易風"), choice("no_span", "paragraph", "No span")],
        [],
        [text_span(0, 3, "貿易風"), text_span(4, 5, "東")],
        [text_span(10, 40, "...")],
    ])
    results = list(votes_from_export(export, "jboolq"))
    assert results[:2] == [_jnq_vote("3", "span", {"start": 0, "end": 3}, 0),
                           _jnq_vote("4", "span", None, 0)]
    assert [r["error"] for r in results[2:]] == [
        "malformed_annotation", "malformed_annotation", "malformed_annotation",
        "span_outside_candidate"]
    for vote in results[:2]:
        parse_jnq_vote(vote)


def test_a_wrong_choice_for_the_stage_is_malformed():
    export = _jnq_export("good_question", [[choice("good_question", "question", "maybe")],
                                           [choice("yes_no_question", "question", "yes")]])
    assert [r["error"] for r in votes_from_export(export, "jnq")] == [
        "malformed_annotation", "malformed_annotation"]


def test_utf16_offsets_of_text_outside_the_bmp_become_python_indices():
    row = {**jnq_row()}
    text = "𠮷野家は1899年に創業した。"  # 𠮷 is two UTF-16 units, one Python character
    row["paragraphs"] = [{**p, "text": text} if p["id"] == 0 else p for p in row["paragraphs"]]
    [task] = jnq_tasks(row, "span", "dev", RELEASE, paragraphs=[0])
    start16, end16 = 5, 10  # "1899年" in JavaScript's units
    export = [exported_task(10, task, [
        annotation(100, 3, [text_span(start16, end16, "1899年")]),
        annotation(101, 4, [text_span(start16, end16, "野家は1")])])]
    good, wrong = list(votes_from_export(export, "jnq"))
    assert good["value"] == {"start": 4, "end": 9} and text[4:9] == "1899年"
    assert wrong["error"] == "span_text_mismatch"


@pytest.mark.parametrize("offset", ["²", "--3", "٣", " 3x", "1e3", "9" * 400, float("inf")])
def test_offsets_that_are_not_plain_integers_are_malformed(offset):
    span = paragraph_span(3, 14, 18, "east")
    span["value"] = {**span["value"], "startOffset": offset}
    export = _nq_export(annotation(1, 3, _good("#3 Tr in #1", span)))
    assert [r.get("error") for r in votes_from_export(export, "nq")] == [
        "malformed_annotation"]


@pytest.mark.parametrize("change", [
    {"candidates": ["a", "b"], "candidate_tokens": [[], []], "candidate_starts": [[], []]},
    {"candidates": [{"label": "#0 P", "text": 5}], "candidate_tokens": [[]],
     "candidate_starts": [[]]},
    {"candidates": [{"label": "#0 P", "text": "x"}], "candidate_tokens": ["x"],
     "candidate_starts": [None]},
    {"candidates": [{"label": ["#0 P"], "text": "x"}], "candidate_tokens": [[]],
     "candidate_starts": [[]]},
    {"candidates": "abc", "candidate_tokens": "abc", "candidate_starts": "abc"},
])
def test_nq_tasks_whose_candidates_are_not_ours_are_unknown(change):
    task = legacy_nq_task(nq_example(), "dev", RELEASE)
    export = [exported_task(7, {"data": {**task["data"], **change}},
                            [annotation(1, 3, _good("#0 P (top level)"))])]
    assert [r["error"] for r in votes_from_export(export, "nq")] == ["unknown_task"]


@pytest.mark.parametrize("change", [{"paragraph_text": 5}, {"paragraph": True},
                                    {"question_id": ["q"]}])
def test_jnq_tasks_of_the_wrong_shape_are_unknown(change):
    [task] = jnq_tasks(jnq_row(), "span", "dev", RELEASE, paragraphs=[0])
    export = [exported_task(7, {"data": {**task["data"], **change}},
                            [annotation(1, 3, [text_span(0, 3, "貿易風")])])]
    assert [r["error"] for r in votes_from_export(export, "jnq")] == ["unknown_task"]


def test_an_annotator_that_is_not_text_is_malformed():
    export = _nq_export(annotation(1, "w\ud800", _good("No answer")),
                        annotation(2, {"id": ["x"]}, _good("No answer")))
    assert [r["error"] for r in votes_from_export(export, "nq")] == [
        "malformed_annotation", "malformed_annotation"]


@pytest.mark.parametrize(("change", "errors"), [
    ({"annotations": 5}, ["malformed_annotation"]),
    ({"annotations": {"id": 1}}, ["malformed_annotation"]),
    ({"annotations": [annotation(1, 3, [choice("question_good", "question", "good"),
                                         {"from_name": "long_answer", "value": {"choices": 5}}])]},
     ["malformed_annotation"]),
    ({"annotations": [annotation(1, 3, [{"from_name": "question_good",
                                         "value": {"choices": {"good": 1}}}])]},
     ["malformed_annotation"]),
])
def test_annotations_of_the_wrong_shape_are_malformed_not_crashes(change, errors):
    task = {**_nq_export(annotation(1, 3, _good("No answer")))[0], **change}
    assert [r.get("error") for r in votes_from_export([task], "nq")] == errors
