"""Issue 23 G16 in a real headless Chromium: a release whose int columns hold a
``<meta http-equiv="refresh">`` to a local server never navigates there; the payload is shown
as text. A control page with the same meta proves the harness sees such a navigation."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.transforms.browse.test_hostile_types import hostile_release, meta_refresh
from transforms.browse.site import write_site

pytestmark = pytest.mark.browser

NAVIGATION_WAIT = 1.5  # seconds a page gets to navigate away (the payload's delay is 0)


class _Hits(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Counter)
        self.paths: list[str] = []

    def pwned(self) -> int:
        return self.paths.count("/pwned")


class _Counter(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.server.paths.append(self.path)
        body = b"<!DOCTYPE html><title>hit</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def hits() -> Iterator[_Hits]:
    server = _Hits()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def _navigated(chrome: Any, page: Path, hits: _Hits) -> bool:
    """Open ``page``; whether it navigated away (or hit the server) within the wait."""
    before = hits.pwned()
    chrome.get(page.as_uri())
    try:
        WebDriverWait(chrome, NAVIGATION_WAIT, poll_frequency=0.05).until(
            lambda d: hits.pwned() > before or not d.current_url.startswith("file:"))
    except TimeoutException:
        return False
    return True


def test_a_meta_refresh_in_an_int_column_never_navigates(chrome, hits, tmp_path):
    port = hits.server_address[1]
    payload = meta_refresh(port)
    control = tmp_path / "control.html"
    control.write_text(f"<!DOCTYPE html><html><head>{payload}</head><body>x</body></html>",
                       encoding="utf-8")
    assert _navigated(chrome, control, hits), "the harness does not see a meta refresh"
    assert hits.pwned() == 1
    release = hostile_release(tmp_path / "releases", payload)
    site = tmp_path / "site"
    write_site(str(release), str(site))
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 3
    for page in pages:
        assert not _navigated(chrome, page, hits), page
    assert hits.pwned() == 1
    chrome.get((site / "examples" / "page-00001.html").as_uri())
    assert payload in chrome.find_element(By.TAG_NAME, "main").text
    assert chrome.current_url.startswith("file:")
