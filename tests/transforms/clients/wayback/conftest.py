"""Fixtures of the Wayback client tests: no proxies, recorded sleeps, a fake archive."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.wayback_server import FakeWayback
from tests.transforms.clients.wayback.helpers import STORY_HTML, STORY_TS, STORY_URL


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep requests to 127.0.0.1 away from any proxy configured in the environment."""
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def fake() -> Iterator[FakeWayback]:
    with FakeWayback([(STORY_URL, STORY_TS, STORY_HTML)], hang_seconds=3.0) as server:
        yield server
