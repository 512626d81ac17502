"""An NQ page as an annotator reads it: the long-answer candidates once, in place.

NQ §3.2 shows workers the Wikipedia page and asks for the first HTML bounding box (paragraph,
table, table row, list, list item) that answers. ``render_page`` lays out an NQ original-format
example as HTML for Label Studio's ``HyperText``:

* every top-level candidate once, in reading order, with the section headings before it
  (without Wikipedia's "[edit]" links);
* each candidate is one element (class ``nq-box``) that holds its nested candidates, so a
  table is shown once and its rows are boxes inside it; a tag with the candidate's index
  (``span.nq-tag``) opens each box;
* words are the page's own text (``page_words``): ``"`` and not PTB's ``\\`\\```/``''``, joined
  as the page joins them (a space only where the HTML between two tokens holds whitespace, so
  "(formerly known as Mount McKinley)" reads as on the page), and a line break where the page
  breaks the line between two words (the names of a "Starring" cell);
* tables are HTML tables with the page's ``colspan`` and ``rowspan`` (``page_tables``), empty
  image columns dropped where that moves no cell, so every cell sits under its header; a
  table row that is a candidate opens with a cell holding its tag. Every word inside a table
  is inside a cell (a stray one gets a cell of its own), so a browser never moves text out of
  the table; everything else is ``div`` and ``span``, laid out by CSS (``PAGE_STYLE``).

Label Studio reports a region as code-point offsets into the concatenated text nodes of that
HTML (``globalOffsets``; it counts a ``<br>`` as one, so none is written). ``page_text``
recomputes that text from the HTML; ``starts`` and ``tokens`` map every rendered word back to
its document token, and ``boxes`` give each candidate's character range, so a region maps to
exact tokens and to the box around it.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any

from transforms.annotation import page_words
from transforms.annotation.page_tables import Layout, table_layout, tag_name

BOX_CLASS = "nq-box"
TAG_CLASS = "nq-tag"
BREAK = '<span class="nq-break"></span>'
_MARKUP = re.compile(r"<[^>]*>")
_WHITESPACE = re.compile(r"\s")
# Characters a browser would not keep as they are in a text node.
_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_TABLE_PARTS = {"table", "tr", "td", "th"}
# The element (class) each structural HTML token becomes; anything else adds no element.
_ELEMENTS = {"table": "nq-table", "tr": "nq-tr", "td": "nq-td", "th": "nq-th",
             "ul": "nq-list", "ol": "nq-list", "dl": "nq-list", "li": "nq-li", "dd": "nq-li",
             "dt": "nq-li", "p": "nq-p", "caption": "nq-caption", "div": "nq-p",
             "blockquote": "nq-p", "pre": "nq-p"}

#: The CSS that lays the page out (Label Studio's ``<Style>``; scoped to ``.nq-page``). No
#: ``>`` or ``<``: Label Studio's sanitizer escapes them, which voids the rule.
PAGE_STYLE = """
.nq-page { font: 15px/1.45 system-ui, sans-serif; max-width: 60em; }
.nq-page .nq-heading { font-weight: 600; margin: 0.5em 0 0.1em; }
.nq-page .nq-p { margin: 0 0 0.45em; }
.nq-page .nq-table { border-collapse: collapse; margin: 0 0 0.45em; font: inherit; }
.nq-page .nq-caption { font-style: italic; }
.nq-page .nq-td, .nq-page .nq-th { border: 1px solid #ccc; padding: 0 0.3em;
  vertical-align: top; text-align: left; }
.nq-page .nq-row-tag { padding: 0 2px 0 0; vertical-align: top; }
.nq-page .nq-th { font-weight: 600; background: #f4f4f4; }
.nq-page .nq-break { display: block; }
.nq-page .nq-list { margin: 0 0 0.45em; padding-left: 1.2em; }
.nq-page .nq-li { display: list-item; list-style: disc; }
.nq-page .nq-box:hover { outline: 1px dashed #7a9cc6; }
.nq-page .nq-tag { font: 11px/1.2 ui-monospace, monospace; color: #4a6fa5;
  background: #eef3fa; border-radius: 3px; padding: 0 2px; margin-right: 3px;
  cursor: pointer; user-select: all; }
"""


@dataclass(frozen=True)
class Page:
    """A rendered page: ``html``; ``text``, the concatenation of its text nodes; ``tokens``,
    ``starts`` and ``lengths``, each rendered word's document-token index, character offset
    in ``text`` and length; ``boxes``, each candidate's ``(start, end)`` character range
    (its tag through its last word) by candidate index, ``(-1, -1)`` for one not shown."""

    html: str
    text: str
    tokens: tuple[int, ...]
    starts: tuple[int, ...]
    lengths: tuple[int, ...]
    boxes: tuple[tuple[int, int], ...]


def _word(text: str) -> str:
    """A word a browser keeps verbatim: inner whitespace as no-break spaces."""
    return _UNSAFE.sub("\ufffd", _WHITESPACE.sub("\u00a0", text))


_NEVER = 1 << 62


@dataclass
class _Open:
    name: str
    candidate: int | None
    end_token: int
    closing: str
    layout: Layout | None = None


class _Writer:
    """Builds the HTML and its text together: open elements, word spacing, box ranges."""

    def __init__(self, source: str, tokens: list[dict[str, Any]], candidates: int,
                 starts: set[int]):
        self.source = source
        self.tokens = tokens
        self.candidate_starts = starts
        self.parts: list[str] = ['<div class="nq-page">']
        self.text: list[str] = []
        self.length = 0
        self.words: list[tuple[int, int, int]] = []  # (token index, start, length)
        self.open: list[_Open] = []
        self.previous: int | None = None  # the last word's token, while spacing applies
        self.boxes = [(-1, -1)] * candidates
        self.nearest_end = _NEVER  # the smallest end token of an open box

    def _write(self, text: str) -> None:
        self.parts.append(html.escape(text, quote=False))
        self.text.append(text)
        self.length += len(text)

    def _tag(self, candidate: int) -> None:
        self.parts.append(f'<span class="{TAG_CLASS}">')
        self.boxes[candidate] = (self.length, self.length)
        self._write(f"#{candidate} ")
        self.parts.append("</span>")

    def _innermost_table_part(self) -> _Open | None:
        return next((e for e in reversed(self.open) if e.name in _TABLE_PARTS), None)

    def open_table(self) -> _Open | None:
        """The innermost open table, or None."""
        return next((e for e in reversed(self.open) if e.name == "table"), None)

    def ensure_cell(self) -> None:
        """Inside a table but outside a cell, opens a row and a cell (text is never left
        where a browser would move it out of the table)."""
        inner = self._innermost_table_part()
        if inner is None or inner.name in ("td", "th"):
            return
        if inner.name == "table":
            self.start("tr", -1)
        self.start("td", -1)

    def start(self, name: str, token: int, candidate: int | None = None,
              end_token: int = 0, css: str = "") -> None:
        """Opens the element of HTML token ``name`` (at ``token``; -1 for one the page
        needs but the tokens lack), as candidate ``candidate``'s box when given."""
        self._fit(name)
        css = css or _ELEMENTS.get(name, "nq-p")
        box = f" {BOX_CLASS}" if candidate is not None else ""
        data = f' data-candidate="{candidate}"' if candidate is not None else ""
        layout = None
        if name == "table":
            layout = (table_layout(self.tokens, token, self.source, self.candidate_starts)
                      if token >= 0 else Layout())
            self.parts.append(f'<div class="nq-table-box{box}"{data}>')
            if candidate is not None:
                self._tag(candidate)
            self.parts.append(f'<table class="{css}">')
            closing = "</table></div>"
        elif name == "tr":
            table = self.open_table()
            self.parts.append(f'<tr class="{css}{box}"{data}>')
            if candidate is not None:
                self.parts.append('<td class="nq-row-tag">')
                self._tag(candidate)
                self.parts.append("</td>")
            elif table is not None and table.layout is not None and table.layout.tag_rows:
                self.parts.append('<td class="nq-row-tag"></td>')
            closing = "</tr>"
        elif name in ("td", "th"):
            table = self.open_table()
            spans = table.layout.spans.get(token, (1, 1)) if table and table.layout else (1, 1)
            attrs = "".join(f' {key}="{value}"' for key, value
                            in zip(("colspan", "rowspan"), spans, strict=True) if value > 1)
            self.parts.append(f'<{name} class="{css}{box}"{data}{attrs}>')
            if candidate is not None:
                self._tag(candidate)
            closing = f"</{name}>"
        else:
            self.parts.append(f'<div class="{css}{box}"{data}>')
            if candidate is not None:
                self._tag(candidate)
            closing = "</div>"
        self.open.append(_Open(name, candidate, end_token, closing, layout))
        if candidate is not None:
            self.nearest_end = min(self.nearest_end, end_token)
        self.previous = None

    def _fit(self, name: str) -> None:
        """Closes or opens what a table needs around a new ``name`` element: a row ends the
        row open in its table, a cell the cell open in its row, and each gets the table (and
        row) it lacks; anything else inside a table goes inside a cell."""
        table = self.open_table()
        if name == "tr":
            if table is None:
                self.start("table", -1)
            else:
                self.close_to(self.open.index(table) + 1)
        elif name in ("td", "th"):
            if table is None:
                self.start("tr", -1)
                return
            inner = self._innermost_table_part()
            if inner is not None and inner.name in ("td", "th"):
                self.close(inner.name)
            inner = self._innermost_table_part()
            if inner is not None and inner.name == "table":
                self.start("tr", -1)
        else:
            self.ensure_cell()

    def end(self) -> None:
        """Closes the innermost element (a box ends after its last word)."""
        closed = self.open.pop()
        if closed.candidate is not None:
            self.boxes[closed.candidate] = (self.boxes[closed.candidate][0], self.length)
            self.nearest_end = min((e.end_token for e in self.open if e.candidate is not None),
                                   default=_NEVER)
        self.parts.append(closed.closing)
        self.previous = None

    def close(self, name: str) -> None:
        """Closes up to the innermost open ``name`` (nothing when none is open)."""
        if any(element.name == name for element in self.open):
            while self.open[-1].name != name:
                self.end()
            self.end()

    def close_ended(self, index: int) -> None:
        """Closes every box whose end token is reached, and what is open inside it."""
        while self.nearest_end <= index:
            self.end()

    def close_to(self, depth: int) -> None:
        while len(self.open) > depth:
            self.end()

    def word(self, index: int, text: str | None = None) -> None:
        """Writes token ``index`` as the page shows it, spaced from the word before."""
        self.ensure_cell()
        token = self.tokens[index]
        text = _word(page_words.shown(token, self.source) if text is None else text)
        if self.previous is not None:
            gap = page_words.gap(self.tokens[self.previous], token, self.source)
            if gap != page_words.NO_SPACE:
                self._write(" ")
            if gap == page_words.BREAK:
                self.parts.append(BREAK)
        self.words.append((index, self.length, len(text)))
        self._write(text)
        self.previous = index


def render_page(example: dict[str, Any]) -> Page:
    """The page of an NQ original-format example as annotators see it (module docstring)."""
    tokens = example["document_tokens"]
    candidates = example["long_answer_candidates"]
    starts: dict[int, list[int]] = {}
    for index, candidate in enumerate(candidates):
        starts.setdefault(candidate["start_token"], []).append(index)
    writer = _Writer(page_words.source(example), tokens, len(candidates), set(starts))
    cursor = 0
    for index in sorted((i for i, c in enumerate(candidates) if c.get("top_level")),
                        key=lambda i: (candidates[i]["start_token"], i)):
        first, last = candidates[index]["start_token"], candidates[index]["end_token"]
        if first < cursor:
            continue
        _headings(writer, cursor, first)
        _candidate_tokens(writer, candidates, starts, first, last)
        cursor = last
    writer.parts.append("</div>")
    words = writer.words
    return Page("".join(writer.parts), "".join(writer.text), tuple(w[0] for w in words),
                tuple(w[1] for w in words), tuple(w[2] for w in words), tuple(writer.boxes))


def _heading(writer: _Writer, name: str, words: list[int]) -> None:
    """One heading, without Wikipedia's trailing "[edit]" link."""
    shown = [page_words.shown(writer.tokens[i], writer.source) for i in words]
    keep = len(words) - page_words.edit_link(shown)
    writer.start(name, -1, css="nq-heading")
    for index, text in zip(words[:keep], shown[:keep], strict=True):
        writer.word(index, text)
    writer.end()


def _headings(writer: _Writer, start: int, end: int) -> None:
    """The section headings between two top-level candidates, each on its own line."""
    tokens = writer.tokens
    inside: str | None = None
    words: list[int] = []
    for index in range(start, end):
        closing, name = tag_name(tokens[index])
        if name in _HEADINGS and closing == (inside is not None):
            if inside is not None:
                _heading(writer, inside, words)
                inside, words = None, []
            else:
                inside = name
        elif inside is not None and not tokens[index].get("html_token") and tokens[index]["token"]:
            words.append(index)
    if inside is not None:
        _heading(writer, inside, words)


def _candidate_tokens(writer: _Writer, candidates: list[dict[str, Any]],
                      starts: dict[int, list[int]], first: int, last: int) -> None:
    """One top-level candidate's tokens, a box opening where each candidate starts; a
    dropped table cell (``page_tables``) is skipped with its tokens."""
    depth = len(writer.open)
    index = first
    while index < last:
        writer.close_ended(index)
        token = writer.tokens[index]
        closing, name = tag_name(token)
        table = writer.open_table()
        if (not closing and name in ("td", "th") and table is not None
                and table.layout is not None and index in table.layout.dropped):
            index = max(index + 1, table.layout.dropped[index])
            continue
        boxes = sorted(starts.get(index, ()), key=lambda c: -candidates[c]["end_token"])
        for candidate in boxes:
            writer.start(name, index, candidate, candidates[candidate]["end_token"])
        if closing:
            if name in _ELEMENTS:
                writer.close(name)
        elif name in _ELEMENTS:
            if not boxes:
                writer.start(name, index)
        elif not token.get("html_token") and token["token"]:
            writer.word(index)
        index += 1
    writer.close_to(depth)


def page_text(markup: str) -> str:
    """The text Label Studio counts offsets in: the page's text nodes, concatenated."""
    return html.unescape(_MARKUP.sub("", markup))


def words_in(starts: list[int], lengths: list[int], start: int, end: int
             ) -> tuple[int, int] | None:
    """The positions ``(first, last)`` (inclusive) of the rendered words that overlap the
    characters ``[start, end)``; None when no word does."""
    if start >= end or not starts:
        return None
    first = max(0, bisect_right(starts, start) - 1)
    if starts[first] + lengths[first] <= start:
        first += 1
    last = bisect_left(starts, end) - 1
    if first >= len(starts) or last < first:
        return None
    return first, last
