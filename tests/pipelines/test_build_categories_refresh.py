"""``build_categories --previous``: a lexicon row adds up the whole corpus, so a refresh
records the lineage and recomputes every row, as ``--recompute-all`` (no option change is
refused), and writes what a full build writes (``transforms.categories.refresh``)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from pipelines.build_categories import main
from tests.conftest import TEST_RUNNER

LINES = {"fruit": "Fruits such as apples, pears and plums grow in the valley.",
         "music": "He plays instruments such as the violin and the cello.",
         "birds": "Birds such as kestrels and owls hunt voles."}


def corpus(path: Path, field: str, *names: str) -> Path:
    path.write_text("".join(json.dumps({field: LINES[n]}) + "\n" for n in names),
                    encoding="utf-8")
    return path


def build(root: Path, source: Path, version: str, *extra: str) -> int:
    return main(["--input", str(source), "--output", str(root), "--version", version, *extra,
                 TEST_RUNNER])


def lemmas(version_dir: Path) -> set[str]:
    return {row["lemma"] for row in pq.read_table(version_dir / "lexicon").to_pylist()}


def data_files(version_dir: Path) -> dict[str, bytes]:
    return {p.relative_to(version_dir).as_posix(): p.read_bytes() for p in sorted(
        [*version_dir.glob("lexicon/*.parquet"), version_dir / "categories.tsv"])}


def test_a_refresh_recomputes_every_row_and_records_the_lineage(tmp_path, capsys):
    root = tmp_path / "r"
    assert build(root, corpus(tmp_path / "v1.jsonl", "text", "fruit", "music"), "1") == 0
    v2 = corpus(tmp_path / "v2.jsonl", "body", "fruit", "birds")
    capsys.readouterr()
    # --text-field changes rows, and is not refused: nothing is carried
    assert build(root, v2, "2", "--previous", "auto", "--text-field", "body") == 0
    out = capsys.readouterr().out
    before, after = lemmas(root / "categories" / "1"), lemmas(root / "categories" / "2")
    assert before & after and before - after and after - before
    version = root / "categories" / "2"
    stats = json.loads((version / "stats.json").read_text(encoding="utf-8"))
    refresh = stats["refresh"]
    assert refresh["recompute_all"] is True
    assert (refresh["carried"], refresh["recomputed"], refresh["new"], refresh["removed"]) == (
        0, len(before & after), len(after - before), len(before - after))
    assert "text_field" in refresh["changes"]["options"]
    assert stats["counts"]["corpus"]["paragraphs"] == 2  # this run read the whole corpus
    manifest = json.loads((version / "dataset_info.json").read_text(encoding="utf-8"))
    assert manifest["previous"]["version"] == "1"
    assert manifest["options"]["recompute_all"] is True
    card = (version / "README.md").read_text(encoding="utf-8")
    assert "Refresh: built on version 1 with `--previous`. A lexicon row adds up" in card
    assert "## Changes since categories 1" in card and "every row was recomputed" in card
    assert "every row recomputed: a lexicon row adds up the whole corpus" in out
    assert build(tmp_path / "full", v2, "2", "--text-field", "body") == 0
    assert data_files(version) == data_files(tmp_path / "full" / "categories" / "2")
