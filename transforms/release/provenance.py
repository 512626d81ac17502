"""Where the code that built a release came from, and when."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path


def code_version() -> dict[str, str]:
    """Package version and, when run from a git checkout, the commit."""
    try:
        version = metadata.version("qa-dataset-toolkit")
    except metadata.PackageNotFoundError:
        version = "unknown"
    commit = ""
    try:
        output = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
            capture_output=True, text=True, timeout=5, check=False,
        ).stdout.strip()
        commit = output if re.fullmatch(r"[0-9a-f]{40}", output) else ""
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {"package": "qa-dataset-toolkit", "version": version, "git_commit": commit}



def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

