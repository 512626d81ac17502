"""The publish step gives the memory Arrow's pool holds but no buffer uses back first."""

from __future__ import annotations

import transforms.release.run as release_run
from tests.transforms.release.toy import run_toy


def test_publishing_releases_the_pool_before_its_own_reads(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(release_run, "release_arrow_memory", lambda: calls.append(1))
    result = run_toy(tmp_path, ["a", "b"])
    assert calls and result["manifest"]["rows_per_split"] == {"train": 2}
