"""Text for a terminal: control and format characters shown as escapes, never interpreted.

Strings read from a release (a manifest's names, file names, ``LATEST``) are not ours: an
ANSI or OSC escape sequence in one would recolour, clear or retitle the terminal, or plant a
hyperlink, when printed raw; a bidi override (U+202E) would reorder what is shown. Before
such text is printed, ``printable`` writes every C0 and C1 control character, DEL, format
character (Unicode category Cf: bidi controls, zero-width characters, soft hyphen), line or
paragraph separator and lone surrogate as a visible escape: ``\\x1b``, ``\\u202e``.
"""

from __future__ import annotations

import unicodedata

HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: object) -> str:
    """``str(text)`` with every control, format and separator character escaped visibly."""
    text = str(text)
    if text.isprintable():  # the common case: nothing to escape
        return text
    return "".join(_escape(c) if unicodedata.category(c) in HIDDEN_CATEGORIES else c
                   for c in text)
