"""Question normalization and shingles for the leakage checks.

``normalize_question`` makes two spellings of one question equal: invisible characters
removed (format characters such as U+200B ZERO WIDTH SPACE and U+00AD SOFT HYPHEN, and the
other default-ignorable code points), Unicode NFKC (full-width letters and digits,
half-width kana, mathematical alphanumerics), case folding, punctuation removed (a dash
becomes a space, so "u.s." is "us" and "what's" is "whats" but "x-ray" is "x ray"),
whitespace collapsed. Japanese stays a string of characters: it has no spaces to collapse.
It is readable, and what reports show.

``question_key`` is what the leakage checks compare: the normalized question folded to its
Unicode TR39 skeleton (``filters.text.confusables``), case-folded again, recomposed (NFC)
and stripped of punctuation again, so that a question written with Cyrillic "а" or Greek
"ο" for Latin "a" and "o" has the key of the Latin one. It is a key, not text to show
("homer" becomes "horner"); both sides of every comparison, and the shingles of the
near-duplicate check, use it.

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

from filters.text.confusables import confusables_version, skeleton, strip_ignorable

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


def normalization() -> str:
    """What ``question_key`` does, in words (for the leakage report's ``method``)."""
    return ("invisible (Cf and default-ignorable) characters removed, NFKC, case-folded, "
            "punctuation removed, whitespace collapsed; compared as Unicode TR39 skeletons "
            f"(confusables.txt {confusables_version()})")


def _collapse(text: str) -> str:
    return " ".join(text.translate(_PUNCTUATION).split())


def normalize_question(text: str | None) -> str:
    """Invisible characters removed, NFKC, case-folded, punctuation removed, whitespace
    collapsed."""
    text = unicodedata.normalize("NFKC", strip_ignorable(text or "")).casefold()
    return _collapse(text)


def question_key(text: str | None) -> str:
    """The key two look-alike questions share: the TR39 skeleton of the normalized
    question, case-folded, NFC, punctuation removed, whitespace collapsed."""
    folded = skeleton(normalize_question(text)).casefold()
    return _collapse(unicodedata.normalize("NFC", folded))


def shingles(normalized: str, size: int = SHINGLE) -> set[str]:
    """Character ``size``-grams of a normalized question (the text itself when shorter)."""
    if len(normalized) <= size:
        return {normalized} if normalized else set()
    return {normalized[i:i + size] for i in range(len(normalized) - size + 1)}


def jaccard(left: set[str], right: set[str]) -> float:
    """|left ∩ right| / |left ∪ right| (0 for two empty sets)."""
    union = len(left | right)
    return len(left & right) / union if union else 0.0
