"""The release browser in a real headless Chromium: open the index, filter, open an example,
check every highlighted answer against the release's offsets, no JS console errors, a
screenshot per page; dataset text with ``<script>`` never runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.transforms.release.test_diff import write_release
from transforms.annotation import page_words
from transforms.browse.renderers.nq import chosen_answer
from transforms.browse.site import write_site
from transforms.nlquad.schema import NLQUAD_SCHEMA

pytestmark = pytest.mark.browser

HOSTILE = "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">"


def _rows(release: Path, directories: tuple[str, ...] = ("train", "dev", "test")) -> list[dict]:
    rows = []
    for directory in directories:
        for path in sorted((release / directory).glob("*.parquet")):
            rows += pq.read_table(path).to_pylist()
    return rows


@pytest.fixture(scope="module")
def sites(sample_releases: dict[str, Path], tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("sites")
    for name in ("nlquad", "nq_annotated", "jnq_annotated", "reqa_squad"):
        write_site(str(sample_releases[name]), str(out / name))
    return {name: out / name for name in ("nlquad", "nq_annotated", "jnq_annotated",
                                          "reqa_squad")}


def _open(chrome: Any, page: Path) -> None:
    chrome.get(page.as_uri())
    WebDriverWait(chrome, 20).until(
        lambda d: d.execute_script("return document.readyState") == "complete")


def _console_errors(chrome: Any) -> list[dict]:
    return [entry for entry in chrome.get_log("browser") if entry["level"] == "SEVERE"]


def _filter(chrome: Any, query: str = "", split: str = "") -> list[Any]:
    """Type into the filter and wait for its result rows."""
    form = chrome.find_element(By.ID, "filter")
    assert form.is_displayed(), "the filter form stays hidden: its JS did not run"
    box = form.find_element(By.NAME, "q")
    box.clear()
    box.send_keys(query)
    if split:
        Select(form.find_element(By.NAME, "split")).select_by_value(split)
    WebDriverWait(chrome, 20).until(
        lambda d: d.find_element(By.ID, "filter-status").text.strip())
    results = chrome.find_element(By.ID, "filter-results")
    assert results.is_displayed() and not chrome.find_element(By.ID, "static-entries") \
        .is_displayed()
    return chrome.find_elements(By.CSS_SELECTOR, "#filter-rows tr")


def _marks(chrome: Any, selector: str) -> list[dict[str, Any]]:
    """Every element matching ``selector``: its text and data attributes."""
    return chrome.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(e => "
        "({text: e.textContent, data: Object.assign({}, e.dataset)}));", selector)


def _check_nlquad(chrome: Any, release: Path) -> int:
    rows = {r["id"]: r for r in _rows(release)}
    marks = _marks(chrome, "mark.answer")
    for mark in marks:
        row = rows[mark["data"]["id"]]
        assert (int(mark["data"]["start"]), int(mark["data"]["end"])) == (
            row["answer_start"], row["answer_end"])
        assert mark["text"] == row["answer_text"]
        assert mark["data"]["question"] == f"q{row['question_index']}"
    asides = _marks(chrome, "aside.subheading")
    assert {a["data"]["question"] for a in asides} == {m["data"]["question"] for m in marks}
    return len(marks)


def _check_nq(chrome: Any, release: Path) -> int:
    title = chrome.find_element(By.CSS_SELECTOR, "section.example").text
    row = next(r for r in _rows(release) if r["question"]["text"] in title)
    answer = chosen_answer(row["annotations"])
    tokens = row["document"]["tokens"]["token"]
    longs = _marks(chrome, ".long-answer")
    if answer.long:
        assert longs and all((int(m["data"]["startToken"]), int(m["data"]["endToken"]))
                             == answer.long[:2] for m in longs)
    else:
        assert not longs
    shorts = _marks(chrome, "mark.short-answer")
    expected = {(start, end) for start, end, _ in answer.short}
    assert {(int(m["data"]["startToken"]), int(m["data"]["endToken"])) for m in shorts} \
        == expected
    page = row["document"]["html"].encode("utf-8").decode("latin-1")
    document = row["document"]["tokens"]
    for mark in shorts:  # the page's own text of the marked tokens (its quotes and spacing)
        start, end = int(mark["data"]["startToken"]), int(mark["data"]["endToken"])
        words = [page_words.shown({"token": t, "start_byte": b, "end_byte": e}, page)
                 for t, html, b, e in zip(tokens[start:end], document["is_html"][start:end],
                                          document["start_byte"][start:end],
                                          document["end_byte"][start:end], strict=True)
                 if not html]
        assert "".join(mark["text"].split()) == "".join("".join(w.split()) for w in words)
    # One numbering, the one annotators chose from: each box is labelled with its index in
    # the example's candidate list, and the summary names the chosen candidate the same way.
    boxes = chrome.execute_script(
        "return Array.from(document.querySelectorAll('div.candidate')).map(e => "
        "[e.dataset.candidate, e.querySelector('.candidate-label').textContent]);")
    top_level = row["long_answer_candidates"]["top_level"]
    assert [int(index) for index, _ in boxes] == [i for i, top in enumerate(top_level) if top]
    assert all(label == f"#{index} " + label.split(" ", 1)[1] and label.endswith("(top level)")
               for index, label in boxes)
    if answer.long:
        summary = chrome.find_element(By.CSS_SELECTOR, "dl.answer-summary dd").text
        assert summary.startswith(f"#{answer.long[2]} ")
        assert {m["data"]["candidate"] for m in longs} == {str(answer.long[2])}
    frame = chrome.find_element(By.CSS_SELECTOR, "iframe.page-html")
    assert frame.get_attribute("sandbox") == "" and not frame.get_attribute("src")
    return len(longs) + len(shorts)


def _check_jnq(chrome: Any, release: Path) -> int:
    rows = _rows(release)
    paragraphs = {(r["id"], p["id"]): p["text"] for r in rows for p in r["paragraphs"]}
    spans = {(r["id"], a["paragraph_id"]): a for r in rows for a in r["annotations"]}
    checked = 0
    for section in chrome.find_elements(By.CSS_SELECTOR, "section.example"):
        key = section.get_attribute("data-key")
        for mark in section.find_elements(By.CSS_SELECTOR, "mark.short-answer"):
            item = mark.find_element(By.XPATH, "ancestor::li[@data-paragraph-id]")
            paragraph = int(item.get_attribute("data-paragraph-id"))
            start, end = int(mark.get_attribute("data-start")), int(
                mark.get_attribute("data-end"))
            annotation = spans[(key, paragraph)]
            assert (start, end) == (annotation["span_start"], annotation["span_end"])
            assert mark.get_attribute("textContent") == paragraphs[(key, paragraph)][start:end]
            assert item.get_attribute("data-label") == "EXIST"
            checked += 1
    return checked


def _check_reqa(chrome: Any, release: Path) -> int:
    candidates = {c["candidate_id"]: c for c in _rows(release, ("candidates",))}
    correct = {cid for q in _rows(release, ("questions",)) for cid in q["correct_candidate_ids"]}
    marks = _marks(chrome, "mark.answer-sentence")
    for mark in marks:
        candidate = candidates[mark["data"]["candidateId"]]
        assert mark["data"]["candidateId"] in correct
        assert (int(mark["data"]["start"]), int(mark["data"]["end"])) == (
            candidate["sentence_start"], candidate["sentence_end"])
        assert mark["text"] == candidate["sentence"]
    assert _marks(chrome, "span.rank")
    return len(marks)


CHECKS: dict[str, tuple[str, Callable[[Any, Path], int]]] = {
    "nlquad": ("strike", _check_nlquad),
    "nq_annotated": ("harry potter", _check_nq),
    "jnq_annotated": ("", _check_jnq),
    "reqa_squad": ("railway", _check_reqa),
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_index_filter_and_example_with_highlighted_answers(chrome, sites, sample_releases,
                                                           name, tmp_path):
    site, release = sites[name], sample_releases[name]
    query, check = CHECKS[name]
    chrome.get_log("browser")
    _open(chrome, site / "index.html")
    assert chrome.find_elements(By.CSS_SELECTOR, "svg"), "the overview has no figure"
    leaks = [a.get_attribute("href") for a in
             chrome.find_elements(By.CSS_SELECTOR, "section#leakage a")]
    assert not [href for href in leaks if "&amp;" in href], "a leakage link escaped twice"
    chrome.save_screenshot(str(tmp_path / f"{name}-overview.png"))
    _open(chrome, site / "examples" / "index-00001.html")
    static = chrome.find_elements(By.CSS_SELECTOR, "#static-entries tbody tr")
    assert static
    rows = _filter(chrome, query=query, split="" if query else "train")
    assert rows and len(rows) <= len(static)
    for row in rows:
        text = row.text.lower()
        assert query in text if query else " train " in f" {text} "
    chrome.save_screenshot(str(tmp_path / f"{name}-filtered.png"))
    marked = 0
    for link in [r.find_element(By.CSS_SELECTOR, "td.n a").get_attribute("href")
                 for r in rows[:3]]:
        chrome.get(link)
        WebDriverWait(chrome, 20).until(
            lambda d: d.execute_script("return document.readyState") == "complete")
        marked += check(chrome, release)
    chrome.save_screenshot(str(tmp_path / f"{name}-example.png"))
    assert marked > 0, "no highlighted answer was checked"
    assert (tmp_path / f"{name}-example.png").stat().st_size > 1000
    assert _console_errors(chrome) == []


NLQUAD_CONTEXT = "Opening paragraph.\nWhy it matters " + HOSTILE + "\nClosing paragraph."


def _hostile_row() -> dict[str, Any]:
    start = NLQUAD_CONTEXT.index("Why")
    end = NLQUAD_CONTEXT.index("\nClosing")
    answer = NLQUAD_CONTEXT[start:end]
    return {
        "id": "bbc-1-q1", "document_id": "bbc-1", "title": "Title " + HOSTILE,
        "date": "2020-01-01", "published": "2020-01-01T00:00:00Z",
        "url": "javascript:window.pwned=3", "capture_url": "https://www.bbc.co.uk/news/x-1",
        "capture_timestamp": "20200101000000", "layout_era": "B",
        "question": "What " + HOSTILE + "?", "question_index": 1, "context": NLQUAD_CONTEXT,
        "answer_text": answer, "answer_start": start, "answer_end": end,
        "answer_word_start": 2, "answer_word_end": 2 + len(answer.split()),
        "answer_paragraphs": 1, "answers": {"text": [answer], "answer_start": [start]},
    }


def test_dataset_text_with_script_never_runs(chrome, tmp_path):
    release = write_release(tmp_path / "releases", "1.0.0", {"train": [_hostile_row()]},
                            dataset="nlquad", schemas={"train": NLQUAD_SCHEMA},
                            stats={"counts": {"questions": {"dropped.x" + HOSTILE: 1}}},
                            options={"paragraph_separator": "\n"})
    (release / "rejected").mkdir(exist_ok=True)
    site = tmp_path / "site"
    write_site(str(release), str(site))
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 3
    chrome.get_log("browser")
    for page in pages:
        _open(chrome, page)
        assert chrome.execute_script("return window.pwned === undefined"), page
    _open(chrome, site / "examples" / "index-00001.html")
    rows = _filter(chrome, query="window.pwned")
    assert len(rows) == 1 and "<script>" in rows[0].text
    assert chrome.execute_script("return window.pwned === undefined")
    _open(chrome, site / "examples" / "page-00001.html")
    assert "<script>window.pwned = 1</script>" in chrome.find_element(By.TAG_NAME, "h2").text
    assert [m["text"] for m in _marks(chrome, "mark.answer")] == [_hostile_row()["answer_text"]]
    assert not chrome.find_elements(By.CSS_SELECTOR, "a[href^='javascript']")
    chrome.save_screenshot(str(tmp_path / "hostile.png"))
    assert _console_errors(chrome) == []
    assert json.loads((site / "site.json").read_text())["examples"]["entries"] == 1

