"""Model suggestions (``annotate export --suggestions``): pre-annotations that export as the
suggested vote, votes tasks' ``suggestion``, a deterministic control group, refused files and
the agreement figures of the card (issue 36 §4)."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser

import pytest

from tests.transforms.annotation.label_studio.fixtures import (
    annotation,
    choice,
    exported_task,
    jnq_row,
    nq_example,
)
from transforms.annotation import suggestions as sg
from transforms.annotation.label_studio.exports import votes_from_export
from transforms.annotation.label_studio.predictions import PageOffsets
from transforms.annotation.label_studio.tasks import jnq_tasks, nq_task
from transforms.annotation.suggestion_agreement import (
    AGREE,
    AGREEMENT,
    CONTROL,
    DECISIONS,
    DIFFERENCE,
    DIFFERENCE_CI95,
    SUGGESTED,
    card_lines,
    suggestion_agreement,
)

RELEASE = "fedcba9876543210"
SEED = 0  # -4242 and 9876543210 are not control items at rate 0.1 with this seed
NQ_PREDICTION = {"example_id": -4242, "long_answer_score": 2.5, "short_answers_score": 1.0,
                 "long_answer": {"start_token": 23, "end_token": 32, "start_byte": 125,
                                 "end_byte": 186},
                 "short_answers": [{"start_token": 29, "end_token": 30, "start_byte": -1,
                                    "end_byte": -1}],
                 "yes_no_answer": "NONE"}


def _write(tmp_path, data, name="predictions.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def _suggestions(tmp_path, data, base: str, rate: float = 0.1) -> sg.Suggestions:
    options = sg.SuggestionOptions(_write(tmp_path, data), rate, SEED)
    return sg.read_suggestions(options, base)


def _accepted(task: dict, base: str, extra: list[dict] = ()) -> dict:
    """The vote an annotator gives by submitting the pre-annotation unchanged."""
    result = [*extra, *task["predictions"][0]["result"]]
    export = [exported_task(1, task, [annotation(1, 7, result)])]
    [vote] = votes_from_export(export, base)
    return vote


class _Nodes(HTMLParser):
    """Text nodes by XPath, found independently of ``PageOffsets`` (by a stack of paths)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.counts, self.path, self.nodes = [{}], [], {}

    def handle_starttag(self, tag, attrs):
        n = self.counts[-1][tag] = self.counts[-1].get(tag, 0) + 1
        self.counts[-1]["#last"] = tag
        self.path.append(f"{tag}[{n}]")
        self.counts.append({})

    def handle_endtag(self, tag):
        self.counts.pop()
        self.path.pop()

    def handle_data(self, data):
        counts = self.counts[-1]
        if counts.get("#last") != "text":
            counts["text"] = counts.get("text", 0) + 1
        counts["#last"] = "text"
        key = "/" + "/".join([*self.path, f"text()[{counts['text']}]"])
        self.nodes[key] = self.nodes.get(key, "") + data


def test_an_accepted_nq_suggestion_exports_as_the_suggested_vote(tmp_path):
    example = nq_example()
    suggestions = _suggestions(tmp_path, {"predictions": [NQ_PREDICTION]}, "nq")
    suggestions.check_ids({"-4242"})
    task = suggestions.apply(nq_task(example, "dev", RELEASE), example, "nq", "label-studio")
    [prediction] = task["predictions"]
    assert prediction["model_version"] == suggestions.model_version
    assert prediction["score"] == 2.5
    vote = _accepted(task, "nq", [choice("question_good", "question", "good")])
    assert (vote["long_answer_candidate"], vote["short_answers"], vote["yes_no_answer"]) == (
        3, [{"start_token": 29, "end_token": 30}], "NONE")
    assert suggestions.items == {"-4242": {"long_answer_candidate": 3, "short_answers": [
        {"start_token": 29, "end_token": 30}], "yes_no_answer": "NONE"}}
    parser = _Nodes()
    parser.feed(task["data"]["page"])
    for region in prediction["result"]:
        if region["type"] == "labels":  # the XPaths and offsets select the region's text
            value = region["value"]
            assert value["start"] == value["end"]
            node = parser.nodes[value["start"]]
            assert node[value["startOffset"]:value["endOffset"]] == value["text"]
    assert [r["value"]["text"] for r in prediction["result"] if r["type"] == "labels"] == [
        "#3", "east"]


def test_a_null_prediction_suggests_no_answer(tmp_path):
    example = nq_example()
    null = {**NQ_PREDICTION, "long_answer": {"start_token": -1, "end_token": -1,
                                             "start_byte": -1, "end_byte": -1},
            "short_answers": []}
    suggestions = _suggestions(tmp_path, {"predictions": [null]}, "nq")
    task = suggestions.apply(nq_task(example, "dev", RELEASE), example, "nq", "label-studio")
    vote = _accepted(task, "nq", [choice("question_good", "question", "good")])
    assert vote["long_answer_candidate"] == -1


def test_page_offsets_count_utf16_inside_a_node():
    offsets = PageOffsets('<div class="nq-page"><div>a\U0001F600b &amp; c</div><div>d</div></div>')
    assert offsets.position(2) == ("/div[1]/div[1]/text()[1]", 3)  # the emoji is 2 units
    assert offsets.position(7, end=True) == ("/div[1]/div[1]/text()[1]", 8)
    assert offsets.position(7) == ("/div[1]/div[2]/text()[1]", 0)


def test_jnq_suggests_the_long_answer_stage_only(tmp_path):
    row = jnq_row()
    suggestions = _suggestions(tmp_path, {"9876543210": [3], "other": []}, "jnq")
    suggestions.check_ids({"9876543210"})
    assert suggestions.unknown == 1
    tasks = [suggestions.apply(t, row, "long_answer", "label-studio")
             for t in jnq_tasks(row, "long_answer", "dev", RELEASE)]
    assert [_accepted(t, "jnq")["value"] for t in tasks] == [
        t["data"]["paragraph"] == 3 for t in tasks]
    [good] = jnq_tasks(row, "good_question", "dev", RELEASE)
    assert suggestions.apply(good, row, "good_question", "label-studio") == good
    votes = [suggestions.apply(t, row, "long_answer", "votes")
             for t in jnq_tasks(row, "long_answer", "dev", RELEASE)]
    assert [t["data"][sg.SUGGESTION] for t in votes] == [p == 3 for p in
                                                          row["candidate_paragraph_ids"]]
    assert all("predictions" not in t for t in votes)
    assert suggestions.describe()["items"] == {"9876543210": {"paragraphs": [3]}}


def test_nq_votes_tasks_carry_the_suggestion(tmp_path):
    example = nq_example()
    suggestions = _suggestions(tmp_path, {"predictions": [NQ_PREDICTION]}, "nq")
    task = suggestions.apply(nq_task(example, "dev", RELEASE), example, "nq", "votes")
    assert task["data"][sg.SUGGESTION]["long_answer_candidate"] == 3
    assert "predictions" not in task


def test_the_control_group_is_deterministic_and_of_the_rate(tmp_path):
    items = [f"q{n}" for n in range(4000)]
    first = {i for i in items if sg.is_control(3, i, 0.1)}
    assert first == {i for i in items if sg.is_control(3, i, 0.1)}
    assert 0.085 < len(first) / len(items) < 0.115
    assert first != {i for i in items if sg.is_control(4, i, 0.1)}
    # sha256("0:q1") starts 0xcd93 (0.8030 of 2**64): fixed, whatever PYTHONHASHSEED is
    assert [sg.is_control(0, "q1", r) for r in (0.803, 0.804)] == [False, True]
    row = jnq_row()
    data = {row["id"]: [0]}
    control = _suggestions(tmp_path, data, "jnq", rate=0.99)
    tasks = jnq_tasks(row, "long_answer", "dev", RELEASE)
    assert [control.apply(t, row, "long_answer", "label-studio") for t in tasks] == tasks
    assert control.describe()["control"] == [row["id"]]
    assert control.describe()["items"] == {row["id"]: {"paragraphs": [0]}}  # recorded


@pytest.mark.parametrize("content, base, message", [
    ("{not json", "jnq", "not valid JSON"),
    ('{"q1": [1], "q1": [2]}', "jnq", "given more than once"),
    ({"predictions": [NQ_PREDICTION, NQ_PREDICTION]}, "nq", "given more than once"),
    ({"q1": [1]}, "nq", "NQ predictions are a JSON object"),
    ([1, 2], "jnq", "JNQ predictions are a JSON object"),
    ({"q1": {"a": 1}}, "jnq", "list of paragraph ids"),
    ({"predictions": [{"long_answer": {}}]}, "nq", "needs an example_id"),
    ({}, "jnq", "holds no prediction"),
    ("[" * 5000 + "]" * 5000, "jnq", "not valid JSON"),
])
def test_bad_predictions_files_are_refused(tmp_path, content, base, message):
    with pytest.raises(sg.SuggestionError, match=message):
        _suggestions(tmp_path, content, base)


def test_paths_that_are_not_a_bounded_regular_file_are_refused(tmp_path, monkeypatch):
    options = sg.SuggestionOptions
    with pytest.raises(sg.SuggestionError, match="No such file"):
        sg.read_suggestions(options(str(tmp_path / "missing.json")), "jnq")
    with pytest.raises(sg.SuggestionError, match="not a regular file"):
        sg.read_suggestions(options(str(tmp_path)), "jnq")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        with pytest.raises(sg.SuggestionError, match="not a regular file"):
            sg.read_suggestions(options(str(tmp_path / "fifo")), "jnq")
    monkeypatch.setattr(sg, "MAX_BYTES", 10)
    with pytest.raises(sg.SuggestionError, match="over the 10 bytes"):
        sg.read_suggestions(options(_write(tmp_path, {"q1": [1, 2, 3]})), "jnq")
    with pytest.raises(sg.SuggestionError, match="between 0 and 1"):
        options("x", control_rate=1.0)


def test_a_file_naming_no_item_is_refused(tmp_path):
    suggestions = _suggestions(tmp_path, {"q1": [1], "q2": []}, "jnq")
    with pytest.raises(sg.SuggestionError, match="none of the 2 ids"):
        suggestions.check_ids({"q3"})


def test_agreement_is_reported_per_group_with_counts():
    recorded = {"model_version": "m@1", "control_rate": 0.1, "control": ["c1", "c2"],
                "items": {"s1": {"long_answer_candidate": 2}, "s2": {"long_answer_candidate": 4},
                          "c1": {"long_answer_candidate": 1}, "c2": {"long_answer_candidate": -1}}}
    votes = [{"example_id": item, "long_answer_candidate": value}
             for item, values in (("s1", [2, 2, 3]), ("s2", [4, 5, 5]), ("c1", [1]),
                                  ("c2", [0, -1, -1]), ("other", [1]))
             for value in values]
    figures = suggestion_agreement("nq", recorded, votes, [])
    assert figures[SUGGESTED] == {"items": 2, DECISIONS: 2, AGREE: 1, AGREEMENT: 0.5}
    assert figures[CONTROL] == {"items": 2, DECISIONS: 2, AGREE: 2, AGREEMENT: 1.0}
    assert figures[DIFFERENCE] == -0.5
    # variances with items as clusters: 0.5 * 0.5 / (2 - 1) and 0; 1.96 * 0.5 = 0.98
    assert figures[DIFFERENCE_CI95] == [-1.48, 0.48]
    card = "\n".join(card_lines({"suggestions": figures}))
    assert "| suggested | 2 | 2 | 1 | 50.0% |" in card
    assert "| control | 2 | 2 | 2 | 100.0% |" in card
    assert "-50.0 points (95% interval -148.0 to +48.0, items as clusters)" in card
    rows = [{"id": "s1", "annotations": [
        {"paragraph_id": 1, "label": "EXIST", "votes": 10},
        {"paragraph_id": 2, "label": "NONE", "votes": 10},
        {"paragraph_id": 3, "label": "EXIST", "votes": 0}]}]
    jnq = suggestion_agreement("jnq", {**recorded, "control": [],
                                       "items": {"s1": {"paragraphs": [2]}}}, [], rows)
    assert jnq[SUGGESTED] == {"items": 1, DECISIONS: 2, AGREE: 0, AGREEMENT: 0.0}
    assert jnq[CONTROL][AGREEMENT] is None and jnq[DIFFERENCE] is None
    assert jnq[DIFFERENCE_CI95] is None
    labels = {"a": ("EXIST", "NONE"), "b": ("NONE", "NONE"), "d": ("EXIST", "NONE"),
              "c": ("EXIST", "NONE"), "e": ("NONE", "EXIST")}
    clustered = suggestion_agreement("jnq", {**recorded, "control": ["c", "e"], "items": {
        item: {"paragraphs": [1]} for item in labels}}, [], [
        {"id": item, "annotations": [{"paragraph_id": 1, "label": first, "votes": 10},
                                     {"paragraph_id": 2, "label": second, "votes": 10}]}
        for item, (first, second) in labels.items()])
    # suggested: 2, 1 and 2 of 2 agree, p = 5/6, variance 3/2 * (1/9 + 4/9 + 1/9) / 36 = 1/36;
    # control: 2 and 0 of 2, p = 1/2, variance 2 * (1 + 1) / 16 = 1/4;
    # 1/3 -+ 1.959964 * sqrt(10/36) = -0.6997 .. 1.3663
    assert clustered[DIFFERENCE] == 0.3333
    assert clustered[DIFFERENCE_CI95] == [-0.6997, 1.3663]
    assert card_lines({}) == []
