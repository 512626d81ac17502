"""``make run``'s command (the quick start), run once per test run: the quick start's tests
read what it printed, and the pages' examples and the tutorials start from a copy of the
directory it wrote to, as a reader starts from the repository's root after the quick start."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.docs.pages import ROOT


def make_run_command() -> list[str]:
    """The command of the Makefile's ``run`` target, without ``$(ARGS)``."""
    recipe = re.search(r"^run: .*\n\t(.+)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    return recipe.replace("$(BIN)/python", sys.executable).replace("$(ARGS)", "").split()


def offline(command: list[str]) -> list[str]:
    """``command`` with the FnApiRunner for the DirectRunner, the runner every test names
    (a DirectRunner job runs on that engine, ``transforms.core.direct_runner``): the summary
    and the release are the same."""
    assert "--runner=DirectRunner" in command and "--skip-existing" in command, command
    return [("--runner=FnApiRunner" if word == "--runner=DirectRunner" else word)
            for word in command]


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` run in ``cwd`` as a reader runs it from the repository's root."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def make_run_twice(directory: Path) -> dict[str, Any]:
    """``make run``'s command run twice in the empty ``directory``: what each run printed
    and its exit code (JSON data, for ``once_per_run``)."""
    runs = [run(offline(make_run_command()), directory) for _ in range(2)]
    return {"directory": str(directory),
            "runs": [{"returncode": done.returncode, "stdout": done.stdout,
                      "stderr": done.stderr} for done in runs]}


@dataclass(frozen=True)
class MadeRun:
    """The quick start's two runs in one directory (only read: tests copy it)."""

    directory: Path
    first: str
    second: str
    problems: str  # the stderr of a run that failed, "" when both exited 0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MadeRun:
        first, second = data["runs"]
        problems = "".join(done["stderr"] for done in data["runs"] if done["returncode"] != 0)
        return cls(Path(data["directory"]), first["stdout"], second["stdout"], problems)

    def copy_to(self, cwd: Path) -> Path:
        """Leave ``cwd`` as ``make run`` left its directory (``releases/``, whatever it
        wrote), next to what ``cwd`` already holds; returns ``cwd``."""
        assert not self.problems, f"make run's command failed:\n{self.problems[-3000:]}"
        shutil.copytree(self.directory, cwd, symlinks=True, dirs_exist_ok=True)
        return cwd
