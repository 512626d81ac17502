"""Labeling configs are well-formed and read only keys our tasks carry; tasks are plain JSON."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from filters.annotation.votes import JNQ_STAGES
from tests.transforms.annotation.label_studio.fixtures import jnq_row, nq_example
from transforms.annotation.label_studio.configs import (
    LONG_ANSWER_LABEL,
    LONG_ANSWER_MARKED,
    LONG_ANSWER_SHOWN,
    NO_ANSWER,
    SHORT_ANSWER_LABEL,
    jnq_config,
    nq_config,
    nq_instructions,
    project_settings,
)
from transforms.annotation.label_studio.tasks import jnq_tasks, nq_task
from transforms.annotation.page import PAGE_STYLE, render_page


def _variables(config: str) -> set[str]:
    return set(re.findall(r'value="\$(\w+)"', config))


def _named(root: ET.Element) -> dict[str, ET.Element]:
    return {element.get("name"): element for element in root.iter() if element.get("name")}


def test_nq_config_asks_the_three_stages_on_the_page_hidden_until_good():
    root = ET.fromstring(nq_config())
    named = _named(root)
    assert [c.get("value") for c in named["question_good"]] == ["good", "bad"]
    assert named["question_good"].get("required") == "true"
    hidden = [v for v in root.iter("View") if v.get("visibleWhen")]
    assert {(v.get("visibleWhen"), v.get("whenTagName"), v.get("whenChoiceValue"))
            for v in hidden} == {("choice-selected", "question_good", "good")}
    inside = {name for view in hidden for name in _named(view)}
    assert {"page", "answer", "long_answer", "yes_no_answer"} <= inside
    assert "question_good" not in inside
    page = named["page"]
    assert (page.tag, page.get("value"), page.get("inline")) == ("HyperText", "$page", "true")
    assert named["answer"].tag == "Labels" and named["answer"].get("toName") == "page"
    labels = {label.get("value"): label for label in named["answer"]}
    assert set(labels) == {LONG_ANSWER_LABEL, SHORT_ANSWER_LABEL}
    # No maxUsages: marking a new box replaces the long answer (the last mark counts) instead
    # of a "can't use Long answer more than 1 time(s)" warning.
    assert labels[LONG_ANSWER_LABEL].get("maxUsages") is None
    assert labels[SHORT_ANSWER_LABEL].get("granularity") == "word"
    # Label Studio refuses Submit until the long-answer decision is made.
    assert named["long_answer"].get("required") == "true"
    assert [c.get("value") for c in named["long_answer"]] == [LONG_ANSWER_MARKED, NO_ANSWER]
    assert [c.get("value") for c in named["yes_no_answer"]] == ["NONE", "YES", "NO"]
    assert not any(e.tag in ("Paragraphs", "ParagraphLabels") for e in root.iter())
    assert PAGE_STYLE in next(root.iter("Style")).text


def test_nq_config_pins_only_the_question_and_one_line_of_choices():
    root = ET.fromstring(nq_config())
    [bar] = [v for v in root.iter("View") if "sticky" in (v.get("style") or "")]
    inside = [e.tag for e in bar.iter() if e is not bar]
    assert "Header" not in inside and "HyperText" not in inside
    assert {e.get("name") for e in bar.iter() if e.get("name")} == {
        "question", "question_good", "answer", "long_answer", "yes_no_answer"}
    rows = [v for v in bar.iter("View") if "flex" in (v.get("style") or "")]
    assert rows and all("Text" not in [e.tag for e in row.iter()] for row in rows)


def test_nq_instructions_say_how_to_change_the_long_answer():
    text = nq_instructions()
    assert "Changed your mind?" in text and "the <i>last</i> box you marked" in text
    assert "press Backspace" in text and f"<b>{LONG_ANSWER_SHOWN}</b>" in text
    assert "draft" in text and f"Before\nchoosing <b>{NO_ANSWER}</b>, remove every mark" in text


@pytest.mark.parametrize("stage", JNQ_STAGES)
def test_jnq_configs_are_well_formed_and_name_their_stage(stage):
    config = jnq_config(stage)
    named = _named(ET.fromstring(config))
    assert stage in named
    for control in named.values():
        if control.get("toName"):
            assert control.get("toName") in named
    task_keys = set(jnq_tasks(jnq_row(), stage, "dev", "fp")[0]["data"])
    assert _variables(config) <= task_keys


def test_jnq_span_config_marks_one_span_or_ticks_no_span():
    named = _named(ET.fromstring(jnq_config("span")))
    assert named["span"].tag == "Labels" and named["span"].get("toName") == "paragraph"
    assert [label.get("maxUsages") for label in named["span"]] == ["1"]
    assert named["no_span"].get("choice") == "multiple"


def test_unknown_stage_is_refused():
    with pytest.raises(ValueError, match="unknown JNQ stage"):
        jnq_config("nq")
    with pytest.raises(ValueError, match="unknown JNQ stage"):
        jnq_tasks(jnq_row(), "bad_stage", "dev", "fp")


def test_nq_task_carries_the_page_and_its_map_back_to_tokens_and_boxes():
    example = nq_example()
    task = nq_task(example, "dev", "0123456789abcdef")
    assert json.loads(json.dumps(task)) == task
    data = task["data"]
    assert _variables(nq_config()) <= set(data)
    page = render_page(example)
    assert data["example_id"] == "-4242"
    assert (data["split"], data["release"], data["dataset"]) == ("dev", "0123456789abcdef", "nq")
    assert data["page"] == page.html
    assert (data["page_tokens"], data["page_starts"], data["page_lengths"]) == (
        list(page.tokens), list(page.starts), list(page.lengths))
    assert data["boxes"] == [list(box) for box in page.boxes]
    assert len(data["boxes"]) == len(example["long_answer_candidates"])


def test_a_page_without_candidates_says_so_and_has_no_box():
    example = {**nq_example(), "long_answer_candidates": []}
    data = nq_task(example, "dev", "0123456789abcdef")["data"]
    assert "no long-answer candidates" in data["page"]
    assert data["boxes"] == data["page_tokens"] == []


def test_jnq_question_stages_give_one_task_paragraph_stages_one_per_candidate():
    row = jnq_row()
    (good,) = jnq_tasks(row, "good_question", "test", "fp")
    assert good["data"] == {"question_id": "9876543210", "question": row["question"],
                            "document_title": "貿易風", "stage": "good_question",
                            "split": "test", "release": "fp"}
    tasks = jnq_tasks(row, "long_answer", "test", "fp")
    assert [t["data"]["paragraph"] for t in tasks] == [0, 3, 1, 5, 2]
    assert [t["data"]["paragraph_text"] for t in tasks] == [
        row["paragraphs"][i]["text"] for i in (0, 3, 1, 5, 2)]
    assert {t["data"]["stage"] for t in tasks} == {"long_answer"}
    exist = jnq_tasks(row, "span", "test", "fp", paragraphs=[3, 5])
    assert [t["data"]["paragraph"] for t in exist] == [3, 5]
    with pytest.raises(ValueError, match="no paragraph 42"):
        jnq_tasks(row, "yes_no_answer", "test", "fp", paragraphs=[42])


def test_project_settings_ask_for_k_way_overlap_on_every_task():
    settings = project_settings("NQ dev", nq_config(), 5)
    assert settings["title"] == "NQ dev" and settings["label_config"] == nq_config()
    assert settings["maximum_annotations"] == 5
    assert settings["overlap_cohort_percentage"] == 100
    assert settings["show_overlap_first"] is True
    assert settings["skip_queue"] == "REQUEUE_FOR_OTHERS"
    assert project_settings("t", nq_config(), 1, "Read NQ §3.2")["show_instruction"] is True
    with pytest.raises(ValueError):
        project_settings("t", nq_config(), 0)
