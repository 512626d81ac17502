"""Every shell and Python example of Getting started and the guides runs as written: a page's
``bash`` and ``python`` blocks, in the page's order, in a fresh directory where the quick
start's ``make run`` command has run (``releases/nlquad/1.0.0``; a copy of its one run,
``made_run``), as a reader runs them from the repository's root after the quick start. Blocks
of a tutorial (``<!-- tutorial: NAME -->``) run with their tutorial (``tutorial_run.py``);
a block that cannot run here says why right above it, ``<!-- no-run: needs the network:
<what> -->``, and needing the network is the only accepted reason."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.made_run import MadeRun
from tests.docs.pages import ROOT, Block, blocks
from tests.docs.tutorial_run import WRAPPER

pytestmark = pytest.mark.docs
PAGES = [ROOT / "docs" / "getting-started.md", *sorted((ROOT / "docs" / "guides").glob("*.md"))]
RUNNABLE = ("bash", "sh", "python")
NO_RUN = "no-run: "
NETWORK = re.compile(r"^no-run: needs the network\b.{10,}")
# What a page's examples print that the page says they print.
PRINTED = {"getting-started.md": ["exit code 3"]}


def runnable(page: Path) -> list[Block]:
    """The blocks of ``page`` this test runs: shell and Python, not a tutorial's, not marked
    ``no-run``."""
    return [block for block in blocks(page) if block.language in RUNNABLE
            and not block.mark.startswith(("tutorial: ", NO_RUN))]


def script(page: Path) -> str:
    """The page's runnable blocks as one bash script: each shell block in a subshell (a ``cd``
    stays in its block), each Python block fed to ``.venv/bin/python``."""
    parts = [f"echo '>>> {block.where()}'\n" + (
        f"(\n{block.text}\n)\n" if block.language != "python"
        else f".venv/bin/python - <<'PYTHON_BLOCK'\n{block.text}\nPYTHON_BLOCK\n")
        for block in runnable(page)]
    return "".join(parts)


def reader_directory(base: Path) -> Path:
    """A fresh directory with ``.venv/bin``: ``python`` (the FnApiRunner wrapper of the
    tutorials) and every other program of the project's environment."""
    bin_dir = base / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    wrapper = bin_dir / "python"
    wrapper.write_text(WRAPPER.format(python=sys.executable))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    for program in Path(sys.executable).parent.iterdir():
        if not program.name.startswith(("python", "activate", "pip")):
            (bin_dir / program.name).symlink_to(program)
    return base


def test_every_opt_out_needs_the_network() -> None:
    marks = [(block.where(), block.mark) for page in PAGES for block in blocks(page)
             if block.mark.startswith(NO_RUN)]
    assert marks, "no block opts out: then this rule is checked on nothing"
    assert [(where, mark) for where, mark in marks if not NETWORK.match(mark)] == []


def test_the_runnable_blocks_are_found() -> None:
    pages = {page.name for page in PAGES if runnable(page)}
    assert {"getting-started.md", "releases.md", "browsing.md"} <= pages


@pytest.mark.parametrize("page", [page for page in PAGES if runnable(page)],
                         ids=lambda page: page.name)
def test_a_page_s_examples_run_as_written(page: Path, tmp_path: Path,
                                          made_run: MadeRun) -> None:
    cwd = made_run.copy_to(reader_directory(tmp_path))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script(page)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{page.name}:\n{output[-5000:]}"
    for expected in PRINTED.get(page.name, []):
        assert expected in output, f"{page.name}: {expected!r} not printed"
