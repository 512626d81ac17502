"""build_search_index end to end (the golden test): the bundled corpus and a hostile
Enterprise dump give the known counts, summary and card, and every counter that fired is one
the spec declares (``transforms.search_index.counters``)."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines import build_search_index
from tests.conftest import TEST_RUNNER
from tests.pipelines import hostile
from transforms.search_index.spec import SPEC


def _stats(result: dict) -> dict:
    return json.loads((Path(result["path"]) / "stats.json").read_text(encoding="utf-8"))


def test_sample_and_enterprise_golden(tmp_path, sample_build):
    sample, _ = sample_build("search_index")  # in memory, shared with test_determinism
    assert Path(sample["path"]).parts[-2:] == ("search_en", "1.0.0")
    assert sample["manifest"]["rows_per_split"] == {"docs": 46}
    assert _stats(sample)["counts"] == sample["stats"]["counts"] == {"pages": {"read": 46}}
    assert sample["manifest"]["source"]["kind"] == "sample"
    assert sample["manifest"]["options"]["input"] is None
    assert build_search_index.format_summary(sample).splitlines() == [
        f"Search index written to {sample['path']}",
        "  pages read:    46",
        "  pages indexed: 46",
        "  malformed dump lines: 0",
        "  unreadable pages: 0",
        "  dead-lettered records: 0 (see rejected/dead_letter/)",
    ]
    card = (Path(sample["path"]) / "README.md").read_text(encoding="utf-8")
    assert "| pages read | 46 |" in card and "| pages indexed | 46 |" in card

    pattern, good, malformed, not_articles = hostile.enterprise_dump(
        tmp_path / "in" / "dump.json.tar.gz")
    dump = build_search_index.run([TEST_RUNNER, "--source", "enterprise", "--input", pattern,
                                   "--output", str(tmp_path / "dump")])
    assert dump["stats"]["counts"] == {"pages": {
        "read": good, "malformed_lines": malformed, "skipped.not_article": not_articles,
        "dead_lettered": malformed}}
    assert f"| malformed dump lines | {malformed} |" in (
        Path(dump["path"]) / "README.md").read_text(encoding="utf-8")

    for result in (sample, dump):
        assert SPEC.counters.undeclared(result["stats"]["counts"]) == []
