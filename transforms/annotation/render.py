"""NQ long-answer candidates as text a worker can read, with a map back to document tokens.

NQ §3.2 shows workers the page and asks for the earliest bounding box (paragraph, table, table
row, list, list item) that answers the question. An annotation tool shows each candidate as
plain text instead: text tokens joined by single spaces, table rows on their own lines with
cells separated by `` | `` (from the ``<Tr>``, ``<Td>`` and ``<Th>`` HTML tokens) and list
items or paragraphs inside a cell by `` · ``, list items on their own lines prefixed ``• ``,
other blocks (paragraphs, headings, lists) on new lines.
With ``own_text`` the words are the page's own text instead (``page_words``: ``"`` not PTB's
quotes, no space where the page has none, a line break, or `` · `` in a cell, where it breaks
the line), as the release browser shows them.
``starts`` gives where each rendered token begins in the text, so a span a worker marks in the
text maps back to a document-token span (``tokens_in_chars``).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection
from typing import Any

from transforms.annotation import page_words

BULLET = "• "
CELL_SEPARATOR = " | "
ITEM_SEPARATOR = " · "
_TAG = re.compile(r"^<(/?)([A-Za-z][A-Za-z0-9]*)")
_ITEMS = {"li", "dd", "dt"}
_LISTS = {"ul", "ol", "dl"}
_BLOCKS = {"p", "table", "caption", "div", "br", "hr", "blockquote", "pre",
           "h1", "h2", "h3", "h4", "h5", "h6"} | _LISTS
_WHITESPACE = re.compile(r"\s")


class _Writer:
    """Lays out text tokens: spaces between words, line breaks, bullets and cell bars."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.line_has_text = False
        self.break_pending = False
        self.prefix = ""
        self.separator = ""

    def new_line(self, prefix: str = "") -> None:
        if self.line_has_text:
            self.break_pending = True
            self.prefix = prefix
        elif prefix:
            self.prefix = prefix
        self.line_has_text = False
        self.separator = ""

    def new_cell(self) -> None:
        """A table cell: `` | `` before its first word unless it starts the row."""
        self.separator = CELL_SEPARATOR if self.line_has_text else ""

    def new_item(self) -> None:
        """A list item or paragraph inside a table cell: `` · `` unless it starts the cell."""
        if self.line_has_text and not self.separator:
            self.separator = ITEM_SEPARATOR

    def word(self, token: str, joined: bool = False) -> int:
        """Writes a word; ``joined`` words follow the previous one without a space."""
        if self.break_pending:
            separator = "\n" + self.prefix
        elif not self.line_has_text:
            separator = self.prefix
        elif self.separator:
            separator = self.separator
        else:
            separator = "" if joined else " "
        start = self.length + len(separator)
        self.parts.extend((separator, token))
        self.length = start + len(token)
        self.line_has_text = True
        self.break_pending = False
        self.prefix = self.separator = ""
        return start


def _tag(token: str) -> tuple[bool, str]:
    match = _TAG.match(token)
    return (bool(match.group(1)), match.group(2).lower()) if match else (False, "")


def _render(tokens: list[dict[str, Any]], start: int, end: int, page: str | None = None
            ) -> tuple[str, list, list, list]:
    writer = _Writer()
    previous: dict[str, Any] | None = None
    lengths: list[int] = []
    indices: list[int] = []
    starts: list[int] = []
    list_depth = 0
    row_depth = 0
    for index in range(start, end):
        token = tokens[index]
        text = token["token"]
        if token.get("html_token"):
            closing, name = _tag(text)
            if name == "tr":
                row_depth += -1 if closing else 1
                writer.new_line()
            elif name in ("td", "th"):
                if not closing:
                    writer.new_cell()
            elif row_depth > 0:
                if not closing and (name in _ITEMS or name in _BLOCKS):
                    writer.new_item()
            elif name in _LISTS:
                list_depth = max(0, list_depth + (-1 if closing else 1))
                writer.new_line()
            elif name in _ITEMS and not closing:
                writer.new_line("  " * max(0, list_depth - 1) + BULLET)
            elif name in _BLOCKS or name in _ITEMS:
                writer.new_line()
            previous = None
            continue
        if not text:
            continue
        joined = False
        if page is not None:
            text = page_words.shown(token, page)
            gap = page_words.gap(previous, token, page) if previous else page_words.SPACE
            joined = gap == page_words.NO_SPACE
            if gap == page_words.BREAK and row_depth > 0:
                writer.new_item()
            elif gap == page_words.BREAK:
                writer.new_line()
        text = _WHITESPACE.sub("\u00a0", text)
        indices.append(index)
        starts.append(writer.word(text, joined))
        lengths.append(len(text))
        previous = token
    return "".join(writer.parts), indices, starts, lengths


def _kind(tokens: list[dict[str, Any]], candidate: dict[str, Any]) -> str:
    first = tokens[candidate["start_token"]] if candidate["start_token"] < len(tokens) else {}
    match = _TAG.match(first.get("token", "")) if first.get("html_token") else None
    return match.group(2) if match else "Text"


def _parents(candidates: list[dict[str, Any]]) -> list[int | None]:
    """The innermost other candidate containing each candidate, or None."""
    order = sorted(range(len(candidates)),
                   key=lambda i: (candidates[i]["start_token"], -candidates[i]["end_token"], i))
    parents: list[int | None] = [None] * len(candidates)
    stack: list[int] = []
    for index in order:
        start, end = candidates[index]["start_token"], candidates[index]["end_token"]
        while stack and not (candidates[stack[-1]]["start_token"] <= start
                             and end <= candidates[stack[-1]]["end_token"]):
            stack.pop()
        parents[index] = stack[-1] if stack else None
        stack.append(index)
    return parents


def render_candidates(example: dict[str, Any], only: Collection[int] | None = None,
                      own_text: bool = False) -> list[dict[str, Any]]:
    """One readable entry per long-answer candidate of an NQ original-format example.

    Each entry is ``{"index", "label", "text", "tokens", "starts"}``: ``label`` names the
    candidate, its HTML type and where it sits ("#3 Table (top level)", "#4 Tr in #3");
    ``tokens`` are the document-token indices of the text tokens rendered and ``starts`` their
    character offsets in ``text`` (``lengths`` their lengths). With ``only``, just the
    candidates of those indices are rendered, numbered and labelled as in the whole list.
    With ``own_text``, words are the page's own text (``page_words``: its quotes and dashes,
    spaced and broken as the page's HTML does) instead of PTB tokens joined by spaces."""
    tokens = example["document_tokens"]
    candidates = example["long_answer_candidates"]
    parents = _parents(candidates)
    page = page_words.source(example) if own_text else None
    rendered = []
    for index, candidate in enumerate(candidates):
        if only is not None and index not in only:
            continue
        text, indices, starts, lengths = _render(tokens, candidate["start_token"],
                                                 candidate["end_token"], page)
        kind = _kind(tokens, candidate)
        if candidate.get("top_level"):
            where = " (top level)"
        elif parents[index] is not None:
            where = f" in #{parents[index]}"
        else:
            where = ""
        rendered.append({"index": index, "label": f"#{index} {kind}{where}", "text": text,
                         "tokens": indices, "starts": starts, "lengths": lengths})
    return rendered


def _token_end(text: str, starts: list[int], position: int) -> int:
    """Where the rendered token at ``position`` ends: at the next space or line break."""
    limit = starts[position + 1] if position + 1 < len(starts) else len(text)
    begin = starts[position]
    for offset in range(begin, limit):
        if text[offset] in " \n":
            return offset
    return limit


def tokens_in_chars(candidate: dict[str, Any], start: int, end: int) -> tuple[int, int] | None:
    """The document-token span ``(start_token, end_token)`` (end exclusive) of the rendered
    tokens that overlap the characters ``[start, end)`` of ``candidate["text"]``; None when the
    characters cover no token."""
    text, starts, indices = candidate["text"], candidate["starts"], candidate["tokens"]
    if start >= end or not starts:
        return None
    lengths = candidate.get("lengths")

    def token_end(position: int) -> int:
        if lengths:
            return starts[position] + lengths[position]
        return _token_end(text, starts, position)

    first = max(0, bisect_left(starts, start) - 1)
    while first < len(starts) and token_end(first) <= start:
        first += 1
    last = bisect_left(starts, end) - 1
    if first >= len(starts) or last < first:
        return None
    return indices[first], indices[last] + 1
