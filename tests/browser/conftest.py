"""Headless Chromium through chromedriver (Debian's ``chromium`` and ``chromium-driver``).

Tests marked ``browser`` skip when either is missing, unless ``QA_REQUIRE_BROWSER=1`` (what
``.ci/run`` sets after ``make browser`` installed them): then a missing browser fails."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _missing(reason: str) -> None:
    if os.environ.get("QA_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason}, and QA_REQUIRE_BROWSER=1 (run: make browser)")
    pytest.skip(f"{reason} (make browser installs chromium and chromium-driver)")


@pytest.fixture(scope="session")
def chrome() -> Iterator[Any]:
    """A headless Chromium session that keeps the JS console log."""
    try:
        from selenium import webdriver
    except ImportError:
        _missing("selenium is not installed")
    browser = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        _missing("no chromium or chromedriver on PATH")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,1600"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(service=webdriver.ChromeService(executable_path=driver),
                               options=options)
    session.set_page_load_timeout(60)
    yield session
    session.quit()
