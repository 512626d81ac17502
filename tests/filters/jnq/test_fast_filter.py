"""Issue 15 §2: the JNQ §3.1 / JBoolQ §4 checks made on the string before tagging, the fast
token path, and ``QuestionFilter`` deciding exactly as the reference (tag, then every rule)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from filters.jnq.rules import (
    HOW_TO_SURFACES,
    INTERROGATIVE_SURFACES,
    JBOOLQ_MIN_WORDS,
    JNQ_MIN_WORDS,
    KA_SURFACES,
    PATTERN_3_EXTENDED_SURFACES,
    PATTERN_3_SURFACES,
    TOPIC_SURFACES,
    Decision,
    JaToken,
    QuestionFilter,
    _reference_tokens,
    ends_with_ka,
    has_space,
    make_tagger,
    may_be_yes_no_form,
    may_match_pattern,
    may_match_pattern_1,
    may_match_pattern_3,
    normalize_ja,
    pattern_1,
    pattern_3,
    reference_decision,
    too_short,
)

SAMPLE_LOG = Path(__file__).resolve().parents[3] / "pipelines" / "samples" / "jnq" / "query_log.tsv"


@pytest.fixture(scope="module")
def analyzer():
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    return make_tagger()


# too_short (b) --------------------------------------------------------------------------------
def test_too_short_below_the_word_minimum():
    assert too_short("東京の天気")                                  # 5 characters < 8 words
    assert too_short("日本の首都は?")                               # 7 characters
    assert too_short("東京の天気予報", JBOOLQ_MIN_WORDS - 1) is False


def test_not_too_short_from_the_word_minimum():
    assert not too_short("あいうえおかきく")                         # 8 characters: may be 8 words
    assert not too_short("日本の首都はどこですか?")
    assert not too_short("a" * JNQ_MIN_WORDS)


# pattern 1 on the string ----------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "日本の首都はどこですか", "織田信長はなぜ本能寺で殺されたのか", "富士山の高さは何メートル",
    "カレーはいつ日本に伝わった", "東京タワーやどこ",                 # や: colloquial は
    "この曲は誰が作ったの", "ペンはイツ",
])
def test_may_match_pattern_1(text):
    assert may_match_pattern_1(text)


@pytest.mark.parametrize("text", [
    "日本の首都を教えてください",                    # no topic marker
    "どこの国の首都が一番大きい",                    # interrogative only before は... none after
    "誰が日本の首相でしたは",                        # は last: nothing after it
    "東京駅から新宿駅までの行き方",                  # neither
])
def test_may_not_match_pattern_1(text):
    assert not may_match_pattern_1(text)


# pattern 3 on the string ----------------------------------------------------------------------
@pytest.mark.parametrize("text, extended", [
    ("円安の意味を簡単に知りたい", False), ("ゆで卵の簡単な方法", False),
    ("日本が戦争に負けた理由", False), ("いみ", False),
    ("円高と円安の違い", True), ("漢字の読み方", True), ("地震の原因", True),
])
def test_may_match_pattern_3(text, extended):
    assert may_match_pattern_3(text, extended)


@pytest.mark.parametrize("text, extended", [
    ("円高と円安の違い", False),                     # 違い only with the extended list
    ("東京の天気予報", False), ("東京の天気予報", True),
    ("漢字の読み方", False),
])
def test_may_not_match_pattern_3(text, extended):
    assert not may_match_pattern_3(text, extended)


def test_may_match_pattern_any_of_the_three():
    assert may_match_pattern("東京の天気?")                         # pattern 2 itself
    assert may_match_pattern("東京の天気はどう")
    assert may_match_pattern("天気の意味")
    assert not may_match_pattern("東京の天気予報")
    assert not may_match_pattern("東京の天気の違い")
    assert may_match_pattern("東京の天気の違い", extended=True)


# JBoolQ form on the string ----------------------------------------------------------------------
def test_may_be_yes_no_form():
    assert may_be_yes_no_form("富士山は日本一高い山ですか")
    assert may_be_yes_no_form("富士山は日本一高い山?")


def test_may_not_be_yes_no_form():
    assert not may_be_yes_no_form("富士山は日本一高い山です")
    assert not may_be_yes_no_form("東京の天気予報")


# the string checks never say no where the rules say yes ----------------------------------------
def sample_queries() -> list[str]:
    with SAMPLE_LOG.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(rows)
        return [row[0] for row in rows if row and row[0].strip()]


EDGE_QUERIES = [
    "", "?", "a", "x\x00y", "日本 首都", "日本\u3000首都はどこ", "日本\t首都", "、。!?…（）「」",
    "𠮷野家はどこ?", "ＰＥＮぺんはなに", "XYZZYはペンのどこ?", "ｶﾀｶﾅの意味は何ですか",
    "日本の首都はどこですか?", "日本の首都はどこですか" * 40 + "?",
    "東京は何ですか?ペン,ｸﾞｸﾞ", "漢字の読み方を教えてください", "円高と円安の違いを知りたいです",
    "いつも何か食べているのは誰でしょう", "なぜなら彼は何も知らなかったからです",
    "この花の名前は何と呼ばれていますか", "富士山は日本一高い山ですか",
]


def test_string_checks_are_necessary_conditions(analyzer):
    for text in map(normalize_ja, sample_queries() + EDGE_QUERIES):
        tokens = _reference_tokens(analyzer.tagger, text)
        assert may_match_pattern_1(text) or not pattern_1(tokens), text
        assert may_match_pattern_3(text) or not pattern_3(tokens), text
        assert may_match_pattern_3(text, True) or not pattern_3(tokens, True), text
        assert may_be_yes_no_form(text) or not ends_with_ka(tokens), text


# QuestionFilter = reference ---------------------------------------------------------------------
@pytest.mark.parametrize("variant, count_symbols, extended", [
    ("jnq", False, False), ("jnq", False, True), ("jnq", True, False),
    ("jboolq", False, False), ("jboolq", True, False),
])
def test_question_filter_decides_as_the_reference(analyzer, variant, count_symbols, extended):
    fast = QuestionFilter(variant, count_symbols, extended, analyzer)
    for text in map(normalize_ja, sample_queries() + EDGE_QUERIES):
        expected = reference_decision(analyzer, text, variant, count_symbols, extended)
        assert fast(text) == expected, text


def test_question_filter_decisions(analyzer):
    jnq = QuestionFilter(analyzer=analyzer)
    assert jnq("日本 首都") == Decision(0, [], "contains_space")
    assert jnq("東京の天気") == Decision(3, [], "too_few_words")       # tagged for the count
    assert jnq("東京都庁への電車での行き方と料金") == Decision(11, [], "no_pattern")
    assert jnq("日本の首都はどこですか?") == Decision(7, [], "too_few_words")
    assert jnq("日本で一番高い山の名前はなんですか?") == Decision(11, [1, 2], None)
    jboolq = QuestionFilter("jboolq", analyzer=analyzer)
    assert jboolq("富士山は日本一高い山ですか") == Decision(9, [], None)
    assert jboolq("富士山は日本一高い山です") == Decision(8, [], "not_yes_no_form")
    with pytest.raises(ValueError):
        QuestionFilter("nq", analyzer=analyzer)


def test_fast_tokens_equal_node_tokens(analyzer):
    for text in map(normalize_ja, sample_queries() + EDGE_QUERIES):
        reference = _reference_tokens(analyzer.tagger, text)
        assert analyzer.tokens(text) == reference, text          # cold (fills the cache)
        assert analyzer.tokens(text) == reference, text          # cached
        assert analyzer.word_count(text) == sum(t.pos1 not in ("補助記号", "記号", "空白")
                                                for t in reference)


# the surface forms are every spelling in the installed dictionary -------------------------------
def test_surface_sets_cover_the_installed_unidic_lite():
    pytest.importorskip("unidic_lite")
    pytest.importorskip("numpy")
    from filters.jnq.lexicon import dictionary_entries, unidic_lite_sys_dic
    from filters.jnq.rules import (
        _CANDIDATE_LEMMAS,
        HOW_TO_SUFFIX,
        PATTERN_3_EXTENDED,
        PATTERN_3_WORDS,
    )

    found: dict[str, set[str]] = {name: set() for name in
                                  ("topic", "interrogative", "p3", "p3ext", "how_to", "ka")}
    entries = 0
    for surface, _left, _right, _cost, feature in dictionary_entries(unidic_lite_sys_dic()):
        entries += 1
        fields = feature.split(",")
        lemma = fields[7]
        if "-" in lemma:
            base, _, gloss = lemma.partition("-")
            if base and gloss.isascii():
                lemma = base
        lemma = lemma or surface
        pos1, pos2 = fields[0], fields[1]
        if lemma == "は" and pos1 == "助詞" and pos2 == "係助詞":
            found["topic"].add(surface)
        if lemma in _CANDIDATE_LEMMAS:
            found["interrogative"].add(surface)
        if lemma in PATTERN_3_WORDS and pos1 == "名詞":
            found["p3"].add(surface)
        if lemma in PATTERN_3_EXTENDED and pos1 == "名詞":
            found["p3ext"].add(surface)
        if lemma == HOW_TO_SUFFIX and pos1 == "接尾辞":
            found["how_to"].add(surface)
        if lemma == "か" and pos1 == "助詞":
            found["ka"].add(surface)
    assert entries == 756_264
    assert found["topic"] <= TOPIC_SURFACES
    assert found["interrogative"] <= INTERROGATIVE_SURFACES
    assert found["p3"] <= PATTERN_3_SURFACES
    assert found["p3ext"] <= PATTERN_3_EXTENDED_SURFACES
    assert found["how_to"] <= HOW_TO_SURFACES
    assert found["ka"] <= KA_SURFACES


def test_bounded_cache_emptied_midway_changes_nothing(analyzer, monkeypatch):
    import filters.jnq.rules as rules

    monkeypatch.setattr(rules, "_CACHE_LIMIT", 5)
    rules.clear_token_cache()
    fast = QuestionFilter(analyzer=analyzer)
    for text in map(normalize_ja, sample_queries()[:60] + EDGE_QUERIES):
        assert fast(text) == reference_decision(analyzer, text), text
        assert analyzer.tokens(text) == _reference_tokens(analyzer.tagger, text), text
    assert len(rules._KEY_CACHE) <= 5 + 40                       # emptied at the bound
    rules.clear_token_cache()


# the word count from the key output (no per-token work) ---------------------------------------
SYMBOL_QUERIES = [
    "✈✈の意味を教えてください",          # ✈: an unknown SYMBOL (記号), with a noun's context id
    "日本の首都は⿰どこ??",                # ⿰: unknown 補助記号; ?? two adjacent symbols
    "☃☃と⌘の違いは何ですか。",           # known 補助記号 entries, adjacent
    "「東京」、『大阪』…京都!",             # brackets, comma, ellipsis, exclamation
    "123456789の意味",                    # digits (名詞-数詞), no symbol
    "ｶﾀｶﾅﾉｲﾐﾊﾅﾆ",
]


def test_symbol_ids_from_left_id_def(analyzer, tmp_path):
    from filters.jnq.rules import SYMBOL_POS, symbol_ids

    dicdir = Path(analyzer.tagger.dictionary_info[0]["filename"]).parent
    ids = symbol_ids(dicdir)
    assert ids == SYMBOL_POS | {str(i) for i in range(5966, 5979)}   # unidic-lite 1.0.8
    assert symbol_ids(tmp_path) is None                               # no left-id.def


@pytest.mark.parametrize("count_symbols", [False, True])
def test_word_count_from_the_key_output(analyzer, count_symbols):
    assert analyzer._symbols is not None                              # the fast path is on
    for text in map(normalize_ja, SYMBOL_QUERIES + sample_queries() + EDGE_QUERIES):
        reference = _reference_tokens(analyzer.tagger, text)
        expected = len(reference) if count_symbols else sum(
            t.pos1 not in ("補助記号", "記号", "空白") for t in reference)
        assert analyzer.word_count(text, count_symbols) == expected, text
        if text and not has_space(text):
            assert analyzer.word_count(text, count_symbols, spaceless=True) == expected, text


def test_word_count_without_left_id_def_uses_the_categories(analyzer, monkeypatch):
    monkeypatch.setattr(analyzer, "_symbols", None)
    for text in map(normalize_ja, SYMBOL_QUERIES):
        reference = _reference_tokens(analyzer.tagger, text)
        assert analyzer.word_count(text) == sum(
            t.pos1 not in ("補助記号", "記号", "空白") for t in reference), text


def test_every_entry_has_the_pos_of_its_context_id():
    """What the key format and the symbol count rely on: left id = right id for every entry,
    and a known word's pos1 is its id's (in left-id.def); unk.dic's SYMBOL is the exception
    (so the key format prints an unknown word's pos1, not its id)."""
    pytest.importorskip("unidic_lite")
    pytest.importorskip("numpy")
    from filters.jnq.lexicon import dictionary_entries, unidic_lite_sys_dic

    dicdir = unidic_lite_sys_dic().parent
    pos1 = {}
    for line in (dicdir / "left-id.def").read_text(encoding="utf-8").splitlines():
        number, _, feature = line.partition(" ")
        pos1[int(number)] = feature.split(",")[0]
    entries = 0
    for _surface, left, right, _cost, feature in dictionary_entries(dicdir / "sys.dic"):
        entries += 1
        assert left == right and pos1[left] == feature.split(",")[0], feature
    assert entries == 756_264
    unknown = {surface: (left, right, feature.split(",")[0]) for surface, left, right, _cost,
               feature in dictionary_entries(dicdir / "unk.dic")}
    assert all(left == right for left, right, _pos in unknown.values())
    assert unknown["SYMBOL"][2] == "記号" and pos1[unknown["SYMBOL"][0]] == "名詞"


# QuestionFilter's branches --------------------------------------------------------------------
@pytest.mark.parametrize("text, decision", [
    ("東京の天気予報を教えてください?", Decision(8, [2], None)),     # pattern 2 only: the count
    ("東京の天気予報は?", Decision(5, [], "too_few_words")),
    ("東京の天気予報を教えてください", Decision(8, [], "no_pattern")),
    ("✈の✈の天気予報です?", Decision(5, [], "too_few_words")),  # ✈ is not a word
])
def test_question_filter_pattern_2_only(analyzer, text, decision):
    assert QuestionFilter(analyzer=analyzer)(text) == decision
    assert reference_decision(analyzer, text) == decision


@pytest.mark.parametrize("text, reason", [
    ("富士山は日本一高い山なのですか?", None),           # "?": the count decides
    ("富士山は高い山か?", "too_few_words"),
    ("富士山は日本一高い山なのです", "not_yes_no_form"),   # no spelling of か
    ("富士山は日本一高い山なのですか", None),             # か, the last word
    ("富士山は日本一高い山なのですか。", None),           # ... before a symbol
    ("何か日本一高い山に登りたいです", "not_yes_no_form"), # か, not last
    ("日本一高い山の上で食べるすいか", "not_yes_no_form"), # すいか is a noun
    ("日本一高い山ですか", "too_few_words"),
    ("か?。」", "too_few_words"),
    ("。。。。。。。。。か", "too_few_words"),
    ("富士山は日本一高い山ですか\x00", None),          # NUL: the reference path
])
def test_jboolq_branches(analyzer, text, reason):
    for count_symbols in (False, True):
        got = QuestionFilter("jboolq", count_symbols, analyzer=analyzer)(text)
        assert got == reference_decision(analyzer, text, "jboolq", count_symbols), text
    assert QuestionFilter("jboolq", analyzer=analyzer)(text).reason == reason


def test_pattern_1_after_the_first_topic(analyzer):
    from filters.jnq.rules import _CANDIDATE, _SYMBOL_CANDIDATE, _TOPIC, _category, _pattern_1_after

    def check(tokens):
        categories = [_category(t) for t in tokens]
        if _TOPIC in categories:
            assert _pattern_1_after(tokens, categories, categories.index(_TOPIC)) == \
                pattern_1(tokens)
        return categories

    for text in map(normalize_ja, sample_queries() + EDGE_QUERIES + [
            "彼は何も言わずにどこへ行ったのですか", "誰が来たのかは何も知らない"]):
        check(_reference_tokens(analyzer.tagger, text))
    jp = JaToken
    symbol_what = jp("何", "何", "補助記号", "一般")                 # an interrogative lemma
    tokens = [jp("これ", "此れ", "代名詞", "*"), jp("は", "は", "助詞", "係助詞"), symbol_what,
              jp("です", "です", "助動詞", "*")]
    assert check(tokens)[2] == _SYMBOL_CANDIDATE and pattern_1(tokens)
    nothing = [tokens[0], tokens[1], jp("何", "何", "代名詞", "*"),
               jp("も", "も", "助詞", "係助詞")]
    assert check(nothing)[2] == _CANDIDATE and not pattern_1(nothing)
