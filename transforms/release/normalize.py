"""Question normalization and shingles for the leakage checks.

``normalize_question`` makes two spellings of one question equal: Unicode NFKC (full-width
letters and digits, half-width kana), case folding, punctuation removed (a dash becomes a
space, so "u.s." is "us" and "what's" is "whats" but "x-ray" is "x ray"), whitespace
collapsed. Japanese stays a string of characters: it has no spaces to collapse.

``shingles`` are character 3-grams of the normalized text. Questions are short (NQ: ~9
words, ~50 characters), far shorter than the 13-gram windows of LLM decontamination tools,
and a word-level shingle set of a 9-word question changes by a third when one word is
inflected ("plays"/"played"). Character 3-grams keep such variants above a Jaccard of 0.8
("who plays the voice of homer simpson" / "who played ...": 0.82; "what is" / "whats":
0.81) while questions about other facts stay below it ("who wrote" / "who signed the
declaration of independence": 0.67; "when was the first" / "last iphone released": 0.75),
and they need no word segmentation for Japanese. A text shorter than 3 characters is one
shingle.
"""

from __future__ import annotations

import unicodedata

SHINGLE = 3


class _Punctuation(dict):
    """A ``str.translate`` table, filled on demand: punctuation removed, dashes to spaces."""

    def __missing__(self, code: int) -> int | str | None:
        category = unicodedata.category(chr(code))
        value: int | str | None = code
        if category == "Pd":
            value = " "
        elif category.startswith("P"):
            value = None
        self[code] = value
        return value


_PUNCTUATION = _Punctuation()


def normalize_question(text: str | None) -> str:
    """NFKC, case-folded, punctuation removed, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text or "").casefold()
    return " ".join(text.translate(_PUNCTUATION).split())


def shingles(normalized: str, size: int = SHINGLE) -> set[str]:
    """Character ``size``-grams of a normalized question (the text itself when shorter)."""
    if len(normalized) <= size:
        return {normalized} if normalized else set()
    return {normalized[i:i + size] for i in range(len(normalized) - size + 1)}


def jaccard(left: set[str], right: set[str]) -> float:
    """|left ∩ right| / |left ∪ right| (0 for two empty sets)."""
    union = len(left | right)
    return len(left & right) / union if union else 0.0
