"""Labeling configs are well-formed and read only keys our tasks carry; tasks are plain JSON."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from filters.annotation.votes import JNQ_STAGES
from tests.transforms.annotation.label_studio.fixtures import jnq_row, nq_example
from transforms.annotation.label_studio.configs import (
    NO_ANSWER,
    jnq_config,
    nq_config,
    project_settings,
)
from transforms.annotation.label_studio.tasks import jnq_tasks, nq_task
from transforms.annotation.render import render_candidates


def _variables(config: str) -> set[str]:
    return set(re.findall(r'value="\$(\w+)"', config))


def _named(root: ET.Element) -> dict[str, ET.Element]:
    return {element.get("name"): element for element in root.iter() if element.get("name")}


def test_nq_config_asks_the_three_stages_with_the_page_hidden_until_good():
    root = ET.fromstring(nq_config())
    named = _named(root)
    assert [c.get("value") for c in named["question_good"]] == ["good", "bad"]
    assert named["question_good"].get("required") == "true"
    hidden = next(v for v in root.iter("View") if v.get("visibleWhen"))
    assert (hidden.get("visibleWhen"), hidden.get("whenTagName"),
            hidden.get("whenChoiceValue")) == ("choice-selected", "question_good", "good")
    inside = _named(hidden)
    assert {"candidates", "long_answer", "short_answer", "yes_no_answer"} <= set(inside)
    assert "question_good" not in inside
    assert inside["candidates"].tag == "Paragraphs"
    assert (inside["candidates"].get("nameKey"), inside["candidates"].get("textKey")) == (
        "label", "text")
    assert inside["long_answer"].get("value") == "$long_answer_options"
    assert inside["short_answer"].tag == "ParagraphLabels"
    assert inside["short_answer"].get("toName") == "candidates"
    assert [c.get("value") for c in inside["yes_no_answer"]] == ["NONE", "YES", "NO"]


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


def test_nq_task_carries_candidates_options_and_the_token_map():
    example = nq_example()
    task = nq_task(example, "dev", "0123456789abcdef")
    assert json.loads(json.dumps(task)) == task
    data = task["data"]
    assert _variables(nq_config()) <= set(data)
    rendered = render_candidates(example)
    assert data["example_id"] == "-4242"
    assert (data["split"], data["release"], data["dataset"]) == ("dev", "0123456789abcdef", "nq")
    assert data["candidates"] == [{"label": c["label"], "text": c["text"]} for c in rendered]
    assert data["long_answer_options"] == (
        [{"value": NO_ANSWER}] + [{"value": c["label"]} for c in rendered])
    assert data["candidate_tokens"] == [c["tokens"] for c in rendered]
    assert data["candidate_starts"] == [c["starts"] for c in rendered]


def test_a_page_without_candidates_shows_a_placeholder_that_is_not_an_answer():
    example = {**nq_example(), "long_answer_candidates": []}
    data = nq_task(example, "dev", "0123456789abcdef")["data"]
    assert len(data["candidates"]) == 1 and data["candidate_tokens"] == []
    assert data["long_answer_options"] == [{"value": NO_ANSWER}]


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
