"""Sentence offsets for ReQA (filters.text.sentences): the senter pipeline on hand-marked text."""

from __future__ import annotations

import pickle

import pytest

from filters.text.sentences import (
    SentenceSplitter,
    load_sentence_pipeline,
    split_many,
    split_sentences,
)

# Written for this test; " | " marks the gold sentence boundaries (the 16 paragraphs of the
# measurement in the filters.text.sentences docstring).
GOLD = [
    "The university was founded in 1842 by Rev. Edward Sorin. | Its main campus covers 1,261 "
    "acres near South Bend, Indiana. | Dr. Smith, the current dean, joined in 2004.",
    "In the U.S. the rate fell to 4.2% in 2019. | It rose again the following year.",
    "\"We will not give up,\" she said. | \"The fight goes on.\" | The crowd cheered.",
    "Beyoncé released her debut album, Dangerously in Love (2003), which won five Grammy "
    "Awards. | The album featured the singles \"Crazy in Love\" and \"Baby Boy\".",
    "The treaty was signed on 4 Sept. 1783 at Paris. | It ended the war.",
    "J. R. R. Tolkien wrote The Hobbit. | It was published in 1937 by George Allen & Unwin.",
    "Mount Everest is 8,848.86 m tall. | Its summit lies on the border between Nepal and "
    "China. | Climbers often start from base camp in April.",
    "Some scholars, e.g. Weber and Durkheim, disagreed. | Others did not.",
    "The company (founded c. 1900) makes tools. | Its headquarters are in St. Louis, Missouri.",
    "Why did the empire fall? | Historians cite economic decline, invasions and political "
    "instability. | No single cause explains it!",
    "The song peaked at No. 3 on the Billboard Hot 100. | It stayed on the chart for 20 weeks.",
    "He said: \"I am running for president.\" | The announcement came on a Sunday.",
    "Oxygen makes up about 21 percent of the atmosphere; nitrogen makes up about 78 percent. | "
    "Argon accounts for most of the rest.",
    "The film grossed $1.2 billion worldwide. | A sequel was announced in Nov. 2019 and "
    "released in 2022.",
    "Frédéric Chopin was born in Żelazowa Wola. | He left Poland at the age of 20, less than a "
    "month before the outbreak of the November 1830 Uprising.",
    "The Normans were the people who in the 10th and 11th centuries gave their name to "
    "Normandy, a region in France. | They were descended from Norse raiders and pirates from "
    "Denmark, Iceland and Norway.",
]


@pytest.fixture(scope="module")
def nlp():
    return load_sentence_pipeline()


def _gold(marked: str) -> tuple[str, list[str]]:
    sentences = marked.split(" | ")
    return " ".join(sentences), sentences


def test_pipeline_is_the_senter_alone(nlp):
    assert nlp.pipe_names == ["senter"]


@pytest.mark.parametrize("marked", GOLD)
def test_hand_marked_boundaries(nlp, marked):
    text, sentences = _gold(marked)
    assert [text[s:e] for s, e in split_sentences(nlp, text)] == sentences


def test_offsets_exclude_surrounding_whitespace(nlp):
    text = "  \n The tower is tall.   It was built in 1810.\n\n  "
    spans = split_sentences(nlp, text)
    assert [text[s:e] for s, e in spans] == ["The tower is tall.", "It was built in 1810."]
    for start, end in spans:
        assert not text[start].isspace() and not text[end - 1].isspace()
    assert spans == sorted(spans) and spans[0][1] <= spans[1][0]


@pytest.mark.parametrize("text, sentences", [
    ("Co-operative chairwoman Grace Chebet said: \"When you can grow food all year, you can "
     "plan for the future. That changes everything.\"",
     ["Co-operative chairwoman Grace Chebet said: \"When you can grow food all year, you can "
      "plan for the future.", "That changes everything.\""]),
    ("\"It was not easy. I'm very pleased [with what I have achieved].\"",
     ["\"It was not easy.", "I'm very pleased [with what I have achieved].\""]),
])
def test_never_splits_inside_a_word(nlp, text, sentences):
    assert [text[s:e] for s, e in split_sentences(nlp, text)] == sentences


@pytest.mark.parametrize("text", ["", "   ", "\n\t\n"])
def test_blank_text_has_no_sentence(nlp, text):
    assert split_sentences(nlp, text) == []


def test_nq_style_space_joined_tokens(nlp):
    text = ("The first Nobel Prize in Physics was awarded in 1901 to Wilhelm Conrad Röntgen , "
            "of Germany . John Bardeen is the only laureate to win the prize twice -- in 1956 "
            "and 1972 .")
    assert [text[s:e] for s, e in split_sentences(nlp, text)] == [
        "The first Nobel Prize in Physics was awarded in 1901 to Wilhelm Conrad Röntgen , "
        "of Germany .",
        "John Bardeen is the only laureate to win the prize twice -- in 1956 and 1972 ."]


def test_split_many_matches_one_by_one(nlp):
    texts = [_gold(m)[0] for m in GOLD[:5]] + [""]
    assert split_many(nlp, texts, batch_size=2) == [split_sentences(nlp, t) for t in texts]


def test_splitter_is_lazy_and_picklable():
    splitter = SentenceSplitter(batch_size=8)
    assert splitter._nlp is None
    clone = pickle.loads(pickle.dumps(splitter))
    assert clone.split("One. Two.") == [(0, 4), (5, 9)]
    assert clone.split_all(["A cat sat.", ""]) == [[(0, 10)], []]
    again = pickle.loads(pickle.dumps(clone))  # the loaded pipeline is not pickled
    assert again._nlp is None and again.batch_size == 8
