"""Checks of a rendered page's markup shared by the page tests."""

from __future__ import annotations

from html.parser import HTMLParser

_PARENTS = {"tr": {"table"}, "td": {"tr"}, "th": {"tr"}}


class _Nesting(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:  # noqa: ANN001 - HTMLParser's
        parent = self.stack[-1] if self.stack else ""
        if tag in _PARENTS and parent not in _PARENTS[tag]:
            self.problems.append(f"<{tag}> inside <{parent}>")
        if parent in ("table", "tr") and tag not in ("tr", "td", "th"):
            self.problems.append(f"<{tag}> directly inside <{parent}>")
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else ''}>")
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] in ("table", "tr"):
            self.problems.append(f"text {data[:20]!r} directly inside <{self.stack[-1]}>")


def assert_cells_hold_table_text(markup: str) -> None:
    """Every table row sits in a table, every cell in a row and every word of a table in a
    cell, and tags close in order: a browser parses the markup without moving any text."""
    parser = _Nesting()
    parser.feed(markup)
    parser.close()
    assert not parser.problems, parser.problems[:5]
    assert not parser.stack, parser.stack
