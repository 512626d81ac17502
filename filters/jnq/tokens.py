"""The words the JNQ and JBoolQ rules read, and their count (Uematsu et al., "A Benchmark Suite
of Japanese Natural Questions", JNQ §3.1 (b)).

A ``JaToken`` is one UniDic short unit (fugashi with unidic-lite; ``filters.jnq.rules`` tags).
Punctuation and symbols (補助記号, 記号, 空白) are not words by default, so a "?" cannot make a
query long enough (``word_count``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SYMBOL_POS = frozenset({"補助記号", "記号", "空白"})


@dataclass(frozen=True, slots=True)
class JaToken:
    """One UniDic short unit: surface, lemma (the surface for unknown words) and POS levels."""

    surface: str
    lemma: str
    pos1: str
    pos2: str


def is_symbol(token: JaToken) -> bool:
    """Punctuation, symbols and whitespace (UniDic 補助記号, 記号, 空白)."""
    return token.pos1 in SYMBOL_POS


def word_count(tokens: Sequence[JaToken], count_symbols: bool = False) -> int:
    """JNQ §3.1 (b) word count: UniDic short units without punctuation and symbols (a "?" or
    "。" is not a word, so it cannot lift a 7-word query to 8); ``count_symbols=True`` counts
    every token as the analyzer returns it."""
    if count_symbols:
        return len(tokens)
    count = 0
    for token in tokens:
        if token.pos1 not in SYMBOL_POS:
            count += 1
    return count
