import pytest

from filters.nq.category_lexicon import CategoryLexicon, lexicon_tsv
from filters.nq.hearst import hearst_matches


@pytest.fixture(scope="module")
def nlp():
    from filters.text.spacy_models import load_english

    return load_english(exclude=("ner",))


@pytest.mark.parametrize(("sentence", "pattern", "hypernym", "hyponyms"), [
    ("Several European countries, such as France, Germany and Italy, use the euro.",
     "such_as", "country", ("france", "germany", "italy")),
    ("Such composers as Bach and Handel wrote for the organ.",
     "such_np_as", "composer", ("bach", "handel")),
    ("Rivers, lakes or other bodies of water froze.", "or_other", "body", ("rivers", "lakes")),
    ("He wrote poems, plays and other works.", "and_other", "work", ("poems", "plays")),
    ("The zoo keeps large mammals, including elephants, giraffes and rhinos.",
     "including", "mammal", ("elephants", "giraffes", "rhinos")),
    ("The museum shows paintings, especially landscapes by Dutch artists.",
     "especially", "painting", ("landscapes",)),
])
def test_each_hearst_pattern(nlp, sentence, pattern, hypernym, hyponyms):
    matches = list(hearst_matches(nlp(sentence)))
    assert [(m.pattern, m.hypernym, m.hyponyms) for m in matches] == [
        (pattern, hypernym, hyponyms)]


@pytest.mark.parametrize("sentence", [
    "The river flows through the city.",
    "Things such as these matter.",              # vague hypernym
    "He visited Paris, Rome and Berlin.",        # a list without a pattern
])
def test_no_match(nlp, sentence):
    assert list(hearst_matches(nlp(sentence))) == []


def test_lexicon_roundtrip_and_min_count():
    text = lexicon_tsv([("river", 3, 5, ["nile", "amazon"]), ("film", 1, 1, ["jaws"])])
    assert text.splitlines()[0] == "lemma\tcount\tdistinct_hyponyms\texamples"
    assert text.splitlines()[1] == "river\t3\t5\tnile|amazon"
    lexicon = CategoryLexicon.from_tsv(text, min_count=2)
    assert "river" in lexicon and "River" in lexicon
    assert "film" not in lexicon
    assert len(lexicon) == 1
    with pytest.raises(ValueError):
        CategoryLexicon.from_tsv("word\tcount\nx\t1\n")
