"""``python -m pipelines.release leakage --max-candidates N --progress S``: the cap reaches the
search, a capped run says so, progress lines go to stderr, a bad cap exits 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines import release
from tests.transforms.release.test_leakage_bounded import template_release, template_set
from transforms.core.progress import ENV_EVERY


@pytest.fixture(scope="module")
def crowded(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("crowded_cli")
    return (template_release(root / "releases", 20),
            template_set(root / "set.jsonl", list(range(3_000_000, 3_000_100))))


def test_a_capped_run_says_so_and_shows_progress(crowded, capsys, monkeypatch):
    monkeypatch.setenv(ENV_EVERY, "30")  # restored after the run changes it
    path, external = crowded
    assert release.main(["leakage", str(path), "--against", str(external),
                         "--max-candidates", "4", "--progress", "0.000001"]) == 0
    captured = capsys.readouterr()
    assert "release questions reached the cap of 4 candidates" in captured.out
    assert "progress: release questions checked: 20 of 20 (100%)" in captured.err
    assert f"progress: questions of {external} indexed:" in captured.err


def test_the_cap_is_in_the_json_and_a_bad_cap_exits_2(crowded, capsys):
    path, external = crowded
    report = release.leakage(str(path), [str(external)], max_candidates=3)
    assert report["method"]["max_candidates"] == 3
    assert report["external"][0]["search"]["candidates"] <= 20 * 3
    assert release.main(["leakage", str(path), "--against", str(external),
                         "--max-candidates", "0"]) == 2
    assert "--max-candidates" in capsys.readouterr().err
