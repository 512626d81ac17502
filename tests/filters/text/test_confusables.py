"""TR39 skeletons from Unicode's confusables.txt, and the invisible characters they drop."""

from __future__ import annotations

import unicodedata

from filters.text.confusables import (
    confusables_version,
    is_ignorable,
    skeleton,
    strip_ignorable,
)


def test_the_vendored_table_is_unicode_confusables():
    assert confusables_version() == "13.0.0"
    assert skeleton("m") == "rn" and skeleton("1") == "l" and skeleton("0") == "O"


def test_homoglyphs_share_a_skeleton():
    latin = "who wrote hamlet"
    assert skeleton("\u0430") == "a"  # CYRILLIC SMALL LETTER A
    assert skeleton("wh\u03bf wr\u03bfte hamlet") == skeleton(latin)  # GREEK SMALL OMICRON
    assert skeleton("who wr\u043ete h\u0430mlet") == skeleton(latin)  # Cyrillic o, a
    assert skeleton("\u0455ky") == skeleton("sky")  # CYRILLIC SMALL LETTER DZE
    assert skeleton("caf\u00e9") == skeleton("cafe\u0301")  # canonical equivalents


def test_format_and_other_invisible_characters_are_dropped():
    for char in "\u200b\u00ad\u2060\ufeff\u200d\u200e\u2066\ufe0f\u034f\U000e0041":
        assert is_ignorable(char), hex(ord(char))
        assert skeleton(f"ham{char}let") == skeleton("hamlet")
    assert strip_ignorable("ham\u200blet\u00ad") == "hamlet"
    assert not any(is_ignorable(c) for c in "a \u3042\u30a2\u6771\u0627")


def test_japanese_does_not_collapse():
    """A few kana fold onto look-alike kanji (カ/力), but kana stay apart from each other."""
    hiragana = [chr(c) for c in range(0x3041, 0x3097)]
    katakana = [chr(c) for c in range(0x30a1, 0x30fb)]
    assert len({skeleton(c) for c in hiragana}) == len(hiragana)
    assert len({skeleton(c) for c in katakana}) == len(katakana)
    questions = ["東京タワーの高さは何メートルですか", "スカイツリーの高さは何メートルですか",
                 "富士山の高さは何メートルですか", "日本の首都はどこですか"]
    assert len({skeleton(q) for q in questions}) == len(questions)
    assert skeleton("カ") == skeleton("力")


def test_skeletons_are_deterministic_and_nfd():
    text = "Ｔｏｋｙｏ ｃａｆé 𝐡𝐚𝐦𝐥𝐞𝐭"
    assert skeleton(text) == skeleton(text)
    assert unicodedata.is_normalized("NFD", skeleton(text))
