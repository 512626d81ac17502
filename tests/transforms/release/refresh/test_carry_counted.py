"""Carrying rows by reference (``Carry(batch_columns=...)``, NLQuAD), the previous keys are
counted where the rows are carried: each previous data file is read once for its keys (and,
for the rows it carries, by the shard writer and the statistics), not a second time by a
reader of keys alone, and the ``refresh.*`` counts are the join's."""

from __future__ import annotations

from collections import Counter

from pipelines.build_nlquad import run
from tests.conftest import TEST_RUNNER
from tests.pipelines.refresh_checks import read_json
from tests.pipelines.test_build_nlquad_refresh import REMOVED, sample_pages
from transforms.release.refresh import carried_rows, carry


def test_each_previous_file_is_read_once_for_its_keys(tmp_path, monkeypatch):
    root = tmp_path / "r"
    run([TEST_RUNNER, "--output", str(root), "--version", "1",
         *sample_pages(tmp_path / "v1", set())])
    reads: Counter[tuple[str, str]] = Counter()

    def counting(module, name):
        read = getattr(module, name)

        def counted(release, file_name):
            reads[module.__name__.rsplit(".", 1)[-1], file_name] += 1
            return read(release, file_name)
        monkeypatch.setattr(module, name, counted)

    counting(carry, "read_file")
    counting(carried_rows, "read_file")
    run([TEST_RUNNER, "--output", str(root), "--version", "2", "--previous", "auto",
         *sample_pages(tmp_path / "v2", {REMOVED})])
    data = sorted(str(p.relative_to(root / "nlquad" / "1"))
                  for p in (root / "nlquad" / "1").glob("*/*.parquet"))
    assert {name for _, name in reads} <= set(data)
    assert all(reads["carry", name] == 1 for name in data), reads
    assert all(reads["carried_rows", name] <= 2 for name in data), reads  # writer, statistics
    refresh = read_json(root / "nlquad" / "2", "stats.json")["refresh"]
    rows = sum(read_json(root / "nlquad" / "1", "dataset_info.json")["rows_per_split"].values())
    assert refresh["removed"] == 2 and refresh["new"] == 0 and refresh["recomputed"] == 0
    assert refresh["carried"] == rows - 2 and refresh["inputs_carried"] > 0
