"""The NQ task on the three real NQ dev pages at a laptop's and a desktop's window size
(1366x768 and 1920x1080), in a real Label Studio 1.23 driven by clicks in headless Chromium.

* the pinned bar (the question and one line of choices) leaves the page most of the window;
* table cells sit under their headers (the Nobel laureates under "Laureate", their countries
  under "Country");
* a worker who changes their mind about the long answer, also after leaving the task and
  finding the old mark back from Label Studio's draft, gets the box they marked last, and a
  mark is removed by clicking it and pressing Backspace, as the instructions say.

Screenshots of every page at both sizes go to ``$QA_SCREENSHOTS/label-studio-windows`` when
that is set, else to the test's temporary directory (``label-studio-windows0``)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.transforms.annotation.label_studio.test_real_pages import (
    WAIT,
    _annotations,
    _choose,
    _click_tag,
    _label,
    _open,
    _regions,
    _retrying,
    _submit,
    _task_page,
    nq_project,
    real_pages,
)
from transforms.annotation.label_studio.configs import (
    LONG_ANSWER_LABEL,
    LONG_ANSWER_MARKED,
    nq_instructions,
)
from transforms.annotation.label_studio.exports import votes_from_export
from transforms.annotation.page import render_page

pytestmark = [pytest.mark.realdata, pytest.mark.label_studio, pytest.mark.browser]

SIZES = ((1366, 768), (1920, 1080))
# Before this layout the pinned questions took 332 px at 1366x768 and 308 px at 1920x1080,
# leaving 153 px and 489 px of page above Label Studio's bottom bar (of 485 and 797 px).
MAX_BAR = 60  # px: the question's line and one line of choices
MIN_PAGE_SHARE = 0.8  # of the editor's height between Label Studio's top and bottom bars
# The pinned bar (the sticky element holding the question), the page band below it once the
# page is scrolled, and the bottom bar (the tallest ancestor of Submit under 80 px).
MEASURE_JS = """
const [question] = arguments;
const bar = [...document.querySelectorAll('*')].find(e =>
    getComputedStyle(e).position === 'sticky' && e.textContent.includes(question));
const page = document.querySelector('.nq-page');
let scroller = page;
while (scroller && !(scroller.scrollHeight > scroller.clientHeight
       && ['auto', 'scroll'].includes(getComputedStyle(scroller).overflowY))) {
  scroller = scroller.parentElement;
}
scroller.scrollTop = 400;
const submit = [...document.querySelectorAll('button')].find(
    b => b.textContent.trim() === 'Submit');
let bottom = submit;
while (bottom.parentElement && bottom.parentElement.getBoundingClientRect().height < 80) {
  bottom = bottom.parentElement;
}
const b = bar.getBoundingClientRect(), s = scroller.getBoundingClientRect();
const end = Math.min(bottom.getBoundingClientRect().top, s.bottom);
return {bar: b.height, top: s.top, barBottom: b.bottom, end: end, viewport: innerHeight,
        pageTop: page.getBoundingClientRect().top};
"""
# Which header of the table holding ``header`` each named cell sits under.
UNDER_JS = """
const [header, names] = arguments;
const th = [...document.querySelectorAll('.nq-page th')].find(
    t => t.textContent.startsWith(header));
const heads = [...th.closest('tr').querySelectorAll('th')].map(
    t => [t.textContent, t.getBoundingClientRect()]);
const found = {};
for (const name of names) {
  const cell = [...th.closest('table').querySelectorAll('td')].find(
      c => c.textContent.trim() === name);
  const r = cell.getBoundingClientRect(), x = (r.left + r.right) / 2;
  found[name] = (heads.find(([, h]) => h.left <= x && x <= h.right) || [null])[0];
}
return found;
"""


@pytest.fixture(scope="module")
def examples(shared_data: Path) -> list[dict[str, Any]]:
    return real_pages(shared_data)


@pytest.fixture(scope="module")
def project(workers, examples) -> dict[str, Any]:
    return nq_project(workers, "NQ real pages, two windows", examples, nq_instructions())


@pytest.fixture(scope="module")
def editor(chrome, server):
    """The session's Chromium, signed in; its window size is restored afterwards."""
    from tests.transforms.annotation.label_studio.server import sign_in

    size = chrome.get_window_size()
    yield sign_in(chrome, server.url, WAIT)
    chrome.set_window_size(size["width"], size["height"])


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    """``$QA_SCREENSHOTS/label-studio-windows`` when set (kept), else the test's temporary
    directory (pytest keeps its last three runs)."""
    kept = os.environ.get("QA_SCREENSHOTS")
    if not kept:
        return tmp_path_factory.mktemp("label-studio-windows")
    directory = Path(kept) / "label-studio-windows"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_pinned_bar_leaves_the_page_most_of_the_window(editor, server, project, examples,
                                                            size, screenshots):
    editor.set_window_size(*size)
    for index, example in enumerate(examples):
        _open(editor, server, project, index)
        _choose(editor, "good")
        _task_page(editor, render_page(example))
        shown = editor.execute_script(MEASURE_JS, example["question_text"])
        editor.save_screenshot(str(screenshots / f"page-{index}-{size[0]}x{size[1]}.png"))
        band, editor_height = shown["end"] - shown["barBottom"], shown["end"] - shown["top"]
        print(f"{size[0]}x{size[1]} page {index}: bar {shown['bar']:.0f} px, page "
              f"{band:.0f} of {editor_height:.0f} px (viewport {shown['viewport']} px)")
        assert shown["bar"] <= MAX_BAR, shown
        assert band >= MIN_PAGE_SHARE * editor_height, shown


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_table_cells_sit_under_their_headers(editor, server, project, examples, size,
                                             screenshots):
    editor.set_window_size(*size)
    _open(editor, server, project, 2)
    _choose(editor, "good")
    _task_page(editor, render_page(examples[2]))
    under = _retrying(editor, lambda d: d.execute_script(UNDER_JS, "Year", [
        "1901", "Wilhelm Conrad Röntgen", "Germany", "Hendrik Lorentz", "Pieter Zeeman",
        "Netherlands", "Pierre Curie", "Guglielmo Marconi", "Italy"]))
    editor.execute_script("[...document.querySelectorAll('.nq-page th')].find("
                          "t => t.textContent.startsWith('Year'))"
                          ".scrollIntoView({block: 'center'})")
    editor.save_screenshot(str(screenshots / f"nobel-table-{size[0]}x{size[1]}.png"))
    assert under == {"1901": "Year", "Wilhelm Conrad Röntgen": "Laureate",
                     "Germany": "Country", "Hendrik Lorentz": "Laureate",
                     "Pieter Zeeman": "Laureate", "Netherlands": "Country",
                     "Pierre Curie": "Laureate", "Guglielmo Marconi": "Laureate",
                     "Italy": "Country"}


def _mark(editor, candidate: int, count: int) -> None:
    """Marks candidate ``candidate``'s box as the long answer; ``count`` regions after."""
    _label(editor, LONG_ANSWER_LABEL)
    _click_tag(editor, candidate)
    WebDriverWait(editor, WAIT).until(lambda d: _regions(d) >= count)
    assert "can't use" not in editor.find_element(By.TAG_NAME, "body").text


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_changing_the_long_answer_by_clicks_keeps_the_last_box(editor, server, workers,
                                                              examples, size, screenshots):
    admin, _ = workers
    project = nq_project(workers, f"NQ change of mind {size[0]}", examples[:2],
                         nq_instructions())
    ids = project["tasks"]
    rendered = render_page(examples[0])
    gold = next(a for a in examples[0]["annotations"] if a["long_answer"]["candidate_index"] >= 0)
    wanted = gold["long_answer"]["candidate_index"]
    first_mind = next(i for i, (start, _) in enumerate(rendered.boxes)
                      if start >= 0 and i != wanted)
    editor.set_window_size(*size)

    _open(editor, server, project, 0)
    _choose(editor, "good")
    _task_page(editor, rendered)
    _mark(editor, first_mind, 1)
    # Leave the task and come back: Label Studio's draft brings the first mark back.
    deadline = time.monotonic() + WAIT
    while not admin.get(f"/api/tasks/{ids[0]}/drafts") and time.monotonic() < deadline:
        time.sleep(0.5)
    _open(editor, server, project, 1)
    _open(editor, server, project, 0)
    _choose(editor, "good")
    _task_page(editor, rendered)
    WebDriverWait(editor, WAIT).until(lambda d: _regions(d) >= 1)
    _mark(editor, wanted, 2)  # changed their mind: no warning, a second mark
    editor.save_screenshot(str(screenshots / f"changed-mind-{size[0]}x{size[1]}.png"))
    # The instructions' way to remove a mark: click it, press Backspace.
    old = editor.find_element(
        By.CSS_SELECTOR, f'[data-candidate="{first_mind}"] > .nq-tag .htx-highlight')
    ActionChains(editor).move_to_element(old).click().perform()
    ActionChains(editor).send_keys(Keys.BACKSPACE).perform()
    WebDriverWait(editor, WAIT).until(lambda d: _regions(d) == 1)
    _mark(editor, first_mind, 2)  # and back again: the last mark counts
    _mark(editor, wanted, 3)
    _choose(editor, LONG_ANSWER_MARKED)
    _submit(editor)
    deadline = time.monotonic() + WAIT
    while not _annotations(workers, ids[0]) and time.monotonic() < deadline:
        time.sleep(0.5)
    export = admin.get(f"/api/projects/{project['id']}/export", exportType="JSON")
    [vote] = votes_from_export([t for t in export if t["id"] == ids[0]], "nq")
    assert vote.get("error") is None, vote
    assert vote["long_answer_candidate"] == wanted
