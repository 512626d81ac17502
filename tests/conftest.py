"""Shared test configuration: the real-data folder and the FnApiRunner for pipelines."""

from __future__ import annotations

from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
TEST_RUNNER = "--runner=FnApiRunner"
TIMESTAMPED = ("README.md", "croissant.json")  # files that name the build time


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` of a CI checkout; tests marked ``realdata`` skip without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is absent (fresh clone): real-data test skipped")
    return SHARED_DATA
