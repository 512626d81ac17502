"""Every ``pipelines/build_*.py`` is a thin CLI: at most 30 lines, its logic in ``transforms``."""

from __future__ import annotations

from pathlib import Path

import pytest

BUILDERS = sorted((Path(__file__).resolve().parents[2] / "pipelines").glob("build_*.py"))
MAX_LINES = 30


def test_builders_found() -> None:
    assert {p.stem for p in BUILDERS} >= {"build_nq", "build_jnq", "build_nlquad", "build_reqa"}


@pytest.mark.parametrize("builder", BUILDERS, ids=lambda p: p.stem)
def test_builder_is_thin(builder: Path) -> None:
    lines = builder.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"{builder.name}: {len(lines)} lines"
