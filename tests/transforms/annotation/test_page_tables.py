"""Tables sit as on the page (colspan, rowspan, empty image columns dropped only where no cell
moves), multi-value cells keep their line breaks, and words are the page's own text."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from tests.transforms.annotation.page_checks import assert_cells_hold_table_text
from tests.transforms.annotation.page_examples import page_example
from transforms.annotation.page import BREAK, page_text, render_page
from transforms.annotation.page_tables import table_layout

IMAGE = '<a href="/wiki/File:x.jpg"><img src="x.jpg"/></a>'


def _tag(html: str) -> tuple[str, str]:
    """An HTML token as NQ writes it: the page's tag, NQ's name without attributes."""
    name = re.match(r"</?([A-Za-z0-9]+)", html).group(1).capitalize()
    return html, f"</{name}>" if html.startswith("</") else f"<{name}>"


def _cell(html_tag: str, *words: str, gap: str = " ") -> list[tuple[str, str | None]]:
    parts: list[tuple[str, str | None]] = [_tag(html_tag)]
    for number, word in enumerate(words):
        if number:
            parts.append((gap, None))
        parts.append((word, word))
    closing = "</" + re.match(r"<([A-Za-z]+)", html_tag).group(1) + ">"
    return [*parts, _tag(closing)]


# The Nobel laureates table's shape: "Laureate" spans the portrait and the name columns, a
# year spans the rows of its laureates, the portraits are image-only cells.
NOBEL = page_example([
    _tag("<TABLE>"), _tag("<TR>"), *_cell("<TH>", "Year"), *_cell('<TH colspan="2">', "Laureate"),
    *_cell("<TH>", "Country"), _tag("</TR>"),
    _tag("<TR>"), *_cell('<TD rowspan="2">', "1902"), _tag("<TD>"), (IMAGE, None), _tag("</TD>"),
    *_cell("<TD>", "Hendrik", "Lorentz"), *_cell("<TD>", "Netherlands"), _tag("</TR>"),
    _tag("<TR>"), _tag("<TD>"), (IMAGE, None), _tag("</TD>"), *_cell("<TD>", "Pieter", "Zeeman"),
    *_cell("<TD>", "Netherlands", "Germany", gap="<br />"), _tag("</TR>"), _tag("</TABLE>"),
])


def _grid(markup: str) -> dict[str, int]:
    """Each table cell's first column, placed as a browser places cells (rowspan, colspan),
    by the cell's text."""
    taken: set[tuple[int, int]] = set()
    columns: dict[str, int] = {}
    for row, cells in enumerate(re.findall(r"<tr[^>]*>(.*?)</tr>", markup)):
        column = 0
        for attrs, text in re.findall(r"<t[dh]([^>]*)>(.*?)</t[dh]>", cells):
            while (row, column) in taken:
                column += 1
            wide = int((re.search(r'colspan="(\d+)"', attrs) or [0, 1])[1])
            tall = int((re.search(r'rowspan="(\d+)"', attrs) or [0, 1])[1])
            columns[page_text(text)] = column
            taken.update((row + r, column + c) for r in range(tall) for c in range(wide))
            column += wide
    return columns


def test_cells_sit_under_their_headers_with_colspan_rowspan_and_no_empty_image_column():
    page = render_page(NOBEL)
    grid = _grid(page.html)
    assert grid["Laureate"] == grid["Hendrik Lorentz"] == grid["Pieter Zeeman"]
    assert grid["Country"] == grid["Netherlands"]
    assert grid["Year"] == grid["1902"]
    assert 'rowspan="2"' in page.html and IMAGE not in page.html
    assert page.html.count("<td") - page.html.count('<td class="nq-row-tag"') == 5
    assert_cells_hold_table_text(page.html)
    assert page_text(page.html) == page.text


def test_an_empty_column_under_its_own_header_is_kept():
    example = page_example([
        _tag("<TABLE>"), _tag("<TR>"), *_cell("<TH>", "Photo"), *_cell("<TH>", "Name"),
        _tag("</TR>"), _tag("<TR>"), _tag("<TD>"), (IMAGE, None), _tag("</TD>"),
        *_cell("<TD>", "Curie"), _tag("</TR>"), _tag("</TABLE>")])
    grid = _grid(render_page(example).html)
    assert grid == {"Photo": 0, "Name": 1, "#1 ": 0, "Curie": 1} or grid["Name"] == grid["Curie"]
    layout = table_layout(example["document_tokens"], 0, example["document_html"], {0, 1, 8})
    assert layout.dropped == {}


def test_an_empty_cell_next_to_text_in_its_column_is_kept():
    rows = NOBEL["document_tokens"]
    layout = table_layout(rows, 0, NOBEL["document_html"], set())
    assert sorted(layout.dropped) == [i for i, t in enumerate(rows) if t["token"] == "<Td>"
                                      and rows[i + 1]["token"] == "</Td>"]
    example = page_example([
        _tag("<TABLE>"), _tag("<TR>"), *_cell("<TD>", "a"), _tag("<TD>"), (IMAGE, None),
        _tag("</TD>"), *_cell("<TD>", "b"), _tag("</TR>"), _tag("<TR>"), *_cell("<TD>", "c"),
        *_cell("<TD>", "d"), *_cell("<TD>", "e"), _tag("</TR>"), _tag("</TABLE>")])
    assert table_layout(example["document_tokens"], 0, example["document_html"],
                        set()).dropped == {}


def test_a_multi_value_cell_keeps_its_line_breaks_and_offsets():
    page = render_page(NOBEL)
    assert f"Netherlands {BREAK}Germany" in page.html
    assert "Netherlands Germany" in page.text
    tokens = NOBEL["document_tokens"]
    for token, start, length in zip(page.tokens, page.starts, page.lengths, strict=True):
        assert page.text[start:start + length] == tokens[token]["token"]


def test_stray_words_in_a_table_get_a_cell_so_no_browser_moves_them():
    example = page_example([
        _tag("<TABLE>"), ("stray", "stray"), _tag("<TR>"), ("loose", "loose"),
        *_cell("<TD>", "x"), _tag("</TR>"), _tag("<TD>"), ("y", "y"), _tag("</TD>"),
        _tag("</TABLE>"), _tag("<TR>"), ("outside", "outside"), _tag("</TR>")])
    page = render_page(example)
    assert_cells_hold_table_text(page.html)
    assert page_text(page.html) == page.text
    words = [page.text[s:s + n] for s, n in zip(page.starts, page.lengths, strict=True)]
    assert words == ["stray", "loose", "x", "y", "outside"]


def test_words_are_the_pages_own_text_quotes_dashes_and_no_edit_links():
    example = page_example([
        _tag("<H2>"), ('<span class="mw-headline">', None), ("History", "History"),
        ('</span><span class="mw-editsection"><span>', None), ("[", "("),
        ("</span><a>", None), ("edit", "edit"), ("</a><span>", None), ("]", ")"),
        ("</span></span>", None), _tag("</H2>"),
        _tag("<P>"), ("&quot;", "``"), ("in", "in"), (" ", None), ("recognition", "recognition"),
        ("&quot;", "''"), (" ", None), ("1940", "1940"), ("–", "--"), ("1942", "1942"),
        (" ", None), ("Röntgen&#39;s", "Röntgen's"), _tag("</P>")])
    page = render_page(example)
    assert page.text == '#0 "in recognition" 1940–1942 Röntgen\'s'.replace("#0 ", "History#0 ")
    assert "edit" not in page.text and "``" not in page.text and "''" not in page.text
    words = [page.text[s:s + n] for s, n in zip(page.starts, page.lengths, strict=True)]
    assert words == ["History", '"', "in", "recognition", '"', "1940", "–", "1942", "Röntgen's"]


@pytest.mark.realdata
def test_the_real_pages_tables_and_text(shared_data):
    with gzip.open(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz", "rt",
                   encoding="utf-8") as handle:
        pages = [render_page(json.loads(line)) for line in handle]
    for page in pages:
        assert_cells_hold_table_text(page.html)
        assert page_text(page.html) == page.text
        assert "``" not in page.text and "''" not in page.text and "(edit)" not in page.text
    nobel = pages[2].html
    start = nobel.rindex("<table", 0, nobel.index(">Year<"))
    grid = _grid(nobel[start:nobel.index("</table>", start)])
    assert grid["Laureate"] == grid["Wilhelm Conrad Röntgen"] == grid["Pieter Zeeman"]
    assert grid["Country"] == grid["Germany"] == grid["Italy"] != grid["Laureate"]
    assert grid["Year"] == grid["1901"]
    assert '"in recognition of the extraordinary services he has rendered' in pages[2].text
    assert "Zac Efron " + BREAK + "Vanessa Hudgens" in pages[1].html
