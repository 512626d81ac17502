"""Markdown table cells for the generated reference pages (``reference``, ``catalogue``)."""

from __future__ import annotations

import html


def cell(text: object) -> str:
    """Text for a Markdown table cell: one line, ``|`` escaped, and ``<``, ``>`` and ``&``
    outside code spans written as entities (Markdown would take ``<output>`` for HTML)."""
    parts = " ".join(str(text).split()).replace("|", "\\|").split("`")
    return "`".join(part if i % 2 else html.escape(part, quote=False)
                    for i, part in enumerate(parts))
