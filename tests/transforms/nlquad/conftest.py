"""Fixtures of the NLQuAD transform tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import TEST_RUNNER


@pytest.fixture(scope="module")
def nlquad_v1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``<root>/nlquad/1``: the bundled sample built once per module (tests copy it)."""
    from pipelines.build_nlquad import run

    root = tmp_path_factory.mktemp("nlquad_v1")
    return Path(run([TEST_RUNNER, "--output", str(root), "--version", "1"])["path"])
