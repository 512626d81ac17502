"""The documentation site builds offline with strict link checking, and its links resolve in a
real browser."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest

from tests.docs.pages import ROOT

pytestmark = pytest.mark.docs


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``mkdocs build --strict`` into a temporary directory (what ``make docs`` runs)."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return out


def test_every_page_of_docs_is_in_the_site(site: Path) -> None:
    pages = {p.relative_to(ROOT / "docs").with_suffix(".html")
             for p in (ROOT / "docs").rglob("*.md")}
    missing = [str(p) for p in pages if not (site / p).is_file()]
    assert pages and not missing


def test_the_api_reference_is_generated_from_the_docstrings(site: Path) -> None:
    from pipelines import api

    html = (site / "reference" / "python-api.html").read_text()
    assert "DamagedReleaseError" in api.load_release.__doc__
    section = html[html.index('id="pipelines.api.load_release"'):]
    assert "DamagedReleaseError" in section[:20000]  # its docstring, rendered below it
    assert 'id="transforms.core.spec.DatasetSpec"' in html


def test_the_site_fetches_nothing_from_the_network(site: Path) -> None:
    """No fonts, scripts or styles from a CDN: the site reads offline."""
    for page in site.rglob("*.html"):
        text = page.read_text()
        for attribute in ("src=\"http", "href=\"https://fonts", "@import url(http"):
            assert attribute not in text, (page, attribute)


def _internal_links(chrome, page: Path) -> list[str]:
    chrome.get(page.as_uri())
    return chrome.execute_script(
        "return Array.from(document.querySelectorAll('a[href]'), a => a.href)")


@pytest.mark.browser
def test_every_internal_link_resolves_in_chromium(site: Path, chrome) -> None:
    """Every link of every page, as Chromium resolves it, names a file of the site and, with
    a fragment, an element of that page."""
    anchors: dict[Path, set[str]] = {}
    broken = []
    for page in sorted(site.rglob("*.html")):
        if page.parent.name == "search" or page.name == "404.html":
            continue
        for href in _internal_links(chrome, page):
            url, fragment = urldefrag(href)
            parsed = urlparse(url)
            if parsed.scheme != "file":
                continue
            target = Path(parsed.path)
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or site not in target.parents:
                broken.append((str(page.relative_to(site)), href))
                continue
            if fragment and target.suffix == ".html":
                if target not in anchors:
                    chrome.get(target.as_uri())
                    anchors[target] = set(chrome.execute_script(
                        "return Array.from(document.querySelectorAll('[id]'), e => e.id)"))
                if fragment not in anchors[target]:
                    broken.append((str(page.relative_to(site)), href))
    assert len(anchors) > 3 and not broken, broken


def test_the_site_builds_where_release_browse_writes_nothing() -> None:
    """``make docs`` (mkdocs' ``site_dir``) cleans its folder: not ``site/``, where
    ``release browse`` writes its sites by default."""
    import yaml

    from pipelines.release import SITE_ROOT

    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    docs_site = (ROOT / config["site_dir"]).resolve()
    browse = (ROOT / SITE_ROOT).resolve()
    assert docs_site != browse and browse not in docs_site.parents
    assert docs_site not in browse.parents


def test_search_needs_no_server(site: Path) -> None:
    """The search index is a script too (the offline plugin), and the worker shim is ours."""
    assert (site / "search" / "search_index.js").read_text().startswith("var __index = {")
    shim = '<script src="assets/javascripts/iframe-worker-shim.js">'
    assert shim in (site / "index.html").read_text()


@pytest.mark.browser
def test_search_finds_pages_when_the_site_is_opened_from_disk(site: Path, chrome) -> None:
    """Opened as a file (no server), typing in the search box lists the matching pages and
    their sections (the troubleshooting page's, under its headings)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    chrome.get((site / "index.html").as_uri())
    box = chrome.find_element(By.CSS_SELECTOR, "input.md-search__input")
    box.click()
    box.send_keys("withheld")  # the Hub's token_withheld reason

    def troubleshooting_found(driver) -> bool:
        links = driver.find_elements(By.CSS_SELECTOR, ".md-search-result__item a")
        return any((link.get_attribute("href") or "").endswith(
            "guides/troubleshooting.html#publishing-to-the-hub") for link in links)

    WebDriverWait(chrome, 60).until(troubleshooting_found)
