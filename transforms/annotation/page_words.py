"""The page's own words for NQ document tokens: what the page shows, not the PTB tokens.

NQ's tokens are PTB tokens: a ``"`` on the page is the token ``\\`\\``` or ``''``, an en dash
``--``, and a heading ends with the tokens ``( edit )`` of Wikipedia's "[edit]" link. Each text
token keeps the bytes of the page it came from (``start_byte``, ``end_byte``), so:

* ``shown`` is a token as the page shows it: its bytes with markup dropped and entities
  decoded (``&quot;`` -> ``"``), the token itself when its bytes are missing or show nothing;
* ``gap`` says what the page's HTML between two words shows: nothing (``NO_SPACE``: "(formerly"),
  a space (``SPACE``), or a line break (``BREAK``: a ``<br>`` or block tag, as between the names
  of an infobox's "Starring" cell);
* ``edit_link`` finds the trailing "[edit]" words of a heading.

Offsets stay exact: callers record where each shown word starts and how long it is.
"""

from __future__ import annotations

import html
import re
from typing import Any

NO_SPACE, SPACE, BREAK = 0, 1, 2
EDIT_LINK = (("[", "edit", "]"), ("(", "edit", ")"))
_MARKUP = re.compile(r"<[^>]*>")
_GAP_SPACE = re.compile(r"[ \t\n\r\f]|\xc2\xa0|&nbsp;|&#160;|&#xa0;", re.IGNORECASE)
_LINE_TAG = re.compile(r"<(br|div|p|li|dd|dt|ul|ol|dl|tr|table|h[1-6])\b", re.IGNORECASE)
_CELL_TAG = re.compile(r"<(td|th)\b", re.IGNORECASE)


def source(example: dict[str, Any]) -> str:
    """The page's HTML indexed by byte (UTF-8 bytes as latin-1 characters)."""
    document = example.get("document_html")
    return document.encode("utf-8").decode("latin-1") if isinstance(document, str) else ""


def _span(token: dict[str, Any], page: str) -> tuple[int, int] | None:
    start, end = token.get("start_byte"), token.get("end_byte")
    if type(start) is int and type(end) is int and 0 <= start <= end <= len(page):
        return start, end
    return None


def shown(token: dict[str, Any], page: str) -> str:
    """A text token as the page shows it (module docstring); the token when its bytes show
    nothing."""
    span = _span(token, page)
    if span is None:
        return token["token"]
    raw = page[span[0]:span[1]].encode("latin-1").decode("utf-8", "replace")
    text = html.unescape(_MARKUP.sub("", raw))
    return text if text.strip() else token["token"]


def gap(previous: dict[str, Any], following: dict[str, Any], page: str) -> int:
    """What the page's HTML between two text tokens shows: ``NO_SPACE``, ``SPACE`` or
    ``BREAK``; ``SPACE`` when the bytes are unknown (PTB spacing)."""
    end, start = _span(previous, page), _span(following, page)
    if end is None or start is None or end[1] > start[0]:
        return SPACE
    between = page[end[1]:start[0]]
    if _LINE_TAG.search(between):
        return BREAK
    if _GAP_SPACE.search(_MARKUP.sub("", between)) or _CELL_TAG.search(between):
        return SPACE
    return NO_SPACE


def edit_link(words: list[str]) -> int:
    """How many of a heading's last words are Wikipedia's "[edit]" link (3 or 0)."""
    return 3 if len(words) > 3 and tuple(words[-3:]) in EDIT_LINK else 0
