"""JNQ §3.1 and JBoolQ §4 question-candidate rules: every clause, positive and negative, on
queries written for each rule and segmented by the real analyzer (fugashi + unidic-lite), plus
hand-built tokens where a rule must be checked independently of the analyzer."""

from __future__ import annotations

import pickle

import pytest

from filters.jnq.rules import (
    INTERROGATIVE_LEMMAS,
    JNQ_MIN_WORDS,
    PATTERN_3_EXTENDED,
    PATTERN_3_WORDS,
    JaToken,
    ends_with_ka,
    has_space,
    is_interrogative,
    ja_tokens,
    jboolq_rule,
    make_tagger,
    normalize_ja,
    pattern_1,
    pattern_2,
    pattern_3,
    select_jboolq,
    select_jnq,
    word_count,
)


@pytest.fixture(scope="module")
def tagger():
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    return make_tagger()


@pytest.fixture(scope="module")
def tok(tagger):
    """text -> (normalized text, tokens), the way the pipeline prepares a query."""
    def prepare(text: str) -> tuple[str, list[JaToken]]:
        normalized = normalize_ja(text)
        return normalized, ja_tokens(tagger, normalized)
    return prepare


def T(surface: str, pos1: str, pos2: str = "*", lemma: str | None = None) -> JaToken:
    return JaToken(surface, lemma or surface, pos1, pos2)


# normalize_ja --------------------------------------------------------------------------------
@pytest.mark.parametrize("raw, expected", [
    ("ｶﾀｶﾅの意味", "カタカナの意味"),          # half-width kana -> full width (voicing joined)
    ("ﾎﾟｹﾓﾝはﾄﾞｺ", "ポケモンはドコ"),
    ("日本の首都はどこ？", "日本の首都はどこ?"),   # full-width question mark -> "?"
    ("ＡＢＣ１２３は何", "ABC123は何"),          # full-width letters and digits -> ASCII
    ("  日本の首都は？\u3000", "日本の首都は?"),  # outer whitespace, half and full width, stripped
])
def test_normalize_ja(raw, expected):
    assert normalize_ja(raw) == expected


def test_normalize_maps_ideographic_space_to_ascii_space_and_keeps_inner_spaces():
    assert normalize_ja("日本\u3000首都") == "日本 首都"
    assert normalize_ja("日本 首都") == "日本 首都"
    assert normalize_ja("") == ""


# the space rule (a) ------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["日本 首都 人口", "日本\u3000首都", "日本\t首都"])
def test_has_space_half_and_full_width(text):
    assert has_space(text)
    assert has_space(normalize_ja(text))


@pytest.mark.parametrize("text", ["日本の首都はどこですか?", "ABC123", ""])
def test_has_no_space(text):
    assert not has_space(text)


# tokens -----------------------------------------------------------------------------------------
def test_ja_tokens_lemmas_pos_and_unknown_words(tok):
    _, tokens = tok("XYZZYはペンのどこ?")
    assert tokens[0] == JaToken("XYZZY", "XYZZY", "名詞", "普通名詞")   # unknown: lemma = surface
    assert tokens[1] == JaToken("は", "は", "助詞", "係助詞")
    assert tokens[2].lemma == "ペン"                                   # not UniDic's "ペン-pen"
    assert tokens[4] == JaToken("どこ", "何処", "代名詞", "*")
    assert tokens[-1].pos1 == "補助記号"


def test_ja_tokens_agree_with_fugashi_features(tagger):
    text = "東京タワーの高さは何メートルですか?2024年、ｱﾌﾟﾘで「首都」を調べた。"
    expected = []
    for word in tagger(text):
        lemma = word.feature.lemma or word.surface
        lemma = lemma.split("-")[0] if "-" in lemma and lemma.split("-")[0] else lemma
        expected.append((word.surface, lemma, word.feature.pos1, word.feature.pos2))
    for _ in range(2):                                                 # cold, then cached
        got = [(t.surface, t.lemma, t.pos1, t.pos2) for t in ja_tokens(tagger, text)]
        assert got == expected


def test_tagger_is_not_picklable(tagger):
    with pytest.raises(TypeError):
        pickle.dumps(tagger)


# word count (b) -----------------------------------------------------------------------------
def test_word_count_skips_punctuation_and_symbols():
    tokens = [T("日本", "名詞", "固有名詞"), T("、", "補助記号", "読点"), T("#", "記号", "一般"),
              T("\u3000", "空白"), T("?", "補助記号", "句点")]
    assert word_count(tokens) == 1
    assert word_count(tokens, count_symbols=True) == 5


def test_question_mark_cannot_make_a_query_long_enough(tok):
    normalized, tokens = tok("日本の首都はどこですか?")      # 日本/の/首都/は/どこ/です/か + ?
    assert word_count(tokens) == JNQ_MIN_WORDS - 1
    assert word_count(tokens, count_symbols=True) == JNQ_MIN_WORDS
    assert select_jnq(normalized, tokens) == ([], "too_few_words")
    assert select_jnq(normalized, tokens, count_symbols=True) == ([1, 2], None)


# pattern 1: interrogative lemmas ----------------------------------------------------------------
@pytest.mark.parametrize("text, lemma", [
    ("日本の国花はなに", "何"), ("日本の国花は何", "何"),
    ("日本の首都はなんですか", "何"),
    ("会議は何時に始まる", "何"),                      # 何時 (なんじ) here = 何 + 時
    ("東京の日の出は何時", "何時"),                    # ... and here one word, lemma 何時
    ("この歌の作者はだれ", "誰"), ("この歌の作者は誰", "誰"),
    ("富士山はどこにある", "何処"), ("富士山は何処にある", "何処"),
    ("東京五輪はいつ開催された", "何時"),
    ("空はなぜ青い", "何故"), ("空は何故青い", "何故"),
    ("この料理の味はどう", "どう"),
    ("その後の経過は如何", "如何"), ("ご気分はいかが", "如何"),
    ("彼はどんな人", "どんな"),
    ("正解はどの番号", "何の"),
    ("正解は何れの番号", "何れ"),
    ("正解はどれ", "何れ"),
    ("正解はどれ?", "どれ"),                           # どれ before "?" is tagged 感動詞 どれ
    ("出口はどちら", "何方"), ("出口は何方", "何方"), ("右と左はどっち", "何方"),
    ("この本はいくら", "幾ら"), ("この本は幾ら", "幾ら"),
    ("彼の年齢はいくつ", "幾"), ("彼の年齢は幾つ", "幾"),   # 幾 + つ
    ("この問題はいかに解決された", "如何に"), ("この問題は如何に解決された", "如何に"),
    ("この駅は何線", "何線"),
])
def test_pattern_1_interrogatives_in_kana_and_kanji(tok, text, lemma):
    _, tokens = tok(text)
    assert any(is_interrogative(t) and t.lemma == lemma for t in tokens)
    assert lemma in INTERROGATIVE_LEMMAS
    assert pattern_1(tokens)


@pytest.mark.parametrize("text", [
    "この漢字はなんて読む", "この漢字はなんと読む",       # なんて/なんと + verb of saying
    "日本の国技は何か", "これは何か?", "あれは何かな", "これは何か。",  # sentence-final か
    "リズムの現れ方は何により決まるか",                   # 何に + より is not 何より
    "この物質は別名何とも呼ばれる",                       # とも + 呼ぶ: "also called"
    "この動物はいったい何なのか",
])
def test_pattern_1_accepts(tok, text):
    assert pattern_1(tok(text)[1])


@pytest.mark.parametrize("text", [
    "彼はいつも遅刻する", "彼は何も言わなかった", "その部屋には誰もいなかった",
    "店はどこも混んでいる", "彼は誰にでも優しい", "彼はどこにもいない",
    "彼は何度も挑戦した",                                  # 何 + 度 + も
    "彼は何か隠している", "この問題は誰かが解決する", "財布はどこかに落とした",
    "私はいつか行きたい", "彼は何人かの友人と来た", "彼はなぜか怒った", "彼は何かと忙しい",
    "彼は何でも知っている", "この試験は誰でも受けられる", "このカードはどこでも使える",
    "彼は休んだなぜなら病気だったから", "明日はどうやら雨らしい", "今日はどうも調子が悪い",
    "こちらはどうぞお使いください", "試験は何とか合格した", "今日は何となく寂しい",
    "健康は何より大切だ", "外はいつの間にか暗くなった", "この件は何ら問題ない",
    "この家はいずれ売る",                                  # adverb いずれ, "eventually"
    "私はどうしても眠れない", "彼は何をしても怒らない",     # concessive "no matter"
    "結果はいずれにせよ発表される", "それは何とも言えない", "この店は何やら騒がしい",
    "この話は本当かどうか", "このままではどうしようもない", "二人はなんだかんだ仲が良い",
    "勉強なんて嫌い",
])
def test_pattern_1_blocks_false_positives(tok, text):
    assert not pattern_1(tok(text)[1])


@pytest.mark.parametrize("text", [
    "どこへ行けば富士山が見えるのは",      # interrogative before は
    "何が好きかは人による",
    "日本の首都に行ってみたい",            # no interrogative
    "東京の人口を調べたい",                # no は
])
def test_pattern_1_needs_topic_marker_then_interrogative(tok, text):
    assert not pattern_1(tok(text)[1])


def test_pattern_1_later_interrogative_counts_after_a_blocked_one(tok):
    assert pattern_1(tok("彼はいつも何を食べているの")[1])


# pattern 2 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("富士山は日本で一番高い山？", True), ("富士山は日本で一番高い山?", True),
    ("富士山は日本で一番高い山？ ", True), ("富士山は日本で一番高い山。", False),
    ("富士山は日本で一番高い山?です", False), ("", False),
])
def test_pattern_2_final_question_mark_after_nfkc(text, expected):
    assert pattern_2(normalize_ja(text)) is expected


# pattern 3 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "円周率の意味を簡単に説明して", "地震を予知する方法を知りたい", "空が青い理由を教えて",
    "いみがわからない",                                   # kana spelling, lemma 意味
])
def test_pattern_3_paper_words(tok, text):
    tokens = tok(text)[1]
    assert pattern_3(tokens) and pattern_3(tokens, extended=True)


@pytest.mark.parametrize("text", [
    "地震が起きる仕組みを説明して", "犬と狼の違いを知りたい", "火事の原因を調べる",
    "この地名の由来を知りたい", "ケーキの作り方を教えて", "この漢字の読み方を教えて",
    "正しいやり方を教えて",
])
def test_pattern_3_extended_only(tok, text):
    tokens = tok(text)[1]
    assert not pattern_3(tokens)
    assert pattern_3(tokens, extended=True)


@pytest.mark.parametrize("text", ["東京の天気を調べる", "先生方が集まった", "あちらの方が安い"])
def test_pattern_3_rejects(tok, text):
    tokens = tok(text)[1]
    assert not pattern_3(tokens) and not pattern_3(tokens, extended=True)


def test_pattern_3_needs_a_noun():
    assert pattern_3([T("意味", "名詞", "普通名詞")])
    assert not pattern_3([T("意味", "動詞", "一般")])
    assert PATTERN_3_WORDS == {"意味", "方法", "理由"}
    assert not PATTERN_3_WORDS & PATTERN_3_EXTENDED


# JBoolQ -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "この映画は日本で撮影されたのですか",          # particle か
    "この映画は日本で撮影されたのですか。",        # か before final punctuation
    "富士山は日本で一番高い山?",                  # "?"
    "富士山は日本で一番高い山ですか?",
])
def test_jboolq_accepts(tok, text):
    normalized, tokens = tok(text)
    assert jboolq_rule(tokens, normalized)
    assert select_jboolq(normalized, tokens) is None


@pytest.mark.parametrize("text, reason", [
    ("それは本当ですか", "too_few_words"),                          # 5 words
    ("日本で夏によく食べられる果物はすいか", "not_yes_no_form"),   # すいか is a noun
    ("富士山の高さを調べてみた", "not_yes_no_form"),
    ("この映画は 日本で撮影されたのですか", "contains_space"),
    ("この映画は\u3000日本で撮影されたのですか", "contains_space"),
])
def test_jboolq_rejects(tok, text, reason):
    normalized, tokens = tok(text)
    assert select_jboolq(normalized, tokens) == reason
    assert not jboolq_rule(tokens, normalized) or reason == "contains_space"


def test_jboolq_more_than_six_words_and_ka_must_be_a_particle():
    six = [T(w, "名詞", "普通名詞") for w in "ABCDE"] + [T("か", "助詞", "終助詞")]
    assert not jboolq_rule(six, "ABCDEか")
    seven = [T("Z", "名詞", "普通名詞")] + six + [T("。", "補助記号", "句点")]
    assert jboolq_rule(seven, "ZABCDEか。")
    noun_ka = seven[:-2] + [T("か", "名詞", "普通名詞", lemma="蚊")]
    assert not ends_with_ka(noun_ka) and not jboolq_rule(noun_ka, "ZABCDEか")
    assert not ends_with_ka([T("?", "補助記号", "句点")]) and not ends_with_ka([])


# select_jnq ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text, patterns", [
    ("日本で一番高い山の名前はなんですか?", [1, 2]),
    ("日本で一番高い山の名前はなんですか", [1]),
    ("富士山は日本で一番高い山ですか?", [2]),
    ("円周率の意味を簡単に説明してください", [3]),
])
def test_select_jnq_accepts(tok, text, patterns):
    normalized, tokens = tok(text)
    assert select_jnq(normalized, tokens) == (patterns, None)


@pytest.mark.parametrize("text, reason", [
    ("日本 首都 人口", "contains_space"),
    ("日本で一番高い山の名前は\u3000なんですか?", "contains_space"),
    ("何 ?", "contains_space"),                              # space is checked before length
    ("日本の首都はどこ?", "too_few_words"),
    ("日本の首都に住んでいる人の数を調べる", "no_pattern"),
    ("地震が起きる仕組みを簡単に説明してください", "no_pattern"),
])
def test_select_jnq_rejects_with_first_failed_rule(tok, text, reason):
    normalized, tokens = tok(text)
    assert select_jnq(normalized, tokens) == ([], reason)


def test_select_jnq_extended_pattern_3(tok):
    normalized, tokens = tok("地震が起きる仕組みを簡単に説明してください")
    assert select_jnq(normalized, tokens, extended=True) == ([3], None)


def test_too_long_is_nq_bound_and_checked_before_tagging():
    from filters.jnq.rules import MAX_QUERY_CHARS, cheap_rejection
    from filters.nq.queries import MAX_QUERY_CHARS as NQ_MAX_QUERY_CHARS

    assert MAX_QUERY_CHARS == NQ_MAX_QUERY_CHARS
    huge = "日本の首都はどこですか" * 10_000 + "?"
    assert cheap_rejection(huge) == "too_long"
    assert cheap_rejection("日本の 首都") == "contains_space"
    assert cheap_rejection("日本の首都はどこですか?") is None
    tokens = [T("日本", "名詞")] * 9
    assert select_jnq(huge, tokens) == ([], "too_long")
    assert select_jboolq(huge, tokens) == "too_long"
