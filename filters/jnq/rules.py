"""The JNQ and JBoolQ question-candidate rules (Uematsu et al., "A Benchmark Suite of Japanese
Natural Questions", JNQ §3.1 and JBoolQ §4 footnote 4).

JNQ keeps a search query as a question candidate when it

(a) contains no space (a Japanese sentence has none; spaced queries are keyword lists);
(b) has 8 or more words, as segmented by a morphological analyzer (we use fugashi with
    unidic-lite);
(c) matches any of: pattern 1, the topic marker "は" followed by an interrogative word;
    pattern 2, the final character is "?"; pattern 3, it contains a word such as 意味
    (meaning), 方法 (method) or 理由 (reason).

JBoolQ keeps a query of more than six words that ends with "?" or with the particle "か".

Everything here is a pure function of the normalized text and its ``JaToken`` list, so each rule
is testable without a Beam pipeline. Decisions the paper leaves open, and ours:

* Words are UniDic short units. Punctuation and symbols (補助記号, 記号, 空白) are not words
  by default, so a "?" cannot make a query long enough (``word_count``).
* Pattern 1 is matched on UniDic lemmas, so kana and kanji spellings (なぜ/何故, どこ/何処)
  are the same word, and it skips interrogatives used as indefinites or universals (何か...,
  何も, 誰でも, いつの間にか, なぜなら, どうやら; see ``interrogative_is_question``). Any は
  that is the binding particle (係助詞) counts as the topic marker, also in では/とは/には.
* Pattern 3 matches noun lemmas; ``PATTERN_3_EXTENDED`` is an optional, wider word list.
* JBoolQ's か must be a particle (助詞) and the last word: すいか (a noun) does not end in か.
  The rule is the paper's form filter; it also accepts wh-questions ending in "?" or か.

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
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

JNQ_MIN_WORDS = 8
JBOOLQ_MIN_WORDS = 7  # "more than six words"
# Longer normalized queries are rejected "too_long" before tagging: the bound of NQ's cheap
# checks (filters.nq.queries.MAX_QUERY_CHARS), which JNQ's selection mirrors (JNQ §3.1 builds
# on NQ §3.1); no question is that long, and tagging 100,000 characters is slow.
MAX_QUERY_CHARS = 400

SYMBOL_POS = frozenset({"補助記号", "記号", "空白"})

# UniDic lemmas of interrogative words (checked with unidic-lite: the lemma is the kanji
# headword whatever the spelling). 何: 何/なに/なん (代名詞), the 何 of 何メートル/何人/何時
# (名詞-数詞 + counter); 何処: どこ; 何時: いつ, and 何時 when read as one word;
# 何故: なぜ/なにゆえ; 何の: どの; 何れ: どれ/いずれ; 何方: どちら/
# どっち/どなた; 幾ら: いくら; 幾: いくつ/幾つ/幾度 (幾 + つ); 如何: いかが; 如何に: いかに;
# 如何なる/如何な: いかなる/いかな; 何ぼ: なんぼ; 何奴: どいつ; 何程: なにほど; 幾許: いくばく.
# どう and どんな are their own lemmas (どうして = どう + 為る + て, どういう = どう + 言う);
# どれ just before "?" or at the end ("...はどれ?") is tagged as the interjection どれ.
# Lexicalized 何 compounds (何県, 何色, 何語, 何者, 何十, 何時頃 ...) are separate UniDic lemmas;
# 何分 is also なにぶん ("anyway"), which rarely follows a topic.
INTERROGATIVE_LEMMAS = frozenset({
    "何", "誰", "何処", "何時", "何故", "どう", "どんな", "何の", "何れ", "どれ", "何方",
    "幾ら", "幾", "如何", "如何に", "如何なる", "如何な", "何ぼ", "何奴", "何程", "幾許",
    "何者", "何事", "何物", "何人", "何県", "何色", "何語", "何曜", "何線", "何屋", "何党",
    "何十", "何百", "何千", "幾十", "何時頃", "何分",
})

# Lemmas that are interrogative only in some parts of speech: いずれ the adverb ("eventually",
# 何れ 副詞) and 如何 the noun (いかん, "depending on the ...") are not questions.
INTERROGATIVE_POS = {
    "何れ": frozenset({"代名詞"}),
    "どれ": frozenset({"感動詞"}),
    "如何": frozenset({"副詞", "形状詞"}),
}

# UniDic tags なんて/なんと (= 何と, "what") as one adverbial particle: "これなんて読む",
# "別名なんと呼ばれる". They ask only before a verb of saying or naming; otherwise なんて is
# "such a thing as" (勉強なんて嫌い) and なんと "what a ...!" (なんと美しい).
QUOTATIVE_INTERROGATIVES = frozenset({"なんて", "なんと"})
SAYING_VERBS = frozenset({"言う", "呼ぶ", "読む", "書く", "称する", "訳す", "名付ける"})
_CANDIDATE_LEMMAS = INTERROGATIVE_LEMMAS | QUOTATIVE_INTERROGATIVES

# Particles that make an interrogative universal or negative ("every"/"no"): 何も, 誰しも,
# 何でも (the 副助詞 でも), 何やら ("something"), どうやら ("apparently").
_UNIVERSAL_PARTICLES = frozenset({"も", "しも", "でも", "やら"})

_NOT_LINKING = _UNIVERSAL_PARTICLES | {"か"}

_NEGATIVES = frozenset({"ない", "無い", "ぬ"})

# も after と that means "also" in naming ("別名何とも呼ばれる", "also called what"), unlike
# 何とも言えない ("cannot say at all").
_NAMING_VERBS = frozenset({"呼ぶ", "称する"})

# UniDic spells 何 + に as one token (surface 何に/なんに, lemma 何): no idiom starts there.
_FUSED_NANI = frozenset({"何に", "なんに"})

# Fixed expressions that begin with an interrogative but ask nothing. Each item matches the
# token's lemma or surface, from the interrogative on.
NON_QUESTION_IDIOMS: tuple[tuple[str, ...], ...] = (
    ("何故", "なら"),      # なぜなら(ば) "because"
    ("何", "より"),        # 何より "above all"
    ("何", "気"),          # 何気ない/何気なく "casual(ly)"
    ("何", "と", "無い"),  # 何となく "somehow"
    ("何", "ら"),          # 何ら "(not) at all", 何らか "some"
    ("何", "だ", "彼"),    # なんだかんだ "one thing or another"
    ("何時", "の", "間"),  # いつの間にか "before one knew"
    ("どう", "仕様"),      # どうしようもない "hopeless"
)

_IDIOM_TAILS: dict[str, list[tuple[str, ...]]] = {}
for _idiom in NON_QUESTION_IDIOMS:
    _IDIOM_TAILS.setdefault(_idiom[0], []).append(_idiom[1:])
_IDIOM_SECOND = frozenset(idiom[1] for idiom in NON_QUESTION_IDIOMS)

PATTERN_3_WORDS = frozenset({"意味", "方法", "理由"})

# Optional wider pattern 3 (``extended=True``): nouns that, like 意味/方法/理由, name the
# property a query asks about ("Xの違い", "Xの原因") and so turn a noun phrase into a request
# for an explanation. Kept to nouns with that reading; open nouns (情報, 歴史, 場所) are not
# included because they head keyword queries as often as questions. 読み方/やり方 are UniDic
# verb + suffix 方 (読む + 方); any verb + 方 ("how to V") counts in the extended pattern.
PATTERN_3_EXTENDED = frozenset({
    "違い", "原因", "由来", "語源", "仕組み", "定義", "効果", "目的", "特徴", "種類",
})
HOW_TO_SUFFIX = "方"
_PATTERN_3_ALL = PATTERN_3_WORDS | PATTERN_3_EXTENDED

# Every spelling the analyzer can return for the words the patterns look for: the surface
# forms of all unidic-lite entries whose lemma (gloss stripped, as ``ja_tokens`` does) and POS
# fit, read from its sys.dic by ``filters.jnq.lexicon`` (tests/filters/jnq check them against
# the installed dictionary). Unknown words get their surface as lemma, so the lemma strings
# themselves are added. A query that contains none of them cannot match the pattern, whatever
# its segmentation: the string checks below decide it without tagging.
TOPIC_SURFACES = frozenset({"は", "はー", "や", "やあ"})  # は, 助詞-係助詞 (や: colloquial)
INTERROGATIVE_SURFACES = frozenset({
    "あん", "いか", "いかが", "いかな", "いかなる", "いかに", "いかん", "いく", "いくばく",
    "いくら", "いずく", "いずこ", "いずれ", "いず方", "いっくら", "いっつ", "いつ", "いつごろ",
    "いつ頃", "いづれ", "いッつ", "たれ", "だぁ〜れ", "だぁれ", "だあれ", "だれ", "だれっ",
    "だァれ", "だーれ", "ど", "ど〜", "どいつ", "どう", "どうれ", "どぉ", "どぉー", "どお",
    "どおー", "どこ", "どちら", "どっ", "どっち", "どなた", "どの", "どれ", "どん", "どんな",
    "どー", "どーれ", "な…ん", "な〜〜ん", "な〜ん", "なぁに", "なぁん", "なぁんて", "なあに",
    "なあん", "なあんて", "なあーに", "なあーん", "なあーんて", "なぜ", "なに", "なにごと",
    "なにっ", "なにぶん", "なにもの", "なにもん", "なにゆえ", "なに者", "なん", "なんて",
    "なんと", "なんどき", "なんに", "なんぴと", "なんぼ", "なァに", "なアに", "なーん",
    "なーんて", "イカガ", "イク", "イツ", "タ", "ドォー", "ドコ", "ドチラ", "ドレ", "ドー",
    "ナアニ", "ナゼ", "ナニ", "ナニモノ", "ナン", "ナンボ", "ナーン", "ン十", "何", "何あに",
    "何う", "何ごと", "何に", "何の", "何ぴと", "何ぶん", "何ぼ", "何もの", "何やつ", "何ゆえ",
    "何れ", "何ァに", "何ァん", "何事", "何人", "何党", "何処", "何分", "何十", "何千", "何奴",
    "何如", "何屋", "何故", "何方", "何時", "何時ごろ", "何時頃", "何曜", "何物", "何百", "何県",
    "何程", "何線", "何者", "何色", "何處", "何語", "奈何", "如何", "如何な", "如何なる",
    "如何に", "孰れ", "孰レ", "幾", "幾ばく", "幾ら", "幾十", "幾許", "誰", "誰れ", "那里",
}) | _CANDIDATE_LEMMAS
PATTERN_3_SURFACES = frozenset({
    "いみ", "ほうほう", "りゆう", "イミ", "意味", "方ほう", "方法", "理由",
}) | PATTERN_3_WORDS
PATTERN_3_EXTENDED_SURFACES = frozenset({
    "しくみ", "しゅるい", "し組み", "ちがい", "ちがひ", "ちげえ", "とくちょう", "もくてき",
    "仕組", "仕組み", "功果", "効果", "原いん", "原因", "定義", "特ちょう", "特徴", "由来",
    "異い", "目てき", "目的", "種類", "語原", "語源", "違い", "違ひ",
}) | PATTERN_3_EXTENDED
HOW_TO_SURFACES = frozenset({"かた", "がた", "カタ", "ガタ", "方"})  # 方, 接尾辞
KA_SURFACES = frozenset({
    "か", "か〜", "かぁ", "かあ", "かァ", "かー", "が", "カ", "カー", "乎", "歟",
})


def _any_of(surfaces: frozenset[str]) -> re.Pattern[str]:
    """A regex finding any of ``surfaces``: only those containing no other (a text contains
    one of the set exactly when it contains one of these), longest first."""
    minimal = {s for s in surfaces if not any(o != s and o in s for o in surfaces)}
    return re.compile("|".join(re.escape(s) for s in sorted(minimal, key=lambda s: (-len(s), s))))


_TOPIC_RE = _any_of(TOPIC_SURFACES)
_INTERROGATIVE_RE = _any_of(INTERROGATIVE_SURFACES)
_PATTERN_3_RE = _any_of(PATTERN_3_SURFACES)
_PATTERN_3_EXTENDED_RE = _any_of(PATTERN_3_SURFACES | PATTERN_3_EXTENDED_SURFACES
                                 | HOW_TO_SURFACES)
_KA_RE = _any_of(KA_SURFACES)


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


def may_match_pattern_1(normalized: str) -> bool:
    """JNQ §3.1 pattern 1 on the string: a spelling of the topic marker は
    (``TOPIC_SURFACES``) with a spelling of an interrogative (``INTERROGATIVE_SURFACES``)
    starting after it. False means ``pattern_1`` is False for any segmentation."""
    topic = _TOPIC_RE.search(normalized)
    return topic is not None and _INTERROGATIVE_RE.search(normalized, topic.start() + 1) is not None


def may_match_pattern_3(normalized: str, extended: bool = False) -> bool:
    """JNQ §3.1 pattern 3 on the string: a spelling of 意味/方法/理由 (with ``extended`` also
    of ``PATTERN_3_EXTENDED`` and of the suffix 方). False means ``pattern_3`` is False."""
    found = (_PATTERN_3_EXTENDED_RE if extended else _PATTERN_3_RE).search(normalized)
    return found is not None


def may_match_pattern(normalized: str, extended: bool = False) -> bool:
    """JNQ §3.1 (c) on the string: pattern 2 itself, or pattern 1 or 3 still possible. False
    means ``matched_patterns`` is empty: the query is rejected without knowing its words."""
    return (pattern_2(normalized) or may_match_pattern_1(normalized)
            or may_match_pattern_3(normalized, extended))


def may_be_yes_no_form(normalized: str) -> bool:
    """JBoolQ §4 footnote 4 (applied to JNQ §3.1 candidates) on the string: ends with "?" or has a
    spelling of the particle か (``KA_SURFACES``). False means ``jboolq_rule`` is False."""
    return pattern_2(normalized) or _KA_RE.search(normalized) is not None


@dataclass(frozen=True, slots=True)
class JaToken:
    """One UniDic short unit: surface, lemma (the surface for unknown words) and POS levels."""

    surface: str
    lemma: str
    pos1: str
    pos2: str


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


def is_topic_marker(token: JaToken) -> bool:
    """The binding particle は (助詞-係助詞), as in "Xは", "Xでは", "Xとは"."""
    return token.lemma == "は" and token.pos1 == "助詞" and token.pos2 == "係助詞"


def is_interrogative(token: JaToken) -> bool:
    """An interrogative word by UniDic lemma (``INTERROGATIVE_LEMMAS``), any spelling."""
    if token.lemma not in INTERROGATIVE_LEMMAS:
        return False
    allowed = INTERROGATIVE_POS.get(token.lemma)
    return allowed is None or token.pos1 in allowed


def _is_interrogative_at(tokens: Sequence[JaToken], i: int) -> bool:
    """``is_interrogative``, or なんて/なんと before a verb of saying (なんて読む)."""
    token = tokens[i]
    if is_interrogative(token):
        return True
    return (token.lemma in QUOTATIVE_INTERROGATIVES and token.pos1 == "助詞"
            and i + 1 < len(tokens) and tokens[i + 1].lemma in SAYING_VERBS)


def _starts_idiom(tokens: Sequence[JaToken], i: int) -> bool:
    """A ``NON_QUESTION_IDIOMS`` entry starts at ``i`` (each item is a lemma or a surface)."""
    head = tokens[i]
    tails = _IDIOM_TAILS.get(head.lemma)
    if tails is None or i + 1 >= len(tokens) or head.surface in _FUSED_NANI:
        return False
    nxt = tokens[i + 1]
    if nxt.lemma not in _IDIOM_SECOND and nxt.surface not in _IDIOM_SECOND:
        return False
    for rest in tails:
        if i + len(rest) < len(tokens) and all(
                tokens[i + 1 + k].lemma == item or tokens[i + 1 + k].surface == item
                for k, item in enumerate(rest)):
            return True
    return False


def _phrase_end(tokens: Sequence[JaToken], i: int) -> int:
    """End of the interrogative phrase at ``i``: suffixes (誰さん, 何ら), and for numeral or
    determiner interrogatives the counter or noun they take (何度, 何人, 幾つ, どの国)."""
    head, j = tokens[i], i + 1
    takes_nouns = head.pos2 == "数詞" or head.pos1 == "連体詞"
    while j < len(tokens):
        t = tokens[j]
        if t.pos1 == "接尾辞" or (takes_nouns and t.pos1 in ("名詞", "接頭辞")):
            j += 1
        else:
            break
    return j


def _is_linking(token: JaToken) -> bool:
    """Case and adverbial particles (に, で, と, から, まで, くらい ...) and the copula だ/で,
    which may stand between an interrogative and its も/か (どこにも, 誰にでも, 何だか)."""
    if token.pos1 == "助詞":
        return token.pos2 in ("格助詞", "副助詞") and token.lemma not in _NOT_LINKING
    return token.pos1 == "助動詞" and token.lemma == "だ" and token.surface in ("で", "だ")


def _sentence_goes_on(tokens: Sequence[JaToken], k: int) -> bool:
    """True when words other than sentence-final particles follow, before a 。/?/! (句点)."""
    for t in tokens[k:]:
        if t.pos1 == "補助記号" and t.pos2 == "句点":
            return False
        if t.pos1 not in SYMBOL_POS and not (t.pos1 == "助詞" and t.pos2 == "終助詞"):
            return True
    return False


def _concessive(tokens: Sequence[JaToken], j: int) -> bool:
    """"No matter wh-": て + も or に + せよ/しろ later in the same clause (いつ飲んでも,
    どうしても, 誰が来ても, 何にせよ, いずれにしても); the clause ends at punctuation or the next
    interrogative. Not concessive: negative + ても ("need not": 何に従わなくてもよい) and
    としても ("also as": 何としても知られる)."""
    for k in range(j, len(tokens)):
        t = tokens[k]
        if t.pos1 in SYMBOL_POS or (t.lemma in INTERROGATIVE_LEMMAS and is_interrogative(t)):
            return False
        if t.lemma == "為る" and t.surface in ("せよ", "しろ") and tokens[k - 1].surface == "に":
            return True
        if (t.lemma == "て" and t.pos2 == "接続助詞" and k + 1 < len(tokens)
                and tokens[k + 1].lemma == "も" and tokens[k + 1].pos1 == "助詞"):
            before = tokens[k - 1]
            if before.lemma in _NEGATIVES:
                continue
            if before.lemma == "為る" and k >= 2 and tokens[k - 2].lemma == "と":
                continue
            return True
    return False


def interrogative_is_question(tokens: Sequence[JaToken], i: int) -> bool:
    """Whether the interrogative at ``i`` asks (JNQ §3.1 pattern 1) rather than being part of an
    indefinite, universal, concessive or fixed expression. Blocked, by lemma and POS:

    * followed (after its phrase and any case/adverbial particles) by も/しも/でも/やら:
      いつも, 何も, 誰も, どこにも, 何度も, 何でも, 誰にでも, どうも, どうやら, 何やら
      (but not とも + 呼ぶ/称する, "also called": 別名は何とも呼ばれる);
    * followed by the particle か when the sentence goes on: 何か食べる, 誰かが, どこかで,
      いつか, 何故か, 何とか, 何回か, 何だか, 何らか — but "...は何か" / "何か?" / "何かな"
      (か sentence-final) ask "what is it" and are questions;
    * どう in "...かどうか" (whether);
    * ``NON_QUESTION_IDIOMS`` (なぜなら, 何より, 何となく, 何ら, いつの間にか ...);
    * a concessive in the same clause (``_concessive``).
    """
    if not _is_interrogative_at(tokens, i) or _starts_idiom(tokens, i):
        return False
    if (tokens[i].lemma == "どう" and i > 0 and tokens[i - 1].lemma == "か"
            and i + 1 < len(tokens) and tokens[i + 1].lemma == "か"):
        return False
    j = _phrase_end(tokens, i)
    k = j
    while k < len(tokens) and _is_linking(tokens[k]):
        k += 1
    if k < len(tokens) and tokens[k].pos1 == "助詞":
        naming = (tokens[k - 1].lemma == "と" and k + 1 < len(tokens)
                  and tokens[k + 1].lemma in _NAMING_VERBS)
        if tokens[k].lemma in _UNIVERSAL_PARTICLES and not naming:
            return False
        if tokens[k].lemma == "か" and _sentence_goes_on(tokens, k + 1):
            return False
    return not _concessive(tokens, j)


def pattern_1(tokens: Sequence[JaToken]) -> bool:
    """JNQ §3.1 pattern 1: the topic marker は followed later by an interrogative word that
    asks (``interrogative_is_question``)."""
    seen_topic = False
    for i, token in enumerate(tokens):
        if not seen_topic:
            seen_topic = token.lemma == "は" and is_topic_marker(token)
        elif token.lemma in _CANDIDATE_LEMMAS and interrogative_is_question(tokens, i):
            return True
    return False


def pattern_2(normalized: str) -> bool:
    """JNQ §3.1 pattern 2: the final character is "?" (after NFKC, so "？" counts)."""
    return normalized.endswith("?")


def pattern_3(tokens: Sequence[JaToken], extended: bool = False) -> bool:
    """JNQ §3.1 pattern 3: a noun whose lemma is 意味, 方法 or 理由; with ``extended`` also
    ``PATTERN_3_EXTENDED`` and verb + 方 (読み方, やり方, 使い方)."""
    words = _PATTERN_3_ALL if extended else PATTERN_3_WORDS
    for i, t in enumerate(tokens):
        lemma = t.lemma
        if lemma in words and t.pos1 == "名詞":
            return True
        if (extended and lemma == HOW_TO_SUFFIX and t.pos1 == "接尾辞" and i > 0
                and tokens[i - 1].pos1 == "動詞"):
            return True
    return False


def ends_with_ka(tokens: Sequence[JaToken]) -> bool:
    """JBoolQ §4: the last token that is not punctuation is the particle か (助詞)."""
    for t in reversed(tokens):
        if t.pos1 not in SYMBOL_POS:
            return t.lemma == "か" and t.pos1 == "助詞"
    return False


def jboolq_rule(tokens: Sequence[JaToken], normalized: str, count_symbols: bool = False) -> bool:
    """JBoolQ §4 (footnote 4): more than six words and ending with "?" or the particle か."""
    return (word_count(tokens, count_symbols) >= JBOOLQ_MIN_WORDS
            and (pattern_2(normalized) or ends_with_ka(tokens)))


def matched_patterns(normalized: str, tokens: Sequence[JaToken],
                     extended: bool = False) -> list[int]:
    """The JNQ §3.1 patterns (1, 2, 3) the query matches."""
    patterns = [1] if pattern_1(tokens) else []
    if pattern_2(normalized):
        patterns.append(2)
    if pattern_3(tokens, extended):
        patterns.append(3)
    return patterns


def select_jnq(normalized: str, tokens: Sequence[JaToken], count_symbols: bool = False,
               extended: bool = False) -> tuple[list[int], str | None]:
    """JNQ §3.1: (matched patterns, None) for a question candidate, else ([], reason), the
    reason being the first failed rule: "too_long", "contains_space", "too_few_words",
    "no_pattern"."""
    reason = cheap_rejection(normalized)
    if reason:
        return [], reason
    if word_count(tokens, count_symbols) < JNQ_MIN_WORDS:
        return [], "too_few_words"
    patterns = matched_patterns(normalized, tokens, extended)
    return (patterns, None) if patterns else ([], "no_pattern")


def select_jboolq(normalized: str, tokens: Sequence[JaToken],
                  count_symbols: bool = False) -> str | None:
    """JBoolQ §4: None for a candidate, else "too_long", "contains_space", "too_few_words" (six
    words or fewer) or "not_yes_no_form" (ends neither with "?" nor with the particle か)."""
    reason = cheap_rejection(normalized)
    if reason:
        return reason
    if word_count(tokens, count_symbols) < JBOOLQ_MIN_WORDS:
        return "too_few_words"
    return None if pattern_2(normalized) or ends_with_ka(tokens) else "not_yes_no_form"


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
