"""``build_search_index --previous``: a BM25 index is global (doc ids by URL order, scores
over every page), so a refresh records the lineage and recomputes every row and index file,
as ``--recompute-all`` (no option change is refused), and writes what a full build writes
(``transforms.search_index.refresh``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq

from pipelines.build_search_index import main
from tests.conftest import TEST_RUNNER
from transforms.sources.search_corpus import sample_corpus_dir

SAMPLE = Path(sample_corpus_dir("en"))


def corpus(path: Path, skip: slice) -> Path:
    """The bundled corpus without the pages of ``skip`` (lines of its index.tsv)."""
    shutil.copytree(SAMPLE, path)
    header, *lines = (SAMPLE / "index.tsv").read_text(encoding="utf-8").splitlines()
    del lines[skip]
    (path / "index.tsv").write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return path


def build(root: Path, source: Path, version: str, *extra: str) -> int:
    return main(["--source", "pages", "--input", str(source), "--output", str(root),
                 "--version", version, *extra, TEST_RUNNER])


def urls(version_dir: Path) -> set[str]:
    return set(pq.read_table(version_dir / "docs", columns=["url"]).column(0).to_pylist())


def data_files(version_dir: Path) -> dict[str, bytes]:
    skip = {"README.md", "SHA256SUMS", "croissant.json", "dataset_info.json", "stats.json"}
    return {p.relative_to(version_dir).as_posix(): p.read_bytes()
            for p in sorted(version_dir.rglob("*")) if p.is_file() and p.name not in skip
            and not p.relative_to(version_dir).as_posix().startswith("rejected/")}


def test_a_refresh_recomputes_the_whole_index_and_records_the_lineage(tmp_path, capsys):
    root = tmp_path / "r"
    assert build(root, corpus(tmp_path / "v1", slice(0, 2)), "1") == 0
    v2 = corpus(tmp_path / "v2", slice(-3, None))  # 2 pages added, 3 gone
    capsys.readouterr()
    # --max-decoded-mib is a row option, and is not refused: nothing is carried
    assert build(root, v2, "2", "--previous", "auto", "--max-decoded-mib", "64") == 0
    out = capsys.readouterr().out
    version = root / "search_en" / "2"
    before, after = urls(root / "search_en" / "1"), urls(version)
    assert (len(before - after), len(after - before)) == (3, 2)
    stats = json.loads((version / "stats.json").read_text(encoding="utf-8"))
    refresh = stats["refresh"]
    assert refresh["recompute_all"] is True
    assert (refresh["carried"], refresh["recomputed"], refresh["new"], refresh["removed"]) == (
        0, len(before & after), 2, 3)
    assert stats["counts"]["pages"]["read"] == len(after)  # this run read every page
    manifest = json.loads((version / "dataset_info.json").read_text(encoding="utf-8"))
    assert manifest["previous"]["version"] == "1"
    card = (version / "README.md").read_text(encoding="utf-8")
    assert "Refresh: built on version 1 with `--previous`. A BM25 index is global" in card
    assert "## Changes since search_en 1" in card and "every row was recomputed" in card
    assert "refresh: every row and index file recomputed" in out
    assert build(tmp_path / "full", v2, "2", "--max-decoded-mib", "64") == 0
    full = data_files(tmp_path / "full" / "search_en" / "2")
    assert any(name.startswith("bm25/") for name in full)
    assert data_files(version) == full
