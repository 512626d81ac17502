"""An annotated release's decisions in headless Chromium, as a reader finds them: from the
overview to the examples, an example's detail shows each of its decisions with label,
aggregate and confidence, the explanation opens, and its link leads to the workers page's
confidence histogram."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from transforms.browse.site import write_site

pytestmark = pytest.mark.browser


def _loaded(chrome) -> None:
    WebDriverWait(chrome, 20).until(
        lambda d: d.execute_script("return document.readyState") == "complete")


def test_an_examples_decisions_and_confidence_are_shown(chrome, sample_releases, tmp_path):
    release = sample_releases["jnq_annotated"]
    decisions = [row for f in sorted((release / "decisions").rglob("*.parquet"))
                 for row in pq.read_table(f).to_pylist()]
    write_site(str(release), str(tmp_path / "site"))
    chrome.get_log("browser")
    chrome.get((tmp_path / "site" / "index.html").as_uri())
    _loaded(chrome)
    chrome.find_element(By.LINK_TEXT, "Examples").click()
    _loaded(chrome)
    chrome.find_element(By.CSS_SELECTOR, "#static-entries tbody tr td.n a").click()
    _loaded(chrome)
    assert Path(chrome.current_url.split("#")[0]).name == "page-00001.html"
    example = chrome.find_element(By.ID, "e-1")
    key = example.get_attribute("data-key")
    section = example.find_element(By.CSS_SELECTOR, "section.decisions")
    assert section.is_displayed()
    shown = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
             for row in section.find_elements(By.CSS_SELECTOR, "tbody tr")]
    expected = [row for row in decisions if row["question_id"] == key]
    assert expected and len(shown) == len(expected)
    for row in expected:
        where = "—" if row["paragraph"] is None else str(row["paragraph"])
        assert [row["decision"], where, row["label"], row["aggregate"],
                f"{row['confidence']:.3f}"] in shown
    how = section.find_element(By.CSS_SELECTOR, "details.how")
    link = how.find_element(By.CSS_SELECTOR, "a.confidence-link")
    assert not link.is_displayed()  # folded until asked
    how.find_element(By.TAG_NAME, "summary").click()
    assert "vote share" in how.text or "share of the judgments" in how.text
    assert "docs/guides/annotation.md" in how.text
    link.click()
    _loaded(chrome)
    assert chrome.current_url.endswith("workers.html#confidence")
    assert chrome.find_element(By.ID, "confidence").is_displayed()
    assert [e for e in chrome.get_log("browser") if e["level"] == "SEVERE"] == []
