"""printable: what a terminal would interpret is shown as an escape, everything else as is."""

from __future__ import annotations

import pytest

from filters.text.terminal import printable

OSC8 = "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07"


@pytest.mark.parametrize(("text", "shown"), [
    (OSC8, "\\x1b]8;;https://evil.example/\\x07click\\x1b]8;;\\x07"),
    ("\x1b[2J\x1b[31mred", "\\x1b[2J\\x1b[31mred"),
    ("a\x9b31mb\x7f", "a\\x9b31mb\\x7f"),              # C1 CSI and DEL
    ("1\u202e0.1", "1\\u202e0.1"),                     # right-to-left override
    ("zero\u200bwidth\u00adsoft\ufeff", "zero\\u200bwidth\\xadsoft\\ufeff"),
    ("line\nbreak\r\t\u2028", "line\\x0abreak\\x0d\\x09\\u2028"),
    ("lone \ud800 surrogate", "lone \\ud800 surrogate"),
    ("\U000e0001tag", "\\U000e0001tag"),
])
def test_controls_and_format_characters_are_escaped(text, shown):
    assert printable(text) == shown
    assert printable(text).isprintable()
    printable(text).encode("utf-8")  # no lone surrogate left to fail on output


@pytest.mark.parametrize("text", ["toy 1.0.0 (/tmp/r/toy/1.0.0)", "織田信長 à la Ωmega",
                                  "C:\\path\\x1b", "", "emoji 😀 ok"])
def test_printable_text_is_unchanged(text):
    assert printable(text) == text


def test_non_strings_are_shown_as_str():
    assert printable(5) == "5" and printable(None) == "None"
