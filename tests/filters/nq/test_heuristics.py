"""NQ §3.1 heuristics: every clause, positive and negative, on hand-tagged queries (so the
rules are tested independently of the tagger) and on a few queries tagged by the real model."""

import pytest

from filters.nq.heuristics import (
    QueryView,
    Token,
    categorical_phrases,
    entity_mentions,
    heuristic_1,
    heuristic_2,
    heuristic_3,
    heuristic_4,
    heuristic_5,
    matched_heuristics,
)

CATEGORIES = {"film", "river", "country", "character", "song", "city", "team"}.__contains__


def tagged(spec: str, chunks=(), ents=()) -> QueryView:
    """``"who/WP/PRON sings/VBZ/VERB"``: text/TAG/POS; lemma = lower text unless ``~lemma``."""
    tokens = []
    for item in spec.split():
        text, tag, pos = item.split("/")
        lemma = text.lower()
        if "~" in text:
            text, lemma = text.split("~")
        tokens.append(Token(text, text.lower(), lemma, pos, tag, text.isdigit()))
    return QueryView(tuple(tokens), tuple(chunks), tuple(ents))


# heuristic 1 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [
    "when/WRB/SCONJ did/VBD/AUX the/DT/DET ship/NN/NOUN sink/VB/VERB",           # 1a finite do
    "where/WRB/SCONJ does/VBZ/AUX the/DT/DET river/NN/NOUN start/VB/VERB",       # 1a finite do
    "who/WP/PRON can/MD/AUX vote/VB/VERB in/IN/ADP the/DT/DET election/NN/NOUN",  # 1a modal
    "where/WRB/SCONJ was/VBD/AUX the/DT/DET film/NN/NOUN shot~shoot/VBN/VERB",    # 1b be+verb
    "who/WP/PRON has/VBZ/AUX won/VBN/VERB the/DT/DET most/JJS/ADJ cups/NNS/NOUN",  # 1b have+verb
])
def test_heuristic_1_accepts(spec):
    assert heuristic_1(tagged(spec))


@pytest.mark.parametrize("spec", [
    "who/WP/PRON is/VBZ/AUX the/DT/DET king/NN/NOUN of/IN/ADP spain/NNP/PROPN",   # be, no verb
    "what/WP/PRON did/VBD/AUX the/DT/DET king/NN/NOUN say/VB/VERB",               # not w/w/w
    "when/WRB/SCONJ the/DT/DET war/NN/NOUN ended/VBD/VERB",                       # 2nd not aux
    "why/WRB/SCONJ does/VBZ/AUX ice/NN/NOUN float/VB/VERB",                       # why
    "who/WP/PRON",
])
def test_heuristic_1_rejects(spec):
    assert not heuristic_1(tagged(spec))


# heuristic 2 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [
    "who/WP/PRON sings~sing/VBZ/VERB the/DT/DET song/NN/NOUN",
    "who/WP/PRON played~play/VBD/VERB the/DT/DET villain/NN/NOUN",
    "who/WP/PRON has/VBZ/VERB the/DT/DET most/JJS/ADJ titles/NNS/NOUN",
])
def test_heuristic_2_accepts(spec):
    assert heuristic_2(tagged(spec))


@pytest.mark.parametrize("spec", [
    "who/WP/PRON is/VBZ/AUX the/DT/DET singer/NN/NOUN",          # finite be
    "who/WP/PRON were~be/VBD/AUX the/DT/DET kings/NNS/NOUN",      # finite be
    "who/WP/PRON the/DT/DET singer/NN/NOUN",                      # no verb
    "whom/WP/PRON did/VBD/AUX she/PRP/PRON marry/VB/VERB",        # not "who"
])
def test_heuristic_2_rejects(spec):
    assert not heuristic_2(tagged(spec))


# heuristic 3 ----------------------------------------------------------------------------------
def test_heuristic_3_two_proper_mentions_and_a_verb():
    q = tagged("la/NNP/PROPN dodgers/NNP/PROPN beat/VBD/VERB new/NNP/PROPN york/NNP/PROPN")
    assert entity_mentions(q) == [(0, 2), (3, 5)]
    assert heuristic_3(q)
    assert not heuristic_3(tagged("la/NNP/PROPN dodgers/NNP/PROPN won/VBD/VERB"))


def test_heuristic_3_definite_common_mentions_with_determiner():
    q = tagged("the/DT/DET capital/NN/NOUN of/IN/ADP the/DT/DET country/NN/NOUN",
               chunks=[(0, 2), (3, 5)])
    assert heuristic_3(q)


def test_heuristic_3_numbers_are_mentions():
    q = tagged("population/NN/NOUN of/IN/ADP paris/NNP/PROPN in/IN/ADP 1900/CD/NUM",
               chunks=[(0, 1), (2, 3)])
    assert len(entity_mentions(q)) == 3
    assert not heuristic_3(q)  # no adjective, adverb, verb or determiner


def test_heuristic_3_indefinite_and_possessive_phrases_are_not_mentions():
    q = tagged("how/WRB/SCONJ to/TO/PART find/VB/VERB a/DT/DET lawyer/NN/NOUN for/IN/ADP "
               "your/PRP$/PRON house/NN/NOUN", chunks=[(3, 5), (6, 8)])
    assert entity_mentions(q) == []
    assert not heuristic_3(q)


def test_heuristic_3_bare_plurals_without_finite_verb_are_kinds():
    spec = ("how/WRB/SCONJ to/TO/PART grow/VB/VERB tomatoes/NNS/NOUN in/IN/ADP "
            "pots/NNS/NOUN")
    assert entity_mentions(tagged(spec, chunks=[(3, 4), (5, 6)])) == []
    spec = ("which/WDT/DET players/NNS/NOUN scored~score/VBD/VERB goals/NNS/NOUN")
    assert len(entity_mentions(tagged(spec, chunks=[(0, 2), (3, 4)]))) == 2


def test_heuristic_3_infinitive_is_not_the_verb():
    q = tagged("how/WRB/SCONJ to/TO/PART reach/VB/VERB paris/NNP/PROPN from/IN/ADP "
               "london/NNP/PROPN")
    assert len(entity_mentions(q)) == 2
    assert not heuristic_3(q)


def test_overlapping_candidates_are_one_mention():
    q = tagged("the/DT/DET suffolk/NNP/PROPN county/NNP/PROPN police/NN/NOUN", chunks=[(0, 4)],
               ents=[(1, 3)])
    assert entity_mentions(q) == [(0, 4)]


# heuristic 4 ----------------------------------------------------------------------------------
def test_heuristic_4_category_after_preposition():
    q = tagged("who/WP/PRON played/VBD/VERB tommy/NNP/PROPN in/IN/ADP the/DT/DET "
               "film/NN/NOUN grease/NNP/PROPN")
    assert categorical_phrases(q, CATEGORIES) == [(4, 7)]
    assert heuristic_4(q, CATEGORIES)


def test_heuristic_4_category_after_relative_clause():
    q = tagged("name/NN/NOUN of/IN/ADP the/DT/DET man/NN/NOUN who/WP/PRON founded~found/VBD/VERB "
               "the/DT/DET team/NN/NOUN")
    assert heuristic_4(q, CATEGORIES)


def test_heuristic_4_wh_determiner_phrase_after_preposition():
    q = tagged("the/DT/DET institute/NN/NOUN is/VBZ/AUX in/IN/ADP which/WDT/DET "
               "indian/JJ/ADJ city/NN/NOUN")
    assert heuristic_4(q, CATEGORIES)


@pytest.mark.parametrize("spec", [
    "the/DT/DET film/NN/NOUN won/VBD/VERB awards/NNS/NOUN",                   # no prep/relcl
    "what/WP/PRON is/VBZ/AUX in/IN/ADP the/DT/DET box/NN/NOUN",               # not a category
    "the/DT/DET river/NN/NOUN that/WDT/PRON flows~flow/VBZ/VERB",             # category first
])
def test_heuristic_4_rejects(spec):
    assert not heuristic_4(tagged(spec), CATEGORIES)


# heuristic 5 ----------------------------------------------------------------------------------
def test_heuristic_5_ends_with_category_without_prepositions():
    q = tagged("longest/JJS/ADJ river/NN/NOUN")
    assert heuristic_5(q, CATEGORIES)
    q = tagged("bob/NNP/PROPN dylan/NNP/PROPN first/JJ/ADJ hit/NN/NOUN song/NN/NOUN")
    assert heuristic_5(q, CATEGORIES)


@pytest.mark.parametrize("spec", [
    "longest/JJS/ADJ river/NN/NOUN in/IN/ADP europe/NNP/PROPN",          # does not end with it
    "the/DT/DET song/NN/NOUN by/IN/ADP queen/NNP/PROPN",                  # not at the end
    "author/NN/NOUN of/IN/ADP the/DT/DET film/NN/NOUN",                   # has a preposition
    "man/NN/NOUN who/WP/PRON sang~sing/VBD/VERB the/DT/DET song/NN/NOUN",  # relative clause
])
def test_heuristic_5_rejects(spec):
    assert not heuristic_5(tagged(spec), CATEGORIES)


def test_matched_heuristics_lists_all_that_fire():
    q = tagged("who/WP/PRON sang~sing/VBD/VERB the/DT/DET song/NN/NOUN in/IN/ADP the/DT/DET "
               "film/NN/NOUN", chunks=[(2, 4), (5, 7)])
    assert matched_heuristics(q, CATEGORIES) == [2, 3, 4]
    assert matched_heuristics(tagged("cheap/JJ/ADJ flights/NNS/NOUN"), CATEGORIES) == []


# with the real model ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def nlp():
    from filters.text.spacy_models import load_english

    return load_english()


@pytest.mark.parametrize(("query", "expected"), [
    ("who wrote the novel the old man and the sea", {2}),
    ("when did the first man walk on the moon", {1}),
    ("where does the river thames start and end", {1}),
    ("what is the name of the main character in the film", {4}),
])
def test_real_model_questions_are_accepted(nlp, query, expected):
    from filters.nq.heuristics import query_view

    fired = set(matched_heuristics(query_view(nlp(query)), CATEGORIES))
    assert expected <= fired


@pytest.mark.parametrize("query", [
    "how to make a cheap wooden bookshelf for your bedroom",
    "buy cheap running shoes online with free delivery",
    "download free pdf books without registration for students",
])
def test_real_model_task_queries_are_rejected(nlp, query):
    from filters.nq.heuristics import query_view

    assert matched_heuristics(query_view(nlp(query)), CATEGORIES) == []


def test_real_model_keyword_query_with_entities_passes_rule_3(nlp):
    """Rule 3 is broad by design: two entities and an adjective make a query acceptable."""
    from filters.nq.heuristics import query_view

    query = "cheap flights london to new york in december"
    assert matched_heuristics(query_view(nlp(query)), CATEGORIES) == [3]
