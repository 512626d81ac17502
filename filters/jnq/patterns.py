"""The JNQ question patterns and the JBoolQ rule on tagged words (Uematsu et al., "A Benchmark
Suite of Japanese Natural Questions", JNQ §3.1 (b) and (c), JBoolQ §4 footnote 4).

JNQ §3.1 (c): pattern 1, the topic marker "は" followed by an interrogative word; pattern 2, the
final character is "?"; pattern 3, the query contains a word such as 意味 (meaning), 方法
(method) or 理由 (reason). JBoolQ keeps a query of more than six words that ends with "?" or
with the particle "か".

Everything here is a pure function of the normalized text and its ``JaToken`` list, so each rule
is testable without a Beam pipeline. Decisions the paper leaves open, and ours:

* Pattern 1 is matched on UniDic lemmas, so kana and kanji spellings (なぜ/何故, どこ/何処)
  are the same word, and it skips interrogatives used as indefinites or universals (何か...,
  何も, 誰でも, いつの間にか, なぜなら, どうやら; see ``interrogative_is_question``). Any は
  that is the binding particle (係助詞) counts as the topic marker, also in では/とは/には.
* Pattern 3 matches noun lemmas; ``PATTERN_3_EXTENDED`` is an optional, wider word list.
* JBoolQ's か must be a particle (助詞) and the last word: すいか (a noun) does not end in か.
  The rule is the paper's form filter; it also accepts wh-questions ending in "?" or か.
"""

from __future__ import annotations

from collections.abc import Sequence

from filters.jnq.normalize import JBOOLQ_MIN_WORDS, JNQ_MIN_WORDS, cheap_rejection
from filters.jnq.tokens import SYMBOL_POS, JaToken, word_count

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
