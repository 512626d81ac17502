"""An NQ page as an annotator reads it: the long-answer candidates once, in place.

NQ §3.2 shows workers the Wikipedia page and asks for the first HTML bounding box (paragraph,
table, table row, list, list item) that answers. ``render_page`` lays out an NQ original-format
example as HTML for Label Studio's ``HyperText``:

* every top-level candidate once, in reading order, with the section headings before it;
* each candidate is one element (``div.nq-box``) that holds its nested candidates, so a table
  is shown once and its rows are boxes inside it; a tag with the candidate's index
  (``span.nq-tag``) opens each box;
* words are the document's text tokens, joined as the page joins them: a space only where the
  HTML between two tokens holds whitespace, so "(formerly known as Mount McKinley)" reads as
  on the page and not as PTB tokens;
* only ``div`` and ``span`` elements, laid out by CSS (``PAGE_STYLE``): a browser parses the
  markup into exactly these nodes, never moving text as it does for a stray ``<table>`` child.

Label Studio reports a region as code-point offsets into the concatenated text nodes of that
HTML (``globalOffsets``). ``page_text`` recomputes that text from the HTML; ``starts`` and
``tokens`` map every rendered word back to its document token, and ``boxes`` give each
candidate's character range, so a region maps to exact tokens and to the box around it.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any

BOX_CLASS = "nq-box"
TAG_CLASS = "nq-tag"
_TAG = re.compile(r"^<(/?)([A-Za-z][A-Za-z0-9]*)")
_MARKUP = re.compile(r"<[^>]*>")
_GAP_SPACE = re.compile(r"[ \t\n\r\f]|\xc2\xa0|&nbsp;|&#160;|&#xa0;", re.IGNORECASE)
_BREAKING_TAG = re.compile(r"<(br|div|p|li|tr|td|th|table|h[1-6])\b", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s")
# Characters a browser would not keep as they are in a text node.
_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
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
.nq-page .nq-table { display: table; border-collapse: collapse; margin: 0 0 0.45em; }
.nq-page .nq-caption { display: table-caption; font-style: italic; }
.nq-page .nq-tr { display: table-row; }
.nq-page .nq-td, .nq-page .nq-th, .nq-page .nq-row-tag { display: table-cell;
  border: 1px solid #ccc; padding: 0 0.3em; vertical-align: top; }
.nq-page .nq-th { font-weight: 600; background: #f4f4f4; }
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


def _tag(token: dict[str, Any]) -> tuple[bool, str]:
    match = _TAG.match(token["token"]) if token.get("html_token") else None
    return (bool(match.group(1)), match.group(2).lower()) if match else (False, "")


def _word(text: str) -> str:
    """A token as one word a browser keeps verbatim: inner whitespace as no-break spaces."""
    return _UNSAFE.sub("\ufffd", _WHITESPACE.sub("\u00a0", text))


def _spaced(gap: str) -> bool:
    """Whether the page's HTML between two words shows a space: whitespace outside tags, a
    no-break space, or a tag that breaks the line (bytes as latin-1 characters)."""
    return bool(_GAP_SPACE.search(_MARKUP.sub("", gap)) or _BREAKING_TAG.search(gap))


_NEVER = 1 << 62


@dataclass
class _Open:
    name: str
    candidate: int | None
    end_token: int


class _Writer:
    """Builds the HTML and its text together: open elements, word spacing, box ranges."""

    def __init__(self, source: str, tokens: list[dict[str, Any]], candidates: int):
        self.source = source
        self.tokens = tokens
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

    def start(self, name: str, css: str, candidate: int | None = None,
              end_token: int = 0) -> None:
        if candidate is None:
            self.parts.append(f'<div class="{css}">')
        else:
            tag = f"{TAG_CLASS} nq-row-tag" if css == "nq-tr" else TAG_CLASS
            self.parts.append(f'<div class="{css} {BOX_CLASS}" data-candidate="{candidate}">'
                              f'<span class="{tag}">')
            self.boxes[candidate] = (self.length, self.length)
            self._write(f"#{candidate} ")
            self.parts.append("</span>")
        self.open.append(_Open(name, candidate, end_token))
        if candidate is not None:
            self.nearest_end = min(self.nearest_end, end_token)
        self.previous = None

    def end(self) -> None:
        """Closes the innermost element (a box ends after its last word)."""
        closed = self.open.pop()
        if closed.candidate is not None:
            self.boxes[closed.candidate] = (self.boxes[closed.candidate][0], self.length)
            self.nearest_end = min((e.end_token for e in self.open if e.candidate is not None),
                                   default=_NEVER)
        self.parts.append("</div>")
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

    def word(self, index: int) -> None:
        text = _word(self.tokens[index]["token"])
        if self.previous is not None and self._gap_spaced(index):
            self._write(" ")
        self.words.append((index, self.length, len(text)))
        self._write(text)
        self.previous = index

    def _gap_spaced(self, index: int) -> bool:
        end = self.tokens[self.previous].get("end_byte")
        start = self.tokens[index].get("start_byte")
        if not (type(end) is int and type(start) is int and 0 <= end <= start
                and start <= len(self.source)):
            return True
        return _spaced(self.source[end:start])


def _source(example: dict[str, Any]) -> str:
    """The page's HTML indexed by byte (UTF-8 bytes as latin-1 characters)."""
    document = example.get("document_html")
    return document.encode("utf-8").decode("latin-1") if isinstance(document, str) else ""


def render_page(example: dict[str, Any]) -> Page:
    """The page of an NQ original-format example as annotators see it (module docstring)."""
    tokens = example["document_tokens"]
    candidates = example["long_answer_candidates"]
    writer = _Writer(_source(example), tokens, len(candidates))
    starts: dict[int, list[int]] = {}
    for index, candidate in enumerate(candidates):
        starts.setdefault(candidate["start_token"], []).append(index)
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


def _headings(writer: _Writer, start: int, end: int) -> None:
    """The section headings between two top-level candidates, each on its own line."""
    tokens = writer.tokens
    inside = False
    for index in range(start, end):
        closing, name = _tag(tokens[index])
        if name in _HEADINGS and closing == inside:
            if inside:
                writer.end()
            else:
                writer.start(name, "nq-heading")
            inside = not inside
        elif inside and not tokens[index].get("html_token") and tokens[index]["token"]:
            writer.word(index)
    if inside:
        writer.end()


def _candidate_tokens(writer: _Writer, candidates: list[dict[str, Any]],
                      starts: dict[int, list[int]], first: int, last: int) -> None:
    """One top-level candidate's tokens, a box opening where each candidate starts."""
    depth = len(writer.open)
    for index in range(first, last):
        writer.close_ended(index)
        token = writer.tokens[index]
        closing, name = _tag(token)
        boxes = sorted(starts.get(index, ()), key=lambda c: -candidates[c]["end_token"])
        for candidate in boxes:
            writer.start(name, _ELEMENTS.get(name, "nq-p"), candidate,
                         candidates[candidate]["end_token"])
        if closing:
            if name in _ELEMENTS:
                writer.close(name)
        elif name in _ELEMENTS:
            if not boxes:
                writer.start(name, _ELEMENTS[name])
        elif not token.get("html_token") and token["token"]:
            writer.word(index)
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
