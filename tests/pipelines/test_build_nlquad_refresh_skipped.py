"""A refresh of NLQuAD carries the outcome of a page the parser skipped (``refresh/skipped/``,
``transforms.nlquad.outcomes``): an unchanged skipped page is counted and rejected as a full
rebuild does, without being parsed again; a changed one is parsed again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.pipelines.test_build_nlquad_refresh import INDEX, SAMPLE, build, html_source
from transforms.nlquad import stages
from transforms.nlquad.outcomes import PREFIX

SKIPPED = "rejected/skipped_pages/"


def _pages(directory: Path, rows: list[list[str]], changed: str = "") -> list[str]:
    """``--source html`` inputs of the sample's ``rows``; the page ``changed`` gets other
    bytes (a comment at its end), so its digest changes."""
    directory.mkdir()
    for name, _, _ in rows:
        shutil.copyfile(SAMPLE / "pages" / name, directory / name)
        if name == changed:
            with (directory / name).open("ab") as handle:
                handle.write(b"<!-- saved again -->")
    (directory / "index.tsv").write_text(
        "file\turl\ttimestamp\n" + "".join("\t".join(row) + "\n" for row in rows),
        encoding="utf-8")
    return html_source(directory)


def _files(version_dir: Path, prefix: str) -> dict[str, bytes]:
    return {str(path.relative_to(version_dir)): path.read_bytes()
            for path in sorted(version_dir.glob(f"{prefix}*.jsonl"))}


def _skips(result: dict) -> dict[str, int]:
    """The ``pages.skipped.<reason>`` counts of a build."""
    return {name: count for name, count in result["stats"]["counts"]["pages"].items()
            if name.startswith("skipped.")}


def _parsed_urls(monkeypatch) -> list[str]:
    """The URLs ``ParsePages`` parses from now on (the job runs in this process)."""
    urls: list[str] = []
    parse = stages.ParsePages._parse

    def counting(self, page):
        urls.append(page.url)
        return parse(self, page)

    monkeypatch.setattr(stages.ParsePages, "_parse", counting)
    return urls


def test_a_refresh_parses_no_unchanged_skipped_page(tmp_path, monkeypatch):
    root = tmp_path / "r"
    source = _pages(tmp_path / "pages", INDEX)
    first = build(root, "1", *source)
    skipped = sum(_skips(first).values())
    assert skipped > 0 and len(_files(Path(first["path"]), PREFIX)) == 1
    urls = _parsed_urls(monkeypatch)
    refreshed = build(root, "2", *source, "--previous", "auto")
    counts = refreshed["stats"]["counts"]
    assert counts["carried"]["skipped_pages"] == skipped
    # only the text duplicates are parsed again: they depend on the run's other articles
    assert len(urls) == first["stats"]["counts"]["dedup"]["duplicate_content"]
    skipped_urls = {line["capture_url"] for path in Path(first["path"]).glob(f"{PREFIX}*")
                    for line in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    assert not skipped_urls & set(urls)
    monkeypatch.undo()
    rebuilt = build(tmp_path / "rebuild", "2", *source)
    for prefix in (PREFIX, SKIPPED):  # the same bytes as the rebuild's (and the previous)
        assert _files(Path(refreshed["path"]), prefix) == _files(Path(rebuilt["path"]), prefix) \
            == _files(Path(first["path"]), prefix)
    full = rebuilt["stats"]["counts"]["pages"]  # counted as the rebuild counts them
    assert _skips(refreshed) == _skips(rebuilt) == _skips(first)
    assert {k: v for k, v in counts["pages"].items() if k.startswith("encoding")} == {
        k: v for k, v in full.items() if k.startswith("encoding")}


def test_a_changed_skipped_page_is_parsed_again(tmp_path, monkeypatch):
    root = tmp_path / "r"
    live = next(row for row in INDEX if "/live/" in row[1])
    build(root, "1", *_pages(tmp_path / "v1", INDEX))
    urls = _parsed_urls(monkeypatch)
    source = _pages(tmp_path / "v2", INDEX, changed=live[0])
    refreshed = build(root, "2", *source, "--previous", "auto")
    assert live[1] in urls
    counts = refreshed["stats"]["counts"]
    assert _skips(refreshed)["skipped.live_page"] == 1
    monkeypatch.undo()
    rebuilt = build(tmp_path / "rebuild", "2", *source)
    assert _skips(refreshed) == _skips(rebuilt)
    assert counts["carried"]["skipped_pages"] == sum(_skips(rebuilt).values()) - 1
    for prefix in (PREFIX, SKIPPED):
        assert _files(Path(refreshed["path"]), prefix) == _files(Path(rebuilt["path"]), prefix)
