"""Query normalization and the JNQ rules the string alone decides (Uematsu et al., "A Benchmark
Suite of Japanese Natural Questions", JNQ §3.1 (a) and (b), with NQ §3.1's length bound): NFKC,
``too_long``, ``contains_space``, and too few characters for the word minimum. No tagging.
"""

from __future__ import annotations

import re
import unicodedata

JNQ_MIN_WORDS = 8
JBOOLQ_MIN_WORDS = 7  # "more than six words"
# Longer normalized queries are rejected "too_long" before tagging: the bound of NQ's cheap
# checks (filters.nq.queries.MAX_QUERY_CHARS), which JNQ's selection mirrors (JNQ §3.1 builds
# on NQ §3.1); no question is that long, and tagging 100,000 characters is slow.
MAX_QUERY_CHARS = 400


def normalize_ja(text: str) -> str:
    """Unicode NFKC (half-width kana to full width, "？" to "?", full-width letters and digits
    to ASCII, U+3000 to U+0020), then leading/trailing whitespace stripped. Inner spaces are
    kept: the JNQ §3.1 space rule needs them."""
    text = text or ""
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return text.strip()


_WHITESPACE = re.compile(r"\s")


def has_space(normalized: str) -> bool:
    """JNQ §3.1 (a): True when any whitespace character (half or full width) is inside."""
    return _WHITESPACE.search(normalized) is not None


def cheap_rejection(normalized: str, max_chars: int = MAX_QUERY_CHARS) -> str | None:
    """Reasons decidable without the tagger (JNQ §3.1, with NQ §3.1's length bound):
    ``too_long`` (more than ``max_chars`` characters), ``contains_space`` (rule a)."""
    if len(normalized) > max_chars:
        return "too_long"
    if has_space(normalized):
        return "contains_space"
    return None


def too_short(normalized: str, min_words: int = JNQ_MIN_WORDS) -> bool:
    """JNQ §3.1 (b) on the string: fewer characters than ``min_words`` means fewer words, since
    every token, symbols included, is at least one character (spaces are rejected before)."""
    return len(normalized) < min_words
