"""Suggestions in a real Label Studio 1.23 on 127.0.0.1: a task imported with our
``predictions`` keeps them (the API returns them as written), and the editor shows the NQ
pre-annotation to the annotator: the suggested box marked on the page and its long-answer
decision chosen (headless Chromium, when there is one)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.transforms.annotation.label_studio.fixtures import jnq_row, nq_example
from tests.transforms.annotation.label_studio.server import sign_in
from transforms.annotation.label_studio.configs import (
    LONG_ANSWER_MARKED,
    jnq_config,
    nq_config,
    project_settings,
)
from transforms.annotation.label_studio.tasks import jnq_tasks, nq_task
from transforms.annotation.suggestions import SuggestionOptions, Suggestions

pytestmark = pytest.mark.label_studio

RELEASE = "fedcba9876543210"
WAIT = 120  # seconds for Label Studio's editor to load (a ceiling, not a pace)
PREDICTION = {"example_id": -4242, "long_answer_score": 2.5,
              "long_answer": {"start_token": 23, "end_token": 32, "start_byte": 125,
                              "end_byte": 186},
              "short_answers": [{"start_token": 29, "end_token": 30}],
              "yes_no_answer": "NONE"}


def _suggestions(base: str, predictions: dict[str, Any]) -> Suggestions:
    return Suggestions(SuggestionOptions("baseline.json", 0.01, 0), base, predictions,
                       "0123456789abcdef" * 4)


def _project(client, title: str, config: str, model_version: str, tasks: list[dict]
             ) -> tuple[int, list[int]]:
    settings = {**project_settings(title, config, 1), "show_collab_predictions": True,
                "model_version": model_version}
    project = client.post("/api/projects", settings)
    imported = client.post(f"/api/projects/{project['id']}/import", tasks,
                           return_task_ids="true")
    return project["id"], imported["task_ids"]


def _stored(client, task_id: int) -> list[dict[str, Any]]:
    return client.get("/api/predictions/", task=task_id)


def _same(stored: dict[str, Any], written: dict[str, Any]) -> bool:
    keep = ("from_name", "to_name", "type", "value")
    return [{k: r[k] for k in keep} for r in stored["result"]] == [
        {k: r[k] for k in keep} for r in written["result"]]


@pytest.fixture(scope="module")
def nq_project(workers) -> dict[str, Any]:
    admin, _ = workers
    suggestions = _suggestions("nq", {"-4242": PREDICTION})
    example = nq_example()
    task = suggestions.apply(nq_task(example, "dev", RELEASE), example, "nq", "label-studio")
    project, [task_id] = _project(admin, "NQ suggestions", nq_config(),
                                  suggestions.model_version, [task])
    return {"id": project, "task": task_id, "written": task["predictions"][0]}


def test_predictions_are_stored_as_written(workers, nq_project):
    admin, _ = workers
    [stored] = _stored(admin, nq_project["task"])
    written = nq_project["written"]
    assert stored["model_version"] == written["model_version"]
    assert stored["score"] == 2.5
    assert _same(stored, written), json.dumps(stored["result"])[:2000]
    row = jnq_row()
    suggestions = _suggestions("jnq", {row["id"]: [3]})
    tasks = [suggestions.apply(t, row, "long_answer", "label-studio")
             for t in jnq_tasks(row, "long_answer", "dev", RELEASE)]
    _, ids = _project(admin, "JNQ suggestions", jnq_config("long_answer"),
                      suggestions.model_version, tasks)
    for task, task_id in zip(tasks, ids, strict=True):
        [stored] = _stored(admin, task_id)
        assert _same(stored, task["predictions"][0])
        assert stored["result"][0]["value"]["choices"] == [
            "yes" if task["data"]["paragraph"] == 3 else "no"]


@pytest.mark.browser
def test_the_editor_shows_the_pre_annotation(chrome, server, nq_project):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.transforms.annotation.label_studio.editor import choose

    sign_in(chrome, server.url, WAIT)
    chrome.get(f"{server.url}/projects/{nq_project['id']}/data?task={nq_project['task']}")
    WebDriverWait(chrome, WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, 'input[name="good"]'))
    choose(chrome, "good", WAIT)  # the editor may render again between finding and clicking
    WebDriverWait(chrome, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".nq-page"))
    marked = WebDriverWait(chrome, WAIT).until(lambda d: d.execute_script(
        "const h = [...document.querySelectorAll('.nq-page .htx-highlight')];"
        "return h.length >= 2 ? h.map(e => e.textContent) : null"))
    assert "#3" in marked and "east" in marked, marked
    chosen = chrome.find_element(By.CSS_SELECTOR, f'input[name="{LONG_ANSWER_MARKED}"]')
    assert chosen.is_selected()
