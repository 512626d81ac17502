"""NQ candidates rendered as readable text, and the character-to-token map back."""

from __future__ import annotations

import gzip
import json

import pytest

from tests.transforms.annotation.label_studio.fixtures import nq_example
from transforms.annotation.render import render_candidates, tokens_in_chars


def _by_label(example: dict) -> dict[str, dict]:
    return {c["label"]: c for c in render_candidates(example)}


def test_one_entry_per_candidate_labelled_with_type_and_container():
    example = nq_example()
    rendered = render_candidates(example)
    assert [c["index"] for c in rendered] == list(range(len(example["long_answer_candidates"])))
    assert [c["label"] for c in rendered] == [
        "#0 P (top level)", "#1 Table (top level)", "#2 Tr in #1", "#3 Tr in #1",
        "#4 Ul (top level)", "#5 Li in #4", "#6 Li in #4"]


def test_only_some_candidates_keep_their_numbers_and_labels():
    example = nq_example()
    rendered = render_candidates(example)
    assert render_candidates(example, {0, 3, 4}) == [rendered[0], rendered[3], rendered[4]]
    assert render_candidates(example, set()) == []


def test_paragraph_text_tokens_joined_by_single_spaces():
    paragraph = _by_label(nq_example())["#0 P (top level)"]
    assert paragraph["text"] == "The trade winds blow from the east ."
    assert paragraph["tokens"] == list(range(5, 13))
    assert paragraph["starts"] == [0, 4, 10, 16, 21, 26, 30, 35]


def test_table_rows_on_lines_and_cells_separated_by_bars():
    rendered = _by_label(nq_example())
    assert rendered["#1 Table (top level)"]["text"] == "Name | Direction\nTrade winds | east"
    assert rendered["#2 Tr in #1"]["text"] == "Name | Direction"
    assert rendered["#3 Tr in #1"]["text"] == "Trade winds | east"


def test_list_items_on_lines_with_bullets_and_nested_lists_indented():
    rendered = _by_label(nq_example())
    assert rendered["#4 Ul (top level)"]["text"] == (
        "• Sailors used them .\n• Storms follow them .")
    assert rendered["#5 Li in #4"]["text"] == "• Sailors used them ."
    nested = render_candidates(nq_example(
        "<Ul> <Li> Winds </Li> <Li> Kinds <Ul> <Li> trade </Li> <Li> polar </Li> </Ul> </Li> "
        "</Ul>"))
    assert nested[0]["text"] == "• Winds\n• Kinds\n  • trade\n  • polar"
    assert nested[3]["label"] == "#3 Ul in #2"
    wrapped = render_candidates(nq_example("<Ul> <Li> <P> Winds </P> </Li> <Li> Calm </Li> </Ul>"))
    assert [c["text"] for c in wrapped] == ["• Winds\n• Calm", "• Winds", "Winds", "• Calm"]


def test_list_inside_a_table_cell_stays_on_the_row():
    rendered = render_candidates(nq_example(
        "<Table> <Tr> <Th> Starring </Th> <Td> <Ul> <Li> Zac Efron </Li> <Li> Vanessa Hudgens "
        "</Li> </Ul> </Td> </Tr> </Table>"))
    assert rendered[0]["text"] == "Starring | Zac Efron · Vanessa Hudgens"


def test_every_rendered_token_sits_at_its_start():
    example = nq_example()
    tokens = example["document_tokens"]
    for candidate in render_candidates(example):
        for index, start in zip(candidate["tokens"], candidate["starts"], strict=True):
            word = tokens[index]["token"]
            assert not tokens[index]["html_token"]
            assert candidate["text"][start:start + len(word)] == word


def test_char_spans_round_trip_to_token_spans():
    example = nq_example()
    tokens = example["document_tokens"]
    for candidate in render_candidates(example):
        starts, indices = candidate["starts"], candidate["tokens"]
        for first in range(len(starts)):
            for last in range(first, len(starts)):
                end = starts[last] + len(tokens[indices[last]]["token"])
                assert tokens_in_chars(candidate, starts[first], end) == (
                    indices[first], indices[last] + 1)


def test_partial_words_cover_their_tokens_and_separators_alone_cover_none():
    table = _by_label(nq_example())["#1 Table (top level)"]
    text = table["text"]
    assert tokens_in_chars(table, text.index("irect"), text.index("irect") + 2) == (20, 21)
    assert tokens_in_chars(table, text.index("Direction") - 2, text.index("Trade") + 1) == (
        20, 26)
    bar = text.index(" | ")
    assert tokens_in_chars(table, bar, bar + 3) is None
    assert tokens_in_chars(table, 5, 5) is None
    assert tokens_in_chars(table, len(text), len(text) + 4) is None
    bullet = _by_label(nq_example())["#5 Li in #4"]
    assert tokens_in_chars(bullet, 0, 2) is None
    assert tokens_in_chars(bullet, 0, 3) == (35, 36)


def test_whitespace_inside_a_token_does_not_break_the_map():
    example = nq_example("<P> NewYork is big </P>")
    example["document_tokens"][1]["token"] = "New York"
    paragraph = render_candidates(example)[0]
    assert paragraph["text"] == "New\u00a0York is big"
    assert tokens_in_chars(paragraph, 0, 8) == (1, 2)
    assert tokens_in_chars(paragraph, 4, 11) == (1, 3)


@pytest.mark.realdata
def test_real_nq_short_answers_map_back_through_the_rendered_text(shared_data):
    """Every short answer of the 5-way NQ dev examples, selected as characters in the text of
    its long answer, maps back to its own tokens."""
    checked = 0
    with gzip.open(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz", "rt") as handle:
        for line in handle:
            example = json.loads(line)
            rendered = render_candidates(example)
            assert len(rendered) == len(example["long_answer_candidates"])
            tokens = example["document_tokens"]
            for annotation in example["annotations"]:
                candidate = rendered[annotation["long_answer"]["candidate_index"]]
                for short in annotation["short_answers"]:
                    first = candidate["tokens"].index(short["start_token"])
                    last = candidate["tokens"].index(short["end_token"] - 1)
                    end = candidate["starts"][last] + len(tokens[short["end_token"] - 1]["token"])
                    assert tokens_in_chars(candidate, candidate["starts"][first], end) == (
                        short["start_token"], short["end_token"])
                    checked += 1
    assert checked >= 4
