"""NQ long-answer candidates (NQ §3, README): candidate tags, spans, top_level, order, every
exclusion rule, desktop and Parsoid pages, broken HTML, and the official
``simplify_nq_example`` round trip."""

from __future__ import annotations

import copy

import pytest
from natural_questions import text_utils

from filters.nq.candidates import (
    LongAnswerCandidate,
    is_stop_heading,
    long_answer_candidates,
    nq_document,
)
from filters.nq.tokens import tokenize_nq_html

pytestmark = pytest.mark.usefixtures("tokenizer_implementation")

DESKTOP = """<!DOCTYPE html>
<HTML lang="en"><HEAD><TITLE>Trade winds - Wikipedia</TITLE>
<STYLE>.mw-body{color:black}</STYLE></HEAD>
<BODY class="mediawiki"><DIV id="content">
<H1 id="firstHeading">Trade winds</H1>
<DIV id="siteSub" class="noprint">From Wikipedia, the free encyclopedia</DIV>
<DIV id="mw-content-text"><DIV class="mw-parser-output">
<TABLE class="infobox"><TBODY>
<TR><TH colspan="2">Trade winds</TH></TR>
<TR><TH>Type</TH><TD>Prevailing wind</TD></TR>
<TR><TD colspan="2"><P>Short</P></TD></TR>
<TR><TD colspan="2"><P>A longer paragraph in a cell</P></TD></TR>
<TR><TD><IMG src="x.png"></TD></TR>
</TBODY></TABLE>
<P>The <B>trade winds</B> are the prevailing easterly winds.<SUP class="reference">[1]</SUP></P>
<P></P>
<DIV id="toc" class="toc"><H2>Contents</H2><UL><LI>1 History</LI><LI>2 See also</LI></UL></DIV>
<H2><SPAN class="mw-headline">History</SPAN><SPAN class="mw-editsection">[<A>edit</A>]</SPAN></H2>
<P>Sailors used them.</P>
<UL><LI>One sailor<UL><LI>His ship</LI></UL></LI><LI>Another</LI></UL>
<DL><DT>Term</DT><DD>Its definition</DD></DL>
<H3><SPAN class="mw-headline">Notes on sailing</SPAN></H3>
<P>Still content.</P>
<H2><SPAN class="mw-headline">See also</SPAN><SPAN class="mw-editsection">[<A>edit</A>]</SPAN></H2>
<UL><LI>Monsoon</LI></UL>
<H2><SPAN class="mw-headline">References</SPAN></H2>
<OL class="references"><LI>A reference.</LI></OL>
</DIV></DIV>
<DIV id="catlinks"><UL><LI>Category: Winds</LI></UL></DIV>
</DIV>
<DIV id="mw-navigation"><H2>Navigation menu</H2><UL><LI>Main page</LI></UL></DIV>
</BODY></HTML>"""

PARSOID = """<!DOCTYPE html>
<html prefix="dc: http://purl.org/dc/terms/ mw: http://mediawiki.org/rdf/"><head>
<meta charset="utf-8"/><title>Trade winds</title></head>
<body class="mw-content-ltr parsoid-body mediawiki mw-parser-output" lang="en">
<section data-mw-section-id="0"><p id="mwAQ">The <b>trade winds</b> blow.<sup
 class="mw-ref reference" typeof="mw:Extension/ref"><a><span class="mw-reflink-text">[1]</span>
</a></sup></p>
<table class="wikitable"><tbody><tr><th>Year</th><td>1901</td></tr></tbody></table></section>
<section data-mw-section-id="1"><h2 id="History">History</h2><p>Sailors used them.</p>
<ol><li>First</li><li>Second</li></ol></section>
<section data-mw-section-id="2"><h2 id="Notes_and_references">Notes and references</h2>
<div class="mw-references-wrap"><ol class="mw-references references"><li>Ref.</li></ol></div>
</section>
</body></html>"""


def described(html: str) -> list[tuple[str, bool, str]]:
    """(tag, top_level, first words) of each candidate."""
    tokens, candidates = nq_document(html)
    return [(c.tag, c.top_level, " ".join(t.token for t in tokens[c.start_token:c.end_token]
                                           if not t.html_token)[:30]) for c in candidates]


def test_desktop_page_candidates_in_order_with_top_level():
    assert described(DESKTOP) == [
        ("table", True, "Trade winds Type Prevailing wi"),
        ("tr", False, "Trade winds"),
        ("tr", False, "Type Prevailing wind"),
        ("tr", False, "Short"),
        ("tr", False, "A longer paragraph in a cell"),
        ("p", False, "A longer paragraph in a cell"),
        ("p", True, "The trade winds are the prevai"),
        ("p", True, "Sailors used them ."),
        ("ul", True, "One sailor His ship Another"),
        ("li", False, "One sailor His ship"),
        ("ul", False, "His ship"),
        ("li", False, "His ship"),
        ("li", False, "Another"),
        ("dl", True, "Term Its definition"),
        ("dt", False, "Term"),
        ("dd", False, "Its definition"),
        ("p", True, "Still content ."),
    ]


def test_spans_select_the_element_bytes_and_its_tag_tokens():
    tokens, candidates = nq_document(DESKTOP)
    encoded = DESKTOP.encode("utf-8")
    for c in candidates:
        element = encoded[c.start_byte:c.end_byte].decode()
        assert element.upper().startswith("<" + c.tag.upper())
        assert element.upper().endswith("</" + c.tag.upper() + ">")
        assert tokens[c.start_token].token.lower().startswith("<" + c.tag)
        assert tokens[c.end_token - 1].token.lower() == "</" + c.tag + ">"
        assert tokens[c.start_token].start_byte == c.start_byte
        assert tokens[c.end_token - 1].end_byte == c.end_byte
    assert [c.start_token for c in candidates] == sorted(c.start_token for c in candidates)


def test_top_level_is_false_exactly_when_nested_in_another_candidate():
    _, candidates = nq_document(DESKTOP)
    for c in candidates:
        nested = any(o is not c and o.start_token <= c.start_token and c.end_token <= o.end_token
                     for o in candidates)
        assert c.top_level == (not nested)


@pytest.mark.parametrize("words", [
    "See also", "References", "External links", "Notes", "Further reading", "Bibliography",
    "Sources", "Citations", "Footnotes", "Works cited", "Notes and references",
    "References and notes", "Notes , citations and sources", "See also ( edit )",
])
def test_stop_headings(words):
    assert is_stop_heading(words.split())


@pytest.mark.parametrize("words", ["History", "Notes on sailing", "Sources of funding",
                                   "Reception and legacy", "Contents", ""])
def test_content_headings(words):
    assert not is_stop_heading(words.split())


def test_nothing_from_the_first_stop_heading_on_and_nothing_outside_the_body():
    tokens, candidates = nq_document(DESKTOP)
    texts = {" ".join(t.token for t in tokens[c.start_token:c.end_token]) for c in candidates}
    for excluded in ("Monsoon", "A reference", "Category", "Main page", "1 History"):
        assert not any(excluded in text for text in texts)


def test_an_h3_stop_word_is_not_a_stop_heading():
    assert ("p", True, "Still content .") in described(DESKTOP)


def test_toc_list_is_not_a_candidate_but_is_tokenized():
    tokens, candidates = nq_document(DESKTOP)
    toc = next(i for i, t in enumerate(tokens) if t.token == "History" and
               tokens[i - 1].token == "1")
    assert tokens[toc - 2].token == "<Li>"
    assert all(not (c.start_token <= toc < c.end_token) for c in candidates)


def test_empty_elements_are_not_candidates():
    html = "<p></p><p><img src=x></p><ul><li> </li></ul><p>Text</p>"
    assert described(html) == [("p", True, "Text")]


def test_short_elements_inside_tables_are_not_candidates():
    html = ("<table><tr><td><p>United Kingdom</p><ul><li>A</li><li>B C D</li></ul></td></tr>"
            "<tr><th>Production</th></tr></table><ul><li>Short</li></ul>")
    assert described(html) == [
        ("table", True, "United Kingdom A B C D Product"),
        ("tr", False, "United Kingdom A B C D"),
        ("ul", False, "A B C D"),
        ("li", False, "B C D"),
        ("tr", False, "Production"),
        ("ul", True, "Short"),
        ("li", False, "Short"),
    ]


def test_pages_without_a_content_container_use_the_whole_page():
    assert described("<h2>Intro</h2><p>One.</p><h2>See also</h2><p>Two.</p>") == [
        ("p", True, "One .")]


def test_parsoid_page():
    assert described(PARSOID) == [
        ("p", True, "The trade winds blow ."),
        ("table", True, "Year 1901"),
        ("tr", False, "Year 1901"),
        ("p", True, "Sailors used them ."),
        ("ol", True, "First Second"),
        ("li", False, "First"),
        ("li", False, "Second"),
    ]
    tokens, _ = nq_document(PARSOID)
    assert [t.token for t in tokens[:3]] == ["Trade", "winds", "<P>"]


def test_candidates_from_given_tokens_equal_nq_document():
    for html in (DESKTOP, PARSOID):
        tokens, candidates = nq_document(html)
        assert long_answer_candidates(html, tokenize_nq_html(html)) == candidates
        assert tokens == tokenize_nq_html(html)


def test_candidates_follow_the_given_tokens_indices():
    tokens = tokenize_nq_html(PARSOID)
    extra = [tokens[0], *tokens]  # a token stream with one more word in front
    shifted = long_answer_candidates(PARSOID, extra)
    plain = long_answer_candidates(PARSOID, tokens)
    assert [c.start_token - 1 for c in shifted] == [c.start_token for c in plain]
    assert [c.start_byte for c in shifted] == [c.start_byte for c in plain]


def test_broken_html_candidates_end_on_their_closing_tokens():
    html = "<ul><li>one<li>two</ul><p>para<p>next<table><tr><td>a b c<tr><td>d e f"
    tokens, candidates = nq_document(html)
    assert [c.tag for c in candidates] == ["ul", "li", "li", "p", "p", "table", "tr", "tr"]
    for c in candidates:
        assert tokens[c.end_token - 1].token == f"</{c.tag.capitalize()}>"
        assert tokens[c.end_token - 1].end_byte == c.end_byte
    assert candidates[1].end_byte == html.index("<li>two")  # implied </li>: zero width
    assert candidates[-1].end_byte == len(html)


def test_candidate_to_dict_has_the_nq_fields_only():
    candidate = LongAnswerCandidate(1, 5, 10, 50, True, "p")
    assert candidate.to_dict() == {"start_byte": 10, "end_byte": 50, "start_token": 1,
                                   "end_token": 5, "top_level": True}


def nq_example(html: str) -> dict:
    tokens, candidates = nq_document(html)
    first = candidates[0]
    return {
        "example_id": 1, "question_text": "what are trade winds", "document_url": "u",
        "document_html": html,
        "document_tokens": [t.to_dict() for t in tokens],
        "long_answer_candidates": [c.to_dict() for c in candidates],
        "annotations": [{
            "annotation_id": 2, "yes_no_answer": "NONE",
            "long_answer": {**first.to_dict(), "candidate_index": 0},
            "short_answers": [{"start_byte": tokens[first.start_token + 1].start_byte,
                               "end_byte": tokens[first.start_token + 1].end_byte,
                               "start_token": first.start_token + 1,
                               "end_token": first.start_token + 2}],
        }],
    }


@pytest.mark.parametrize("html", [DESKTOP, PARSOID])
def test_simplify_nq_example_round_trip(html):
    example = nq_example(html)
    tokens = example["document_tokens"]
    simple = text_utils.simplify_nq_example(copy.deepcopy(example))
    words = simple["document_text"].split(" ")
    assert len(words) == len(tokens)
    for candidate in simple["long_answer_candidates"]:
        span = words[candidate["start_token"]:candidate["end_token"]]
        expected = [t["token"].replace(" ", "_") for t in
                    tokens[candidate["start_token"]:candidate["end_token"]]]
        assert span == expected
        assert span[0].startswith("<") and span[-1].startswith("</")
    short = simple["annotations"][0]["short_answers"][0]
    assert words[short["start_token"]:short["end_token"]] == [
        tokens[short["start_token"]]["token"]]
    assert '<Th_colspan="2">' in words or html is PARSOID


def test_current_desktop_headings_wrapped_in_mw_heading_divs():
    html = ('<div id="mw-content-text"><div class="mw-parser-output"><p>Lead text.</p>'
            '<div class="mw-heading mw-heading2"><h2 id="See_also">See also</h2>'
            '<span class="mw-editsection"><span class="mw-editsection-bracket">[</span>'
            '<a>edit</a><span class="mw-editsection-bracket">]</span></span></div>'
            "<ul><li>Monsoon</li></ul></div></div>")
    assert described(html) == [("p", True, "Lead text .")]


def test_singular_source_heading_is_content_not_references():
    from filters.nq.candidates import is_stop_heading

    assert is_stop_heading(["Sources"])
    assert is_stop_heading(["Notes", "and", "references"])
    assert not is_stop_heading(["Source"])  # a river's source is article content
