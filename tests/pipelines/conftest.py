"""Fixtures of the ``release publish`` tests (``test_release_publish*.py``): two toy
versions and a fake Hub on 127.0.0.1 (``hub_setup``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipelines.hub_setup import fake_hub, toy_versions


@pytest.fixture
def versions(tmp_path) -> tuple[Path, Path]:
    return toy_versions(tmp_path)


@pytest.fixture
def hub(monkeypatch, tmp_path):
    with fake_hub(monkeypatch, tmp_path) as fake:
        yield fake
