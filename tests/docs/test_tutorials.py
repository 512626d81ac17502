"""The tutorials are found, and each has its test file (``tests/docs/tutorial_run.py``): a
tutorial added to a page without one, or a test file left for a tutorial gone, fails here."""

from __future__ import annotations

import pytest

from tests.docs.tutorial_run import TESTS, tutorial_test_file, tutorials

pytestmark = pytest.mark.docs


def test_the_tutorials_are_found() -> None:
    assert {"annotation", "weekly", "evaluation", "refresh"} <= set(tutorials())


def test_every_tutorial_runs_in_a_test_file_of_its_own() -> None:
    expected = {tutorial_test_file(name) for name in tutorials()}
    assert {path for path in TESTS.glob("test_*.py")} == expected
    for name in tutorials():
        assert f'run_tutorial("{name}", ' in tutorial_test_file(name).read_text(), name
