"""Running a tutorial as written: the blocks marked ``<!-- tutorial: NAME -->`` (in the order
of their page) are run by bash from a directory where ``make run``'s command has run (a copy
of its one run, ``made_run``), as a reader runs them from the repository's root after the
quick start. A tutorial may write only under ``tutorial/`` (and ``.cache/``, the bundled
search index's cache). Each tutorial's test is a file of its own in ``tests/docs/tutorials/``
(``test_<name>.py``), so ``make test``'s workers run the tutorials side by side."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.docs.made_run import MadeRun
from tests.docs.pages import ROOT, blocks, pages

TESTS = Path(__file__).resolve().with_name("tutorials")
# The FnApiRunner, which every test names, stands in for the DirectRunner (whose engine it is:
# transforms.core.direct_runner): a wrapper in the place of .venv/bin/python adds it to the
# Beam jobs' arguments.
WRAPPER = """#!/bin/sh
case "$1 $2 $3" in
  "-m pipelines.build_"*|"-m pipelines.annotate import") exec {python} "$@" --runner=FnApiRunner;;
esac
exec {python} "$@"
"""


def tutorials() -> dict[str, tuple[Path, str]]:
    """Tutorial name -> (its page, its blocks joined)."""
    found: dict[str, tuple[Path, str]] = {}
    for page in pages():
        for block in blocks(page, "bash"):
            if not block.mark.startswith("tutorial: "):
                continue
            name = block.mark.removeprefix("tutorial: ")
            previous_page, previous = found.get(name, (page, ""))
            assert previous_page == page, f"tutorial {name} is on two pages"
            found[name] = (page, previous + block.text + "\n")
    return found


def tutorial_test_file(name: str) -> Path:
    """The test file of the tutorial ``name``."""
    return TESTS / f"test_{name.replace('-', '_')}.py"


def reader_directory(base: Path) -> Path:
    """An empty directory with ``.venv/bin/python`` (the wrapper) and the console scripts."""
    bin_dir = base / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    wrapper = bin_dir / "python"
    wrapper.write_text(WRAPPER.format(python=sys.executable))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    for script in Path(sys.executable).parent.glob("qa-*"):
        (bin_dir / script.name).symlink_to(script)
    return base


def run_tutorial(name: str, tmp_path: Path, made_run: MadeRun) -> None:
    """Run the tutorial ``name`` as a reader does; fails unless it exits 0 having written only
    under ``tutorial/``."""
    page, script = tutorials()[name]
    cwd = made_run.copy_to(reader_directory(tmp_path))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{page.name}, tutorial {name}:\n{done.stderr[-4000:]}"
    written = [p for p in cwd.iterdir() if p.name not in (".venv", ".cache", "releases")]
    assert [p.name for p in written] == ["tutorial"], "a tutorial writes only under tutorial/"
