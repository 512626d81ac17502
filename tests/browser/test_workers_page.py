"""The workers page of an annotated release in headless Chromium: it lists every worker of the
release's ``workers/`` table, likely spammers first, and the decisions' confidence."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from transforms.browse.site import write_site

pytestmark = pytest.mark.browser


def test_workers_page_lists_the_workers(chrome, sample_releases, tmp_path):
    release = sample_releases["jnq_annotated"]
    workers = [row for f in sorted((release / "workers").rglob("*.parquet"))
               for row in pq.read_table(f).to_pylist()]
    assert workers, "the annotated sample has a workers table"
    summary = write_site(str(release), str(tmp_path / "site"))
    assert summary["pages"]["workers"] == "workers.html"
    chrome.get_log("browser")
    chrome.get((tmp_path / "site" / "index.html").as_uri())
    chrome.find_element(By.LINK_TEXT, "the workers").click()
    WebDriverWait(chrome, 20).until(
        lambda d: d.execute_script("return document.readyState") == "complete")
    assert Path(chrome.current_url).name == "workers.html"
    rows = chrome.find_elements(By.CSS_SELECTOR, "#workers tbody tr")
    shown = [r.find_element(By.CSS_SELECTOR, "td").text for r in rows]
    assert sorted(shown) == sorted(w["annotator_id"] for w in workers)
    flagged = {w["annotator_id"] for w in workers if w["likely_spammer"]}
    assert set(shown[:len(flagged)]) == flagged
    assert chrome.find_elements(By.CSS_SELECTOR, "#confidence tbody tr")
    assert [e for e in chrome.get_log("browser") if e["level"] == "SEVERE"] == []
