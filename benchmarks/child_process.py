"""How a benchmark measures in a process of its own (so each peak RSS is that run's alone):
the parent runs ``python <benchmark> --child ...`` and reads the one ``RESULT <json>`` line
the child prints with ``report``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

PREFIX = "RESULT "


def report(result: Any) -> None:
    """Print the child's result for ``run_child``."""
    print(PREFIX + json.dumps(result))


def run_child(command: list[str], what: str, cwd: Path) -> Any:
    """Run ``command`` and return the result its ``report`` printed; ``RuntimeError`` with
    the end of its stderr when it printed none."""
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False)
    for line in done.stdout.splitlines():
        if line.startswith(PREFIX):
            return json.loads(line[len(PREFIX):])
    raise RuntimeError(f"{what} failed:\n{done.stderr[-3000:]}")
