"""build_search_index end to end (the golden test): the bundled corpus and a hostile
Enterprise dump give the known counts, summary and card, and every counter that fired is one
the spec declares (``transforms.search_index.counters``)."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines import build_search_index, release
from tests.conftest import TEST_RUNNER
from tests.pipelines import hostile
from transforms.search_index.spec import SPEC
from transforms.sources.index_copy import check_index_dir


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


def test_the_index_goes_under_the_release_root_that_release_list_reads(tmp_path, monkeypatch,
                                                                        capsys):
    monkeypatch.chdir(tmp_path)
    result = build_search_index.run([TEST_RUNNER])  # no --output: the shared default
    assert (tmp_path / result["path"]).resolve() == (
        tmp_path / "releases" / "search_en" / "1.0.0").resolve()
    capsys.readouterr()
    assert release.main(["list", "releases", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["releases"]
    assert [(e["dataset"], e["version"], e["status"], e["latest"]) for e in listed] == [
        ("search_en", "1.0.0", "complete", True)]
    assert not (tmp_path / "indexes").exists()
    check_index_dir(result["path"])  # what build_nq --index-dir releases/search_en/1.0.0 checks
