"""The NQ task on the three real NQ dev pages, used as an annotator would: a real Label Studio
1.23 on 127.0.0.1, driven by clicks in headless Chromium (Selenium).

Each page is shown once and compactly, Submit is refused until the long-answer decision is
made, and a long answer and a short span made by clicks import to the exact candidate and
document tokens of the NQ gold annotation. Screenshots go to the test's temporary directory
(printed by ``-rA``; kept by pytest for the last three runs)."""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.transforms.annotation.label_studio.editor import choose, retrying
from tests.transforms.annotation.label_studio.server import sign_in
from transforms.annotation.label_studio.configs import (
    LONG_ANSWER_LABEL,
    LONG_ANSWER_MARKED,
    NO_ANSWER,
    SHORT_ANSWER_LABEL,
    nq_config,
    project_settings,
)
from transforms.annotation.label_studio.exports import votes_from_export
from transforms.annotation.label_studio.tasks import nq_task
from transforms.annotation.page import render_page

pytestmark = [pytest.mark.realdata, pytest.mark.label_studio, pytest.mark.browser]

WAIT = 120  # seconds for Label Studio's editor to load a page (a ceiling, not a pace)
# Code points -> a DOM range over the page's text nodes, as Label Studio counts globalOffsets.
RANGE_JS = """
const [root, start, end] = arguments;
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
let seen = 0, node, range = document.createRange(), begun = false;
function at(node, points) { return [...node.data].slice(0, points).join('').length; }
while ((node = walker.nextNode())) {
  const size = [...node.data].length;
  if (!begun && start < seen + size) { range.setStart(node, at(node, start - seen)); begun = true; }
  if (begun && end <= seen + size) { range.setEnd(node, at(node, end - seen)); break; }
  seen += size;
}
range.startContainer.parentElement.scrollIntoView({block: 'center'});
const rects = range.getClientRects(), a = rects[0], b = rects[rects.length - 1];
return [a.left + 1, a.top + a.height / 2, b.right - 1, b.top + b.height / 2];
"""


def real_pages(shared_data: Path) -> list[dict[str, Any]]:
    """The three real NQ dev pages (``nq_dev_original_first3.jsonl.gz``)."""
    with gzip.open(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz", "rt",
                   encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def nq_project(workers, title: str, examples: list[dict[str, Any]],
               instructions: str = "") -> dict[str, Any]:
    """A 1-way NQ project of ``examples`` (dev tasks): ``{"id", "tasks": task ids}``."""
    admin, _ = workers
    created = admin.post("/api/projects", project_settings(title, nq_config(), 1, instructions))
    tasks = [nq_task(example, "dev", "fedcba9876543210") for example in examples]
    imported = admin.post(f"/api/projects/{created['id']}/import", tasks,
                          return_task_ids="true")
    return {"id": created["id"], "tasks": imported["task_ids"]}


@pytest.fixture(scope="module")
def examples(shared_data: Path) -> list[dict[str, Any]]:
    return real_pages(shared_data)


@pytest.fixture(scope="module")
def project(workers, examples) -> dict[str, Any]:
    return nq_project(workers, "NQ real pages", examples)


@pytest.fixture(scope="module")
def editor(chrome, server):
    """Chromium signed in to Label Studio as the admin, through the login form."""
    return sign_in(chrome, server.url, WAIT)


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("label-studio-screenshots")


def _open(editor, server, project, index: int) -> None:
    editor.get(f"{server.url}/projects/{project['id']}/data?task={project['tasks'][index]}")
    WebDriverWait(editor, WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, 'input[name="good"]'))


def _click_tag(editor, candidate: int) -> None:
    """Clicks candidate ``candidate``'s tag (scrolled into view) until the click lands."""
    def click(driver) -> bool:
        tag = driver.find_element(By.CSS_SELECTOR, f'[data-candidate="{candidate}"] .nq-tag')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", tag)
        ActionChains(driver).move_to_element(tag).click().perform()
        return True

    _retrying(editor, click)


def _choose(editor, value: str) -> None:
    choose(editor, value, WAIT)


def _label(editor, name: str) -> None:
    def click(driver) -> bool:
        for element in driver.find_elements(By.CSS_SELECTOR, ".lsf-label"):
            if element.text.split("\n")[0].strip() == name:
                element.click()
                return True
        raise AssertionError(f"no {name} label in the editor")

    _retrying(editor, click)


def _retrying(editor, action) -> Any:
    return retrying(editor, action, WAIT)


def _page(editor):
    return WebDriverWait(editor, WAIT).until(
        lambda d: d.find_element(By.CSS_SELECTOR, ".nq-page"))


def _task_page(editor, rendered) -> Any:
    """The page once the editor shows this task's text (not the previous task's)."""
    WebDriverWait(editor, WAIT).until(lambda d: d.execute_script(
        "const p = document.querySelector('.nq-page'); return p && p.textContent",
    ) == rendered.text)
    return _page(editor)


def _select(editor, start: int, end: int) -> None:
    """Drags the mouse over the page's characters [start, end), as a person selects text."""
    left, top, right, bottom = _retrying(
        editor, lambda d: d.execute_script(RANGE_JS, _page(d), start, end))
    actions = ActionBuilder(editor)
    actions.pointer_action.move_to_location(int(left), int(top)).pointer_down() \
        .move_to_location(int(right), int(bottom)).pointer_up()
    actions.perform()


def _regions(editor) -> int:
    return editor.execute_script("return document.querySelectorAll('.htx-highlight').length")


def _submit(editor) -> None:
    editor.find_element(By.XPATH, "//button[normalize-space()='Submit']").click()


def _annotations(workers, task: int) -> list[dict[str, Any]]:
    admin, _ = workers
    return admin.get(f"/api/tasks/{task}/annotations/")


@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_real_page_is_shown_once_and_compactly(editor, server, project, examples, index,
                                                 screenshots):
    rendered = render_page(examples[index])
    _open(editor, server, project, index)
    _choose(editor, "good")
    _task_page(editor, rendered)
    shown = editor.execute_script("""
        const page = document.querySelector('.nq-page'), tops = [...page.children].filter(
            e => e.classList.contains('nq-box'));
        return {height: page.getBoundingClientRect().height,
                tops: tops.reduce((sum, e) => sum + e.getBoundingClientRect().height, 0),
                text: page.textContent,
                boxes: [...page.querySelectorAll('[data-candidate]')].map(
                    e => Number(e.dataset.candidate))};""")
    editor.save_screenshot(str(screenshots / f"page-{index}.png"))
    candidates = examples[index]["long_answer_candidates"]
    assert shown["text"] == rendered.text  # the page's text, once, as the import counts it
    assert sorted(shown["boxes"]) == list(range(len(candidates)))  # every candidate, once
    assert len(rendered.tokens) == len(set(rendered.tokens))
    print(f"page {index}: {shown['height']:.0f} px tall, "
          f"{shown['height'] / shown['tops']:.3f} of its top-level boxes")
    assert shown["height"] <= 1.2 * shown["tops"], shown["height"] / shown["tops"]


def test_submit_without_a_long_answer_decision_is_refused(editor, server, project, workers,
                                                          screenshots):
    _open(editor, server, project, 1)
    _choose(editor, "good")
    _page(editor)
    _submit(editor)
    WebDriverWait(editor, WAIT).until(
        lambda d: "Mark the long answer" in d.find_element(By.TAG_NAME, "body").text)
    editor.save_screenshot(str(screenshots / "refused-submit.png"))
    assert _annotations(workers, project["tasks"][1]) == []


@pytest.mark.parametrize("index", [0, 2])
def test_a_long_answer_and_a_span_clicked_in_the_ui_import_exactly(editor, server, project,
                                                                   workers, examples, index,
                                                                   screenshots):
    example = examples[index]
    gold = next(a for a in example["annotations"] if a["short_answers"])
    candidate = gold["long_answer"]["candidate_index"]
    span = gold["short_answers"][0]
    rendered = render_page(example)
    box_start = rendered.boxes[candidate][0]
    first = rendered.tokens.index(span["start_token"])
    last = rendered.tokens.index(span["end_token"] - 1)

    _open(editor, server, project, index)
    _choose(editor, "good")
    _task_page(editor, rendered)
    _label(editor, LONG_ANSWER_LABEL)
    _click_tag(editor, candidate)
    WebDriverWait(editor, WAIT).until(lambda d: _regions(d) >= 1)
    _label(editor, SHORT_ANSWER_LABEL)
    _select(editor, rendered.starts[first], rendered.starts[last] + rendered.lengths[last])
    WebDriverWait(editor, WAIT).until(lambda d: _regions(d) >= 2)
    _choose(editor, LONG_ANSWER_MARKED)
    editor.save_screenshot(str(screenshots / f"annotated-{index}.png"))
    _submit(editor)
    task = project["tasks"][index]
    deadline = time.monotonic() + WAIT
    while not _annotations(workers, task) and time.monotonic() < deadline:
        time.sleep(0.5)

    admin, _ = workers
    export = admin.get(f"/api/projects/{project['id']}/export", exportType="JSON")
    [vote] = [v for v in votes_from_export([t for t in export if t["id"] == task], "nq")]
    assert vote.get("error") is None, vote
    assert vote["long_answer_candidate"] == candidate
    assert vote["short_answers"] == [{"start_token": span["start_token"],
                                      "end_token": span["end_token"]}]
    assert rendered.text[box_start:].startswith(f"#{candidate} ")


def test_no_answer_is_a_decision_the_ui_accepts(editor, server, project, workers):
    _open(editor, server, project, 1)
    _choose(editor, "good")
    _choose(editor, NO_ANSWER)
    _submit(editor)
    task = project["tasks"][1]
    deadline = time.monotonic() + WAIT
    while not _annotations(workers, task) and time.monotonic() < deadline:
        time.sleep(0.5)
    admin, _ = workers
    export = admin.get(f"/api/projects/{project['id']}/export", exportType="JSON")
    [vote] = votes_from_export([t for t in export if t["id"] == task], "nq")
    assert (vote["question_good"], vote["long_answer_candidate"]) == (True, -1)
