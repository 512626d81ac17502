"""Fixtures of the Wayback client tests: recorded sleeps, a fake archive (the root conftest
keeps proxies away)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.wayback_server import FakeWayback
from tests.transforms.clients.wayback.helpers import STORY_HTML, STORY_TS, STORY_URL


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def fake() -> Iterator[FakeWayback]:
    with FakeWayback([(STORY_URL, STORY_TS, STORY_HTML)], hang_seconds=3.0) as server:
        yield server
