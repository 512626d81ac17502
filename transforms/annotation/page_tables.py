"""An NQ table's grid: each cell's ``colspan`` and ``rowspan``, and the empty columns to drop.

NQ's ``<Td>``/``<Th>`` tokens keep ``colspan`` only sometimes and ``rowspan`` never, so the
spans are read from the page's bytes (``start_byte``/``end_byte`` of the cell's token), falling
back to the token. Cells are then placed as a browser places them (a cell spanning rows takes
its column in the rows below), which tells which columns hold no word at all: a column of
image cells (Wikipedia's portraits, flags) under a header spanning it and the names' column.
Such a column is dropped only when that moves no other cell: every cell in it is empty and
one column wide (dropped with it) or spans further columns (one column narrower).
A cell with a candidate starting in it is never empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_TAG = re.compile(r"^<(/?)([A-Za-z][A-Za-z0-9]*)")
_SPAN = re.compile(r"\b(colspan|rowspan)\s*=\s*[\"']?\s*(\d+)", re.IGNORECASE)
_LIMITS = {"colspan": 1000, "rowspan": 65534}  # the HTML standard's caps
_CELLS = ("td", "th")


@dataclass
class _Cell:
    token: int
    colspan: int
    rowspan: int
    end: int = 0  # the token after the cell's last
    empty: bool = True
    column: int = 0


@dataclass
class Layout:
    """How a table is drawn: ``spans`` each kept cell's ``(colspan, rowspan)`` by its token;
    ``dropped`` each dropped cell's token -> the token after it; ``tag_rows`` whether a row
    of the table is a candidate (the table then has a first column for the rows' ``#n``)."""

    spans: dict[int, tuple[int, int]] = field(default_factory=dict)
    dropped: dict[int, int] = field(default_factory=dict)
    tag_rows: bool = False


def tag_name(token: dict[str, Any]) -> tuple[bool, str]:
    """``(closing, lower-case name)`` of an HTML token; ``(False, "")`` for a word."""
    match = _TAG.match(token["token"]) if token.get("html_token") else None
    return (bool(match.group(1)), match.group(2).lower()) if match else (False, "")


def _spans(token: dict[str, Any], page: str) -> tuple[int, int]:
    start, end = token.get("start_byte"), token.get("end_byte")
    text = token["token"]
    if type(start) is int and type(end) is int and 0 <= start <= end <= len(page):
        text = page[start:end]
    found = {"colspan": 1, "rowspan": 1}
    for name, value in _SPAN.findall(text):
        found[name.lower()] = max(1, min(int(value), _LIMITS[name.lower()]))
    return found["colspan"], found["rowspan"]


def _rows(tokens: list[dict[str, Any]], first: int, page: str, starts: set[int]
          ) -> tuple[list[list[_Cell]], bool]:
    """The rows of the table opening at token ``first`` (its own cells, not nested tables')
    and whether one of its rows starts a candidate."""
    rows: list[list[_Cell]] = []
    depth, cell, tag_rows = 0, None, False
    for index in range(first + 1, len(tokens)):
        closing, name = tag_name(tokens[index])
        if name == "table":
            if closing and depth == 0:
                break
            depth += -1 if closing else 1
        if depth:
            if cell is not None and (index in starts or (not tokens[index].get("html_token")
                                                         and tokens[index]["token"])):
                cell.empty = False
            continue
        if name == "tr" or (name in _CELLS and not closing):
            if cell is not None:
                cell.end = index
                cell = None
            if name == "tr" and not closing:
                rows.append([])
                tag_rows = tag_rows or index in starts
        if name in _CELLS:
            if closing:
                if cell is not None:
                    cell.end, cell = index + 1, None
                continue
            if not rows:
                rows.append([])
            cell = _Cell(index, *_spans(tokens[index], page), empty=index not in starts)
            rows[-1].append(cell)
        elif cell is not None and (index in starts or (not tokens[index].get("html_token")
                                                       and tokens[index]["token"])):
            cell.empty = False
    else:
        index = len(tokens)
    if cell is not None:
        cell.end = index
    return rows, tag_rows


def _place(rows: list[list[_Cell]]) -> dict[int, list[_Cell]]:
    """Each column's cells, placed as a browser places them; sets every cell's column."""
    taken: set[tuple[int, int]] = set()
    columns: dict[int, list[_Cell]] = {}
    for number, row in enumerate(rows):
        column = 0
        for cell in row:
            while (number, column) in taken:
                column += 1
            cell.column = column
            height = min(cell.rowspan, len(rows) - number)
            for offset in range(cell.colspan):
                columns.setdefault(column + offset, []).append(cell)
                taken.update((number + down, column + offset) for down in range(height))
            column += cell.colspan
    return columns


def table_layout(tokens: list[dict[str, Any]], first: int, page: str, starts: set[int]
                 ) -> Layout:
    """The layout of the table opening at token ``first`` (module docstring); ``starts`` are
    the tokens where candidates start."""
    rows, tag_rows = _rows(tokens, first, page, starts)
    columns = _place(rows)
    width = {id(cell): cell.colspan for row in rows for cell in row}
    dropped: set[int] = set()
    for column in sorted(columns):
        cells = columns[column]
        singles = [c for c in cells if width[id(c)] == 1]
        if singles and all(c.empty for c in singles):
            for cell in cells:
                width[id(cell)] -= 1
            dropped.update(id(c) for c in singles)
    layout = Layout(tag_rows=tag_rows)
    for row in rows:
        for cell in row:
            if id(cell) in dropped:
                layout.dropped[cell.token] = cell.end
            else:
                layout.spans[cell.token] = (width[id(cell)], cell.rowspan)
    return layout
