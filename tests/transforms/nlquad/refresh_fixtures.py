"""A published NLQuAD sample release whose refresh sidecar is edited as a forger would:
lines appended, the manifest and ``SHA256SUMS`` re-sealed, so only the lines themselves can
tell (issue 35, C11)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import TEST_RUNNER
from tests.pipelines.test_refresh_invariants import reseal
from transforms.nlquad.sidecar import PREFIX


def sidecar_file(version: Path) -> Path:
    """The (single) sidecar file of a small release."""
    (path,) = version.glob(f"{PREFIX}*.jsonl")
    return path


def pad_sidecar(v1: Path, tmp_path: Path, changes: list[dict[str, Any]]) -> tuple[Path, int]:
    """A copy of the release ``v1`` (``<root>/nlquad/1``) under ``tmp_path`` whose sidecar
    has one more line per item of ``changes`` (its first line with those fields changed),
    re-sealed: ``(version directory, number of its first added line)``."""
    root = tmp_path / "padded"
    shutil.copytree(v1.parent.parent, root)
    version = root / v1.parent.name / v1.name
    path = sidecar_file(version)
    lines = path.read_bytes().splitlines()
    template = json.loads(lines[0])
    with path.open("ab") as out:
        for change in changes:
            out.write(json.dumps({**template, **change}).encode("utf-8") + b"\n")
    reseal(version)
    return version, len(lines) + 1


def refresh_args(version: Path, *argv: str) -> list[str]:
    """``build_nlquad`` arguments of a refresh of ``version`` into version 2 beside it."""
    return [TEST_RUNNER, "--output", str(version.parent.parent), "--version", "2",
            "--previous", str(version), *argv]
