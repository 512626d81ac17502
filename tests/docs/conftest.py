"""Fixtures of the documentation's tests."""

from __future__ import annotations

import pytest

from tests.conftest import once_per_run
from tests.docs.made_run import MadeRun, make_run_twice


@pytest.fixture(scope="session")
def made_run(tmp_path_factory: pytest.TempPathFactory) -> MadeRun:
    """``make run``'s command run twice in an empty directory, once per test run (shared by
    the workers): the quick start's tests read its summaries; the pages' examples and the
    tutorials copy its directory instead of building the same release again each."""
    return MadeRun.from_json(once_per_run(tmp_path_factory, "made_run", make_run_twice))
