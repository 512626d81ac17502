"""The ``own-wikipedia`` tutorial (docs/guides/own-wikipedia.md) runs as written
(``tests/docs/tutorial_run.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.made_run import MadeRun
from tests.docs.tutorial_run import run_tutorial

pytestmark = pytest.mark.docs


def test_the_tutorial_runs_as_written(tmp_path: Path, made_run: MadeRun) -> None:
    run_tutorial("own-wikipedia", tmp_path, made_run)
