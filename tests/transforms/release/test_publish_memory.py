"""The publish step gives the memory Arrow's pool holds but no buffer uses back first."""

from __future__ import annotations

import transforms.release.run as release_run
from tests.transforms.release.toy import run_toy


def test_publishing_releases_the_pool_before_its_own_reads(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(release_run, "release_arrow_memory", lambda: calls.append(1))
    result = run_toy(tmp_path, ["a", "b"])
    assert calls and result["manifest"]["rows_per_split"] == {"train": 2}


def test_a_refresh_releases_the_pool_before_and_after_its_diff(tmp_path, monkeypatch):
    from tests.transforms.release.refresh.test_refresh import build, write_lines

    assert build(tmp_path, write_lines(tmp_path / "v1.jsonl", [0, 1, 2]), "1") == 0
    calls = []
    monkeypatch.setattr(release_run, "release_arrow_memory", lambda: calls.append("released"))
    for name in ("require_invariants", "within_release_leakage", "diff_staged"):
        step = getattr(release_run, name)
        monkeypatch.setattr(release_run, name, lambda *args, step=step, name=name, **kwargs: (
            calls.append(name), step(*args, **kwargs))[1])
    lines = write_lines(tmp_path / "v2.jsonl", [0, 1, 3])
    assert build(tmp_path, lines, "2", "--previous", "auto") == 0
    assert calls == ["released", "require_invariants", "within_release_leakage",  # decode
                     "released", "diff_staged", "released"]
