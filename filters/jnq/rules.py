"""The JNQ and JBoolQ question-candidate rules (Uematsu et al., "A Benchmark Suite of Japanese
Natural Questions", JNQ §3.1 and JBoolQ §4 footnote 4), and the filter a pipeline calls.

JNQ keeps a search query as a question candidate when it

(a) contains no space (a Japanese sentence has none; spaced queries are keyword lists);
(b) has 8 or more words, as segmented by a morphological analyzer (we use fugashi with
    unidic-lite);
(c) matches any of: pattern 1, the topic marker "は" followed by an interrogative word;
    pattern 2, the final character is "?"; pattern 3, it contains a word such as 意味
    (meaning), 方法 (method) or 理由 (reason).

JBoolQ keeps a query of more than six words that ends with "?" or with the particle "か".

The rules live by job: ``normalize`` (NFKC; rules (a) and (b) on the string), ``tokens``
(``JaToken``, the word count of (b)), ``patterns`` (rule (c) and JBoolQ's, with the decisions
the paper leaves open), ``prechecks`` (whether a pattern can still match, from the string).
This module tags (``JaAnalyzer``, ``ja_tokens`` and their token caches) and decides
(``QuestionFilter``, ``reference_decision``); it re-exports the names of the others, so
``filters.jnq.rules`` remains the one import.

Speed (issue 15 §2): ``QuestionFilter`` is the entry point a pipeline calls. It decides what the
string alone decides before tagging: too long and spaced queries (no tagging at all), queries
shorter than the word minimum (``too_short``) and queries in which no pattern can match
(``may_match_pattern``, from every spelling unidic-lite has for the words the patterns look
for) are tagged only for their word count, which the rejection reason depends on; so are
queries where only pattern 2 (or JBoolQ's "?") can match. A word count is the number of lines
MeCab prints less the symbols', found by their context ids in one regex pass over the output
(``JaAnalyzer.word_count``); the tokens of candidates come from MeCab's text output through a
cache (``JaAnalyzer``), not from fugashi nodes. Its decisions (word count, patterns, reason)
equal ``reference_decision``'s, the filter as it was.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

from filters.jnq.normalize import (
    _WHITESPACE,
    JBOOLQ_MIN_WORDS,
    JNQ_MIN_WORDS,
    MAX_QUERY_CHARS,
    cheap_rejection,
    has_space,
    normalize_ja,
    too_short,
)
from filters.jnq.patterns import (
    _CANDIDATE_LEMMAS,
    HOW_TO_SUFFIX,
    INTERROGATIVE_LEMMAS,
    INTERROGATIVE_POS,
    NON_QUESTION_IDIOMS,
    PATTERN_3_EXTENDED,
    PATTERN_3_WORDS,
    QUOTATIVE_INTERROGATIVES,
    SAYING_VERBS,
    ends_with_ka,
    interrogative_is_question,
    is_interrogative,
    is_topic_marker,
    jboolq_rule,
    matched_patterns,
    pattern_1,
    pattern_2,
    pattern_3,
    select_jboolq,
    select_jnq,
)
from filters.jnq.prechecks import (
    _KA_RE,
    HOW_TO_SURFACES,
    INTERROGATIVE_SURFACES,
    KA_SURFACES,
    PATTERN_3_EXTENDED_SURFACES,
    PATTERN_3_SURFACES,
    TOPIC_SURFACES,
    may_be_yes_no_form,
    may_match_pattern,
    may_match_pattern_1,
    may_match_pattern_3,
)
from filters.jnq.tokens import SYMBOL_POS, JaToken, is_symbol, word_count

__all__ = [
    "HOW_TO_SUFFIX",
    "HOW_TO_SURFACES",
    "INTERROGATIVE_LEMMAS",
    "INTERROGATIVE_POS",
    "INTERROGATIVE_SURFACES",
    "JBOOLQ_MIN_WORDS",
    "JNQ_MIN_WORDS",
    "KA_SURFACES",
    "MAX_QUERY_CHARS",
    "NON_QUESTION_IDIOMS",
    "PATTERN_3_EXTENDED",
    "PATTERN_3_EXTENDED_SURFACES",
    "PATTERN_3_SURFACES",
    "PATTERN_3_WORDS",
    "QUOTATIVE_INTERROGATIVES",
    "SAYING_VERBS",
    "SYMBOL_POS",
    "TOPIC_SURFACES",
    "Decision",
    "JaAnalyzer",
    "JaToken",
    "QuestionFilter",
    "cheap_rejection",
    "clear_token_cache",
    "ends_with_ka",
    "has_space",
    "interrogative_is_question",
    "is_interrogative",
    "is_symbol",
    "is_topic_marker",
    "ja_tokens",
    "jboolq_rule",
    "make_tagger",
    "matched_patterns",
    "may_be_yes_no_form",
    "may_match_pattern",
    "may_match_pattern_1",
    "may_match_pattern_3",
    "normalize_ja",
    "pattern_1",
    "pattern_2",
    "pattern_3",
    "reference_decision",
    "select_jboolq",
    "select_jnq",
    "symbol_ids",
    "too_short",
    "word_count",
]

# MeCab output formats. fugashi strips the output, so the end of sentence is a visible "E".
# _KEY_FORMAT: a known word as surface and context id (cheap: no feature decoding; the left id,
# equal to the right id for every unidic-lite entry: tested); an unknown word as surface, pos1,
# pos2. _TOKEN_FORMAT: surface, pos1, pos2, lemma (fields 0, 1, 7; MeCab prints "*" as ""; an
# unknown word has no field 7, so it gets its own format with an empty lemma).
_KEY_FORMAT = r'-O "" -F%m\\t%phl\\n -U%m\\t%f[0]\\t%f[1]\\tU\\n -EE\\n'
_TOKEN_FORMAT = r'-O "" -F%m\\t%f[0]\\t%f[1]\\t%f[7]\\n -U%m\\t%f[0]\\t%f[1]\\t\\n -EE\\n'


def symbol_ids(dicdir: str | os.PathLike[str]) -> frozenset[str] | None:
    """The context ids (as MeCab prints them) whose POS is a symbol (``SYMBOL_POS``, not words
    for JNQ §3.1 (b)), read from the dictionary's ``left-id.def`` (``id pos1,pos2,...``; every
    unidic-lite sys.dic entry has the pos1 of its ids: tested), plus the symbol POS names
    themselves (what ``_KEY_FORMAT`` prints for an unknown word; unk.dic's SYMBOL has the id of
    a noun, so its id does not tell its POS). None without the file."""
    path = Path(dicdir) / "left-id.def"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    ids = set(SYMBOL_POS)
    for line in lines:
        number, _, feature = line.partition(" ")
        if feature.partition(",")[0] in SYMBOL_POS:
            ids.add(number)
    return frozenset(ids)


def _symbol_field(ids: frozenset[str]) -> re.Pattern[str]:
    """A regex finding, once per symbol, the part of its ``_KEY_FORMAT`` line after the
    surface: "\\t" + context id + "\\n" (a known word) or "\\t" + pos1 + "\\t" (an unknown
    word; its pos2 is never a symbol POS). Surfaces have no tab or newline: the text has no
    whitespace."""
    numbers = "|".join(sorted(i for i in ids if i.isdigit()))
    names = "|".join(sorted(i for i in ids if not i.isdigit()))
    return re.compile(f"\\t(?:{numbers})\\n|\\t(?:{names})\\t")


class JaAnalyzer:
    """fugashi on unidic-lite, three ways: ``analyzer(text)`` is a plain ``fugashi.Tagger()``
    call (nodes; the reference ``ja_tokens`` reads them); ``tokens(text)`` builds the same
    ``JaToken``s from MeCab's text output, without node objects or feature decoding: each word
    is printed as its key (surface and context id), and a key seen before maps to
    its token; a sentence with a new key is parsed once more with surface, POS and lemma
    printed, which fills the cache.

    Several dictionary entries can share a key (9,264 of unidic-lite's keys: homographs with the
    same POS, such as あい: 間/相/藍). They have the same connection costs in every context, so
    MeCab always prints the same one of them (the lowest word cost, ties in lattice order): the
    cached token is the one it prints (tested on every shared question). It wraps MeCab models
    and is not picklable: create it in ``DoFn.setup()``."""

    def __init__(self):
        import fugashi

        self.tagger = fugashi.Tagger()
        self._keys = fugashi.Tagger(_KEY_FORMAT)
        self._tokens = fugashi.Tagger(_TOKEN_FORMAT)
        symbols = symbol_ids(os.path.dirname(self.tagger.dictionary_info[0]["filename"]))
        self._symbols = None if symbols is None else _symbol_field(symbols)

    def __call__(self, text: str):
        return self.tagger(text)

    def tokens(self, text: str) -> list[JaToken]:
        """``ja_tokens`` of ``text``, equal to the reference path's."""
        keys = self.keys(text)
        if keys is None:
            return _reference_tokens(self.tagger, text)
        return self._cached_tokens(text, keys)

    def _cached_tokens(self, text: str, keys: list[str]) -> list[JaToken]:
        try:
            return list(map(_KEY_CACHE.__getitem__, keys))
        except KeyError:  # the cache was emptied meanwhile (at its bound, by another thread)
            return _reference_tokens(self.tagger, text)

    def keys(self, text: str) -> list[str] | None:
        """The words of ``text`` as cache keys (each in ``_KEY_CACHE`` and ``_KEY_CATEGORY``),
        or None when MeCab's text output cannot carry them (empty text, NUL, whitespace)."""
        found = self.categories(text)
        return None if found is None else found[0]

    def categories(self, text: str, spaceless: bool = False
                   ) -> tuple[list[str], list[int]] | None:
        """``(keys, token categories)`` of ``text``, or None as for ``keys``; ``spaceless``:
        the caller has checked that ``text`` has no whitespace."""
        if not text or "\0" in text or (not spaceless and _WHITESPACE.search(text)):
            return None
        keys = self._keys.parse(text).split("\n")
        del keys[-1]
        try:
            return keys, list(map(_KEY_CATEGORY.__getitem__, keys))
        except KeyError:
            pass
        lines = self._tokens.parse(text).split("\n")
        del lines[-1]
        if len(lines) != len(keys):  # not expected: same sentence, same segmentation
            return None
        if len(_KEY_CACHE) >= _CACHE_LIMIT:
            _KEY_CACHE.clear()
            _KEY_CATEGORY.clear()
        categories = []
        for key, line in zip(keys, lines, strict=True):
            category = _KEY_CATEGORY.get(key)
            if category is None or key not in _KEY_CACHE:
                token = _KEY_CACHE[key] = _token_from_line(line)
                category = _KEY_CATEGORY[key] = _category(token)
            categories.append(category)
        return keys, categories

    def word_count(self, text: str, count_symbols: bool = False,
                   spaceless: bool = False) -> int:
        """``word_count(ja_tokens(text))``: the lines of ``_KEY_FORMAT`` output less the symbols'
        (``_symbol_field``: one parse, no per-token work, no cache), else from the cached
        categories."""
        symbols = self._symbols
        if (symbols is not None and text and "\0" not in text
                and (spaceless or not _WHITESPACE.search(text))):
            lines = self._keys.parse(text)  # one line per token, then the end of sentence "E"
            words = lines.count("\n")
            return words if count_symbols else words - len(symbols.findall(lines))
        found = self.categories(text, spaceless)
        if found is None:
            return word_count(_reference_tokens(self.tagger, text), count_symbols)
        return _words(found[1], count_symbols)


def make_tagger() -> JaAnalyzer:
    """A ``JaAnalyzer`` (fugashi on unidic-lite; callable like ``fugashi.Tagger()``). It wraps
    MeCab models and is not picklable: create it in ``DoFn.setup()``, never in ``__init__`` or
    at pipeline construction."""
    return JaAnalyzer()


_KEY_CACHE: dict[str, JaToken] = {}
_KEY_CATEGORY: dict[str, int] = {}

# What the rules need to know of a token, as one small int per cached key: the word count
# (symbols), pattern 1 (the topic marker; interrogative lemmas) and pattern 3 (its nouns; the
# suffix 方). The categories exclude each other (lemmas and POS differ), but an interrogative
# lemma is checked before the POS, as ``pattern_1`` does, so _SYMBOL_CANDIDATE keeps both.
# _KA is JBoolQ's particle か (``ends_with_ka``).
(_SYMBOL, _WORD, _TOPIC, _CANDIDATE, _P3, _P3_EXTENDED, _HOW_TO, _SYMBOL_CANDIDATE,
 _KA) = range(9)
_CANDIDATE_CATEGORIES = frozenset({_CANDIDATE, _SYMBOL_CANDIDATE})
_SYMBOL_CATEGORIES = frozenset({_SYMBOL, _SYMBOL_CANDIDATE})


def _category(token: JaToken) -> int:
    symbol = token.pos1 in SYMBOL_POS
    if token.lemma in _CANDIDATE_LEMMAS:
        return _SYMBOL_CANDIDATE if symbol else _CANDIDATE
    if symbol:
        return _SYMBOL
    if is_topic_marker(token):
        return _TOPIC
    if token.pos1 == "名詞" and token.lemma in PATTERN_3_WORDS:
        return _P3
    if token.pos1 == "名詞" and token.lemma in PATTERN_3_EXTENDED:
        return _P3_EXTENDED
    if token.pos1 == "接尾辞" and token.lemma == HOW_TO_SUFFIX:
        return _HOW_TO
    if token.lemma == "か" and token.pos1 == "助詞":
        return _KA
    return _WORD


def _pattern_1_after(tokens: list[JaToken], categories: list[int], topic: int) -> bool:
    """``pattern_1`` (JNQ §3.1) given the index of the first topic marker: an interrogative
    lemma after it (``_CANDIDATE``, ``_SYMBOL_CANDIDATE``) that asks."""
    for i in range(topic + 1, len(categories)):
        if categories[i] in _CANDIDATE_CATEGORIES and interrogative_is_question(tokens, i):
            return True
    return False


def _words(categories: list[int], count_symbols: bool) -> int:
    """``word_count`` from the token categories."""
    if count_symbols:
        return len(categories)
    return len(categories) - categories.count(_SYMBOL) - categories.count(_SYMBOL_CANDIDATE)


def _token_from_line(line: str) -> JaToken:
    surface, pos1, pos2, lemma = line.split("\t")
    if "-" in lemma:
        base, _, gloss = lemma.partition("-")
        if base and gloss.isascii():
            lemma = base
    return JaToken(surface, lemma or surface, pos1, pos2 or "*")


_TOKEN_CACHE: dict[str, JaToken] = {}
_UNKNOWN_CACHE: dict[tuple[str, str], JaToken] = {}
_CACHE_LIMIT = 200_000


def _lemma(word, fields: list[str]) -> str:
    lemma = fields[7]
    if '"' in fields[6] or '"' in lemma:
        lemma = word.feature.lemma or ""
    if "-" in lemma:
        base, _, gloss = lemma.partition("-")
        if base and gloss.isascii():
            lemma = base
    return lemma


def _new_token(word, raw: str) -> JaToken:
    surface = word.surface
    fields = raw.split(",", 9)
    if len(fields) < 9:
        key = (surface, raw)
        token = _UNKNOWN_CACHE.get(key)
        if token is None:
            if len(_UNKNOWN_CACHE) >= _CACHE_LIMIT:
                _UNKNOWN_CACHE.clear()
            pos2 = fields[1] if len(fields) > 1 else "*"
            token = _UNKNOWN_CACHE[key] = JaToken(surface, surface, fields[0], pos2)
        return token
    token = JaToken(surface, _lemma(word, fields) or surface, fields[0], fields[1])
    if fields[8] == surface:
        if len(_TOKEN_CACHE) >= _CACHE_LIMIT:
            _TOKEN_CACHE.clear()
        _TOKEN_CACHE[raw] = token
    return token


def clear_token_cache() -> None:
    """Empty the token caches of ``ja_tokens`` (they are bounded; this is for benchmarks)."""
    _TOKEN_CACHE.clear()
    _UNKNOWN_CACHE.clear()
    _KEY_CACHE.clear()
    _KEY_CATEGORY.clear()


def ja_tokens(tagger, text: str) -> list[JaToken]:
    """Tokens of ``text`` from a fugashi UniDic tagger (JNQ §3.1 "morphological analyzer"):
    ``JaAnalyzer.tokens`` for a ``JaAnalyzer``, else the reference path below.

    The lemma is UniDic's lemma without the origin gloss of loanwords (ペン-pen -> ペン) and
    falls back to the surface for unknown words (which have no lemma). Features are read from
    ``feature_raw`` (pos1, pos2, lemma = fields 0, 1, 7) rather than fugashi's feature tuples,
    and a known word's token is cached under its feature string, which includes its written
    form (field 8, orth, equal to the surface: checked before caching). Unknown words have
    only POS features and are cached per (surface, features).
    """
    if isinstance(tagger, JaAnalyzer):
        return tagger.tokens(text)
    return _reference_tokens(tagger, text)


def _reference_tokens(tagger, text: str) -> list[JaToken]:
    words = tagger(text)
    cache = _TOKEN_CACHE
    try:
        return [cache[word.feature_raw] for word in words]
    except KeyError:
        return [_TOKEN_CACHE.get(word.feature_raw) or _new_token(word, word.feature_raw)
                for word in words]


class Decision(NamedTuple):
    """One query's outcome: its word count (0 when rejected before tagging: too_long,
    contains_space), the matched JNQ patterns, and the rejection reason (None: accepted)."""

    words: int
    patterns: list[int]
    reason: str | None


def reference_decision(tagger, normalized: str, variant: str = "jnq",
                       count_symbols: bool = False, extended: bool = False) -> Decision:
    """The decision as the filter first made it: tag every query that passes the cheap checks,
    then apply the rules (JNQ §3.1, JBoolQ §4). Kept as the reference ``QuestionFilter`` is
    tested against."""
    reason = cheap_rejection(normalized)
    if reason:
        return Decision(0, [], reason)
    tokens = _reference_tokens(getattr(tagger, "tagger", tagger), normalized)
    words = word_count(tokens, count_symbols)
    if variant == "jboolq":
        return Decision(words, [], select_jboolq(normalized, tokens, count_symbols))
    patterns, reason = select_jnq(normalized, tokens, count_symbols, extended)
    return Decision(words, patterns, reason)


class QuestionFilter:
    """JNQ §3.1 / JBoolQ §4 question selection that pays for full tagging only for candidates.

    ``filter(normalized)`` returns the same ``Decision`` as ``reference_decision``, deciding on
    the string first: too long or spaced (no tagging); no pattern (or yes/no form) possible
    from the surface forms (``may_match_pattern``, ``may_be_yes_no_form``): the reason is
    "too_few_words" or "no_pattern"/"not_yes_no_form" by the word count alone (patterns 1 and
    3 are not run), as is the decision when only pattern 2 or JBoolQ's "?" can hold; otherwise
    the rules from the cached token categories, patterns 1 and 3 only where the string allows
    them, pattern 1 from the first topic marker on, JBoolQ's か from the last word's category.
    Create it in ``DoFn.setup()`` (it holds a ``JaAnalyzer``)."""

    def __init__(self, variant: str = "jnq", count_symbols: bool = False,
                 extended: bool = False, analyzer: JaAnalyzer | None = None):
        if variant not in ("jnq", "jboolq"):
            raise ValueError(f"unknown variant {variant!r}")
        self.variant = variant
        self.count_symbols = count_symbols
        self.extended = extended
        self.analyzer = analyzer or JaAnalyzer()
        self.min_words = JBOOLQ_MIN_WORDS if variant == "jboolq" else JNQ_MIN_WORDS

    def __call__(self, normalized: str) -> Decision:
        reason = cheap_rejection(normalized)
        if reason:
            return Decision(0, [], reason)
        if too_short(normalized, self.min_words):  # too_few_words; tagged for the count only
            words = self.analyzer.word_count(normalized, self.count_symbols, spaceless=True)
            return Decision(words, [], "too_few_words")
        if self.variant == "jboolq":
            return self._jboolq(normalized)
        p1 = may_match_pattern_1(normalized)
        p3 = may_match_pattern_3(normalized, self.extended)
        if not (p1 or p3):  # only pattern 2 can match: the word count decides
            words = self.analyzer.word_count(normalized, self.count_symbols, spaceless=True)
            if words < self.min_words:
                return Decision(words, [], "too_few_words")
            if pattern_2(normalized):
                return Decision(words, [2], None)
            return Decision(words, [], "no_pattern")
        # select_jnq after cheap_rejection, from the cached token categories; tokens and the
        # pattern 1 rule only for the interrogative lemmas after the first topic marker
        found = self.analyzer.categories(normalized, spaceless=True)
        if found is None:
            return reference_decision(self.analyzer, normalized, "jnq", self.count_symbols,
                                      self.extended)
        keys, categories = found
        words = _words(categories, self.count_symbols)
        if words < self.min_words:
            return Decision(words, [], "too_few_words")
        patterns = []
        tokens = None
        if p1 and _TOPIC in categories:  # the string has an interrogative spelling after it
            tokens = self.analyzer._cached_tokens(normalized, keys)
            if _pattern_1_after(tokens, categories, categories.index(_TOPIC)):
                patterns.append(1)
        if pattern_2(normalized):
            patterns.append(2)
        if p3:
            if _P3 in categories or (self.extended and _P3_EXTENDED in categories):
                patterns.append(3)
            elif self.extended and _HOW_TO in categories:
                tokens = tokens or self.analyzer._cached_tokens(normalized, keys)
                if pattern_3(tokens, extended=True):
                    patterns.append(3)
        return Decision(words, patterns, None if patterns else "no_pattern")

    def _jboolq(self, normalized: str) -> Decision:
        """JBoolQ §4: "?" needs only the word count, as does a query with no spelling of か; else
        the last word's category (``_KA``: the particle か)."""
        question_mark = pattern_2(normalized)  # JBoolQ §4 keeps "?" questions
        if question_mark or _KA_RE.search(normalized) is None:
            words = self.analyzer.word_count(normalized, self.count_symbols, spaceless=True)
            if words < self.min_words:
                return Decision(words, [], "too_few_words")
            return Decision(words, [], None if question_mark else "not_yes_no_form")
        found = self.analyzer.categories(normalized, spaceless=True)
        if found is None:
            return reference_decision(self.analyzer, normalized, "jboolq", self.count_symbols)
        categories = found[1]
        words = _words(categories, self.count_symbols)
        if words < self.min_words:
            return Decision(words, [], "too_few_words")
        for category in reversed(categories):  # ends_with_ka
            if category not in _SYMBOL_CATEGORIES:
                return Decision(words, [], None if category == _KA else "not_yes_no_form")
        return Decision(words, [], "not_yes_no_form")
