"""ExampleWriter: index, detail and data pages written as entries stream by, with pagers,
anchors and the filter's data."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from transforms.browse.base import Entry
from transforms.browse.examples import ExampleWriter, js_value

HOSTILE = '<script>alert("x")</script>'


def _entry(i: int, split: str = "train", reason: str = "") -> Entry:
    return Entry(key=f"k{i}", split=split, cells=(f"<b>cell {i}</b>", "two"),
                 text=f"Question {i} {HOSTILE}", reason=reason,
                 detail=f'<p class="detail">detail {i}</p>')


def _register(path: Path) -> tuple[int, list]:
    match = re.fullmatch(r"QA\.register\((\d+), (.*)\);\n", path.read_text(encoding="utf-8"),
                         re.S)
    assert match, path
    return int(match[1]), json.loads(match[2])


def _configure(folder: Path) -> dict:
    match = re.fullmatch(r"QA\.configure\((.*)\);\n", (folder / "pages.js").read_text("utf-8"),
                         re.S)
    return json.loads(match[1])


@pytest.fixture
def written(tmp_path) -> Path:
    splits = ["train"] * 3 + ["dev", "test"]
    with ExampleWriter(str(tmp_path), ("question", "title"), page_size=2, details_per_page=2,
                       release="toy 1.0.0") as writer:
        for i, split in enumerate(splits, 1):
            assert writer.add(_entry(i, split, "short" if i % 2 else "none")) == i
    return tmp_path / "examples"


def test_pages_of_the_given_sizes(written):
    names = sorted(p.name for p in written.iterdir())
    assert names == ["data-00001.js", "data-00002.js", "data-00003.js", "index-00001.html",
                     "index-00002.html", "index-00003.html", "page-00001.html",
                     "page-00002.html", "page-00003.html", "pages.js"]
    config = _configure(written)
    assert config == {"pages": 3, "detailPages": 3, "entries": 5, "pageSize": 2,
                      "columns": ["question", "title"], "splits": ["train", "dev", "test"],
                      "reasons": ["none", "short"]}


def test_index_rows_link_to_their_detail_anchor(written):
    second = (written / "index-00002.html").read_text(encoding="utf-8")
    assert '<tr id="r-3"><td class="n"><a href="page-00002.html#e-3">#3</a></td>' in second
    assert "<td><b>cell 3</b></td><td>two</td><td>train</td><td>short</td>" in second
    assert '<tr id="r-4">' in second and '<tr id="r-5">' not in second
    detail = (written / "page-00002.html").read_text(encoding="utf-8")
    assert re.findall(r'<section id="(e-\d+)" class="example"', detail) == ["e-3", "e-4"]
    assert 'data-split="dev" data-key="k4"' in detail and "detail 4" in detail
    assert 'href="index-00002.html#r-3">back to the index' in detail


def test_pagers_link_previous_and_next_only_where_they_exist(written):
    first = (written / "index-00001.html").read_text(encoding="utf-8")
    last = (written / "index-00003.html").read_text(encoding="utf-8")
    assert 'href="index-00002.html" rel="next"' in first and 'rel="prev"' not in first
    assert 'href="index-00002.html" rel="prev"' in last and 'rel="next"' not in last
    assert 'href="index-00001.html" rel="first"' in last
    detail = (written / "page-00003.html").read_text(encoding="utf-8")
    assert 'href="page-00002.html" rel="prev"' in detail and 'rel="next"' not in detail


def test_filter_data_holds_every_entry_escaped_for_a_script(written):
    rows = []
    for number in (1, 2, 3):
        path = written / f"data-{number:05d}.js"
        assert "<" not in path.read_text(encoding="utf-8")
        page, page_rows = _register(path)
        assert page == number
        rows += page_rows
    assert [r[0] for r in rows] == [1, 2, 3, 4, 5]
    assert rows[3] == [4, "k4", "dev", "none", f"Question 4 {HOSTILE}", "page-00002.html#e-4",
                       ["<b>cell 4</b>", "two"]]


def test_index_pages_carry_the_filter_and_scripts(written):
    index = (written / "index-00001.html").read_text(encoding="utf-8")
    assert '<form id="filter" class="filter" hidden' in index
    assert 'name="q"' in index and 'name="split"' in index and 'name="reason"' in index
    assert '<script src="../assets/site.js"' in index
    assert '<script src="../examples/pages.js"' in index
    assert "<script>" not in index and HOSTILE not in index


def test_pages_are_written_while_entries_stream(tmp_path):
    writer = ExampleWriter(str(tmp_path), ("q",), page_size=3, details_per_page=1)
    for i in range(1, 5):
        writer.add(_entry(i))
    folder = tmp_path / "examples"
    assert (folder / "index-00001.html").exists() and not (folder / "index-00002.html").exists()
    assert (folder / "page-00003.html").exists() and not (folder / "page-00004.html").exists()
    summary = writer.close()
    assert (folder / "index-00002.html").exists() and (folder / "page-00004.html").exists()
    assert summary["entries"] == 4 and summary["index_pages"] == 2
    assert summary["detail_pages"] == 4 and summary["splits"] == {"train": 4}


def test_no_entries_still_gives_an_index_page(tmp_path):
    summary = ExampleWriter(str(tmp_path), ("q",)).close()
    folder = tmp_path / "examples"
    assert "This release has no examples." in (folder / "index-00001.html").read_text("utf-8")
    assert _register(folder / "data-00001.js") == (1, [])
    assert _configure(folder)["pages"] == 1 and summary["detail_pages"] == 0
    assert not list(folder.glob("page-*.html"))


def test_the_filter_text_is_bounded(tmp_path):
    with ExampleWriter(str(tmp_path), ("q",)) as writer:
        writer.add(Entry(key="k", split="train", cells=("c",), text="x" * 5000))
    _, rows = _register(tmp_path / "examples" / "data-00001.js")
    assert len(rows[0][4]) == 1000


def test_js_value_cannot_close_a_script():
    value = js_value(["</script><!--", "\u2028"])
    assert "<" not in value and "\u2028" not in value
    assert json.loads(value) == ["</script><!--", "\u2028"]


def test_sizes_must_be_positive(tmp_path):
    with pytest.raises(ValueError):
        ExampleWriter(str(tmp_path), ("q",), page_size=0)
