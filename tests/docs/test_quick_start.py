"""The quick start as the docs give it: ``make run``'s command prints the summary the README
and Getting started show, and the page's loading examples run as written after it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.docs.made_run import MadeRun, run
from tests.docs.pages import ROOT, blocks

pytestmark = pytest.mark.docs
MARK = "quick-start-summary"
GETTING_STARTED = ROOT / "docs" / "getting-started.md"


def documented_summary(page: Path) -> str:
    marked = [block for block in blocks(page) if block.mark == MARK]
    assert len(marked) == 1, f"{page.name} has no single block marked <!-- {MARK} -->"
    return marked[0].text + "\n"


@pytest.fixture(scope="module")
def quick_start(made_run: MadeRun, tmp_path_factory: pytest.TempPathFactory
                ) -> tuple[Path, str, str]:
    """``make run``'s command run twice in an empty directory (``made_run``): (a copy of the
    directory, first summary, second summary)."""
    assert not made_run.problems, made_run.problems
    cwd = made_run.copy_to(tmp_path_factory.mktemp("quick_start"))
    return cwd, made_run.first, made_run.second


def without_elapsed(summary: str) -> str:
    return "".join(line for line in summary.splitlines(keepends=True)
                   if not line.lstrip().startswith("elapsed:"))


@pytest.mark.parametrize("page", [ROOT / "README.md", GETTING_STARTED], ids=lambda p: p.name)
def test_the_documented_summary_is_what_make_run_prints(quick_start, page: Path) -> None:
    _, first, _ = quick_start
    assert without_elapsed(first) == documented_summary(page)


def test_a_second_make_run_does_no_work_and_says_so(quick_start) -> None:
    _, first, second = quick_start
    assert "written to" in first.splitlines()[0]
    assert "written to" not in second.splitlines()[0]
    assert without_elapsed(second).splitlines()[1:] == without_elapsed(first).splitlines()[1:]


def test_getting_started_python_examples_run_as_written(quick_start) -> None:
    """Each Python block of Getting started, run from the directory ``make run`` wrote to,
    with what its comments say it prints."""
    cwd, _, _ = quick_start
    python = blocks(GETTING_STARTED, "python")
    assert len(python) >= 4
    for block in python:
        done = run([sys.executable, "-c", block.text], cwd)
        assert done.returncode == 0, f"{block.where()}:\n{done.stderr[-3000:]}"
        for expected in re.findall(r"#\s+(\S.*?)\s*$", block.text, re.M):
            if expected.startswith(("3 [", "How will")):
                assert expected in done.stdout, (block.where(), expected, done.stdout)


def test_the_documented_sample_baselines_are_the_release_s(quick_start) -> None:
    """The releases guide quotes the sample's BM25 and random window F1 from its card."""
    import json

    cwd, _, _ = quick_start
    text = (ROOT / "docs" / "guides" / "releases.md").read_text()
    quoted = re.search(r"<!-- sample-baselines -->(.*?)<!-- /sample-baselines -->", text).group(1)
    stats = json.loads((cwd / "releases" / "nlquad" / "1.0.0" / "stats.json").read_text())
    f1 = {row["name"]: row["f1"] for row in stats["baselines"]["rows"]}
    assert quoted == (f"BM25 window F1 {f1['BM25 window']:.3f}, "
                      f"random window F1 {f1['random window']:.3f}")
