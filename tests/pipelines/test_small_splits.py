"""NQ's default ratios leave dev empty on the bundled sample: the split is still in the
release, the summary and the card say so, and both ``datasets.load_dataset`` and the
toolkit's loader work (issue 37 §3)."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

from pipelines import build_nq
from pipelines.api import load_release


@pytest.fixture(scope="module")
def built(sample_build) -> tuple[dict, Path]:
    return sample_build("nq")  # NQ's default ratios on the sample, built once per run


def test_the_empty_dev_split_is_declared_and_warned_about(built):
    result, path = built
    assert result["manifest"]["rows_per_split"]["dev"] == 0
    assert (path / "dev").is_dir()
    info = json.loads((path / "dataset_info.json").read_text())
    assert "dev" in json.dumps(info)
    croissant = (path / "croissant.json").read_text()
    assert "dev/dev-00000-of-00001.parquet" in croissant
    summary = build_nq.format_summary(result)
    assert "WARNING: small splits: dev 0 rows, test 1 row" in summary
    assert "--split-ratios" in summary
    assert "**Small splits:** `dev` (0 rows), `test` (1 row)" in (path / "README.md").read_text()


def test_it_loads_in_datasets_with_the_split_present(built):
    _, path = built
    loaded = datasets.load_dataset(str(path))  # the card's configs: never a 0-row split
    assert loaded["train"].num_rows == 30 and "dev" not in loaded
    tables = load_release(path)
    assert list(tables) == ["train", "dev", "test"]
    splits = datasets.DatasetDict({name: datasets.Dataset(table)
                                   for name, table in tables.items()})
    assert splits["dev"].num_rows == 0 and splits["dev"].features == splits["train"].features
