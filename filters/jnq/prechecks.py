"""String checks that run before tagging: can a JNQ pattern or the JBoolQ form still match?
(Uematsu et al., "A Benchmark Suite of Japanese Natural Questions", JNQ §3.1 (c) and JBoolQ §4
footnote 4; issue 15 §2.)

Each check looks in the normalized string for any spelling unidic-lite has for the words a
pattern needs (the topic marker は and an interrogative after it; 意味/方法/理由 and the
extended nouns; the particle か). False means the pattern cannot match whatever the
segmentation, so ``QuestionFilter`` needs only the word count.
"""

from __future__ import annotations

import re

from filters.jnq.patterns import (
    _CANDIDATE_LEMMAS,
    PATTERN_3_EXTENDED,
    PATTERN_3_WORDS,
    pattern_2,
)

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
