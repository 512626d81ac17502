"""Each example's decisions on its detail page (``transforms.browse.decisions``): every row of
the release's ``decisions/`` table beside its example, values escaped, and releases without
decisions written byte for byte as before."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pyarrow.parquet as pq

from transforms.browse import decisions as decisions_module
from transforms.browse import site as site_module
from transforms.browse.base import Entry
from transforms.browse.decisions import INDEX_FILE, decisions_html, with_decisions
from transforms.browse.site import write_site

HOSTILE = "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.cells: list[str] = []
        self._in_cell = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "td":
            self._in_cell = True
            self.cells.append("")

    def handle_endtag(self, tag):
        if tag == "td":
            self._in_cell = False

    def handle_data(self, data):
        if self._in_cell:
            self.cells[-1] += data


def _parse(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    return parser


def test_decisions_html_shows_label_aggregate_and_confidence_escaped():
    rows = [("good_question", None, "true", "paper", 0.7),
            ("long_answer", 3, "EXIST", "ds", 0.91234),
            ("span", 3, HOSTILE, f'"{HOSTILE}', "0.5<b>x</b>"),
            (HOSTILE, HOSTILE, "NONE", "carried", None)]
    html = decisions_html(rows, "paragraph", workers=True)
    parsed = _parse(html)
    assert "script" not in parsed.tags and "img" not in parsed.tags and "b" not in parsed.tags
    assert parsed.cells[:5] == ["good_question", "—", "true", "paper", " 0.700"]
    assert parsed.cells[5:10] == ["long_answer", "3", "EXIST", "ds", " 0.912"]
    assert parsed.cells[10:15] == ["span", "3", HOSTILE, f'"{HOSTILE}', "0.5<b>x</b>"]
    assert parsed.cells[15:] == [HOSTILE, HOSTILE, "NONE", "carried", "—"]
    assert '<meter min="0" max="1" value="0.912">' in html
    assert "the share of the judgments that gave the most common value" in html
    assert "docs/guides/annotation.md" in html and 'href="../workers.html#confidence"' in html
    assert "workers.html" not in decisions_html(rows[:1], "candidate", workers=False)
    assert "<th>candidate</th>" in decisions_html(rows[:1], "candidate", workers=False)


def test_without_an_index_entries_pass_unchanged():
    entries = [Entry("q1", "train", ("a",), "text", "", "<p>x</p>")]
    assert list(with_decisions(iter(entries), None)) == entries


def _decision_rows(release: Path) -> list[dict]:
    return [row for f in sorted((release / "decisions").rglob("*.parquet"))
            for row in pq.read_table(f).to_pylist()]


def _sections(site: Path) -> dict[str, str]:
    """Detail section HTML by the example's key."""
    sections = {}
    for page in sorted((site / "examples").glob("page-*.html")):
        html = page.read_text(encoding="utf-8")
        for match in re.finditer(r'<section id="e-\d+" class="example" data-split="[^"]*" '
                                 r'data-key="([^"]*)">(.*?)\n</section>', html, re.S):
            sections[match.group(1)] = match.group(2)
    return sections


def test_every_decision_is_shown_beside_its_example(sample_releases, tmp_path):
    for name, item, place in (("jnq_annotated", "question_id", "paragraph"),
                              ("nq_annotated", "example_id", "candidate")):
        release = sample_releases[name]
        rows = _decision_rows(release)
        assert rows, f"the {name} sample has a decisions table"
        site = tmp_path / name
        write_site(str(release), str(site))
        assert not list(site.rglob(INDEX_FILE))
        sections = _sections(site)
        shown = 0
        for key, section in sections.items():
            mine = [r for r in rows if str(r[item]) == key]
            if not mine:
                assert 'class="decisions"' not in section
                continue
            table = section.split('<section class="decisions">', 1)[1]
            cells = _parse(table).cells
            assert len(cells) == 5 * len(mine)
            found = {tuple(cells[i:i + 5]) for i in range(0, len(cells), 5)}
            for row in mine:
                confidence = ("—" if row["confidence"] is None
                              else f" {row['confidence']:.3f}")
                where = "—" if row[place] is None else str(row[place])
                assert (row["decision"], where, row["label"], row["aggregate"],
                        confidence) in found
            shown += 1
        published = {str(r[item]) for r in rows} & set(sections)
        assert shown == len(published) > 0


def test_pages_of_a_release_without_decisions_are_unchanged(sample_releases, tmp_path,
                                                             monkeypatch):
    release = sample_releases["jnq"]
    write_site(str(release), str(tmp_path / "with"))
    monkeypatch.setattr(site_module, "with_decisions", lambda entries, index: entries)
    monkeypatch.setattr(decisions_module.DecisionIndex, "open",
                        classmethod(lambda cls, view, folder: None))
    write_site(str(release), str(tmp_path / "before"))
    names = sorted(p.relative_to(tmp_path / "with") for p in (tmp_path / "with").rglob("*")
                   if p.is_file())
    assert names == sorted(p.relative_to(tmp_path / "before")
                           for p in (tmp_path / "before").rglob("*") if p.is_file())
    for name in names:
        assert (tmp_path / "with" / name).read_bytes() == (tmp_path / "before" / name
                                                           ).read_bytes(), name
