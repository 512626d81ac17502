"""Shared test configuration: the real-data folder, the FnApiRunner for pipelines and the
sample releases of every type."""

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


@pytest.fixture(scope="session")
def sample_releases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One release of each type from the bundled samples (``tests/sample_releases.py``),
    built once per session: dataset name -> version directory."""
    from tests.sample_releases import build_sample_releases

    return build_sample_releases(tmp_path_factory.mktemp("sample_releases"), TEST_RUNNER)
