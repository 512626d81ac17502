"""The NQ page annotators read: every candidate once, readable words, exact offsets."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.transforms.annotation.label_studio.fixtures import nq_example
from tests.transforms.annotation.page_checks import assert_cells_hold_table_text
from tests.transforms.annotation.page_examples import page_example
from transforms.annotation.page import PAGE_STYLE, page_text, render_page, words_in


def _page_example(parts: list[tuple[str, str]]) -> dict[str, Any]:
    """An example whose ``document_html`` is the parts joined as given; a part is
    ``(html, kind)``: ``tag`` (an HTML token), ``word`` (a text token) or ``gap`` (markup or
    whitespace between tokens, not a token)."""
    return page_example([(text, None if kind == "gap" else text) for text, kind in parts])


def _words(text: str) -> list[tuple[str, str]]:
    return [(word, "word") for word in text.split(" ")]


MCKINLEY = _page_example([
    ("<P>", "tag"), ("Denali", "word"), (" ", "gap"), ("(", "word"), ("formerly", "word"),
    (" ", "gap"), ("known", "word"), (" ", "gap"), ("as", "word"), (" <a href=\"x\">", "gap"),
    ("Mount", "word"), (" ", "gap"), ("McKinley", "word"), ("</a>", "gap"), (")", "word"),
    ("<sup class=\"r\">", "gap"), ("[1]", "word"), ("</sup>", "gap"), (",", "word"),
    ("</P>", "tag"),
])


def test_words_are_joined_as_the_page_joins_them_not_as_ptb_tokens():
    page = render_page(MCKINLEY)
    assert page.text == "#0 Denali (formerly known as Mount McKinley)[1],"


def test_every_word_maps_back_to_its_token_and_the_text_is_what_the_browser_counts():
    example = nq_example()
    page = render_page(example)
    assert page_text(page.html) == page.text
    tokens = example["document_tokens"]
    for token, start, length in zip(page.tokens, page.starts, page.lengths, strict=True):
        assert page.text[start:start + length] == tokens[token]["token"]
    text_tokens = [i for i, t in enumerate(tokens) if not t["html_token"]]
    heading = 2  # "Trade winds" in <H1>, shown once as a heading
    assert list(page.tokens) == text_tokens
    assert len(page.tokens) == len(set(page.tokens)) == len(text_tokens)
    assert page.text.count("Trade winds") == heading


def test_nested_candidates_are_boxes_inside_their_box_each_shown_once():
    example = nq_example()
    page = render_page(example)
    candidates = example["long_answer_candidates"]
    for index, (start, end) in enumerate(page.boxes):
        assert page.text[start:].startswith(f"#{index} ")
        inside = [t for t, s in zip(page.tokens, page.starts, strict=True) if start <= s < end]
        text = [i for i in range(candidates[index]["start_token"], candidates[index]["end_token"])
                if not example["document_tokens"][i]["html_token"]]
        assert inside == text
    table, row = page.boxes[1], page.boxes[3]
    assert table[0] < row[0] and row[1] <= table[1]
    assert page.html.count('data-candidate="3"') == 1
    assert '<td class="nq-row-tag"><span class="nq-tag">#3 </span></td>' in page.html


def test_the_markup_is_divs_spans_and_whole_tables_so_no_browser_moves_text():
    page = render_page(nq_example())
    assert set(re.findall(r"</?([a-z]+)", page.html)) == {"div", "span", "table", "tr", "td",
                                                         "th"}
    assert_cells_hold_table_text(page.html)


def test_the_page_style_survives_label_studios_sanitizer():
    assert "<" not in PAGE_STYLE and ">" not in PAGE_STYLE and "&" not in PAGE_STYLE


def test_hostile_token_text_is_escaped_and_kept_as_text():
    example = nq_example()
    token = example["document_tokens"][5]
    token["token"] = "<script>alert(1)</script>\x00&amp;"
    del token["start_byte"]  # shown as the token, not as the page's bytes ("The")
    page = render_page(example)
    assert "<script>" not in page.html and "&lt;script&gt;" in page.html
    assert "\ufffd&amp;" in page_text(page.html)
    assert page_text(page.html) == page.text


def test_words_in_finds_the_words_a_range_touches():
    starts, lengths = [0, 4, 9], [3, 4, 2]  # "abc defg hi"
    assert words_in(starts, lengths, 0, 3) == (0, 0)
    assert words_in(starts, lengths, 2, 5) == (0, 1)
    assert words_in(starts, lengths, 3, 4) is None  # the space alone
    assert words_in(starts, lengths, 8, 11) == (2, 2)
    assert words_in(starts, lengths, 5, 5) is None
    assert words_in([], [], 0, 3) is None


@pytest.mark.parametrize("missing", ["start_byte", "end_byte"])
def test_without_byte_offsets_words_are_spaced(missing):
    example = _page_example([("<P>", "tag"), *_words("a b"), ("</P>", "tag")])
    for token in example["document_tokens"]:
        token.pop(missing)
    assert render_page(example).text == "#0 a b"


def test_a_page_of_headings_and_lists_lays_out_in_reading_order():
    example = _page_example([
        ("<H2>", "tag"), *_words("History"), ("</H2>", "tag"), ("\n", "gap"),
        ("<Ul>", "tag"), ("<Li>", "tag"), *_words("one"), ("</Li>", "tag"), ("<Li>", "tag"),
        *_words("two"), ("</Li>", "tag"), ("</Ul>", "tag")])
    page = render_page(example)
    assert page.text == "History#0 #1 one#2 two"
    assert page.boxes == ((7, 22), (10, 16), (16, 22))
