"""The ReQA paper's sentence rules (filters.text.reqa_sentences): one case per rule group of
``sb_sed.py`` (google/retrieval-qa-eval), and the offsets contract."""

from __future__ import annotations

import pickle

import pytest

from filters.text.reqa_sentences import ReqaSentenceSplitter, mark_breaks, reqa_sentence_spans


def _sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in reqa_sentence_spans(text)]


@pytest.mark.parametrize("text, expected", [
    # main split: punctuation, closing quote, whitespace, opening quote/bracket, capital/digit
    ("It rained. Then it stopped.", ["It rained.", "Then it stopped."]),
    ('He said "go." "Now" she left.', ['He said "go."', '"Now" she left.']),
    ("It ended in 1990. 1991 was calm.", ["It ended in 1990.", "1991 was calm."]),
    ("No capital after. the rule holds.", ["No capital after. the rule holds."]),
    # Wikipedia scraps and ellipses
    ("It was big.[citation needed] Then it fell.",
     ["It was big.[citation needed]", "Then it fell."]),
    ("He said [...] But nobody came.", ["He said", "[...]", "But nobody came."]),
    # rejoins: titles, abbreviations, months, initials
    ("Dr. Smith came. Gen. Lee left.", ["Dr. Smith came.", "Gen. Lee left."]),
    ("Fruit, e.g. Apples, are sweet.", ["Fruit, e.g. Apples, are sweet."]),
    ("It opened Jan. 5 and closed.", ["It opened Jan. 5 and closed."]),
    ("He met J. R. R. Tolkien there.", ["He met J. R. R. Tolkien there."]),
    ("Unlisted Sept. Meeting", ["Unlisted Sept.", "Meeting"]),
    # resplit before common sentence starts, even after a title
    ("He saw Dr. The end came.", ["He saw Dr.", "The end came."]),
    ("It grew. However it fell.", ["It grew.", "However it fell."]),
    # numbered parts, born/died, et al., H.R.
    ("See No. 5 and Vol. 3 of it.", ["See No. 5 and Vol. 3 of it."]),
    ("Smith (b. 1900) wrote.", ["Smith (b. 1900) wrote."]),
    ("Jones et al. 2005 found it.", ["Jones et al. 2005 found it."]),
    # SQuAD-specific joins and splits
    ("Warner Bros. Records signed her.", ["Warner Bros. Records signed her."]),
    ("She met Jay Z. She sang.", ["She met Jay Z.", "She sang."]),
    ("It moved to Washington, D.C. Later it grew.",
     ["It moved to Washington, D.C.", "Later it grew."]),
    ("Items: \u2022 One thing \u2022 Two things", ["Items:", "\u2022 One thing",
                                                  "\u2022 Two things"]),
])
def test_rules(text, expected):
    assert _sentences(text) == expected


def test_newlines_are_spaces_and_offsets_point_into_the_text():
    text = "  First line.\nSecond line.  \n\n Third. "
    spans = reqa_sentence_spans(text)
    assert [text[s:e] for s, e in spans] == ["First line.", "Second line.", "Third."]
    assert len(mark_breaks(text)) == len(text)
    for start, end in spans:
        assert not text[start].isspace() and not text[end - 1].isspace()


def test_blank_and_single():
    assert reqa_sentence_spans("") == []
    assert reqa_sentence_spans("   \n ") == []
    assert reqa_sentence_spans("one") == [(0, 3)]


def test_splitter_interface_is_picklable():
    splitter = pickle.loads(pickle.dumps(ReqaSentenceSplitter(batch_size=8)))
    splitter.load()
    assert splitter.split("Ab cd. Ef gh.") == [(0, 6), (7, 13)]
    assert splitter.split_all(["Ab.", ""]) == [[(0, 3)], []]
