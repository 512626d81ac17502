"""NQ document tokens (NQ §4.1): tag tokens, PTB-like words, skipped text, byte offsets and
broken HTML, on small pages written for each rule."""

from __future__ import annotations

import pytest

from filters.nq.tokens import NqToken, iter_tags, tokenize_nq_html

pytestmark = pytest.mark.usefixtures("tokenizer_implementation")


def strings(html: str) -> list[str]:
    return [t.token for t in tokenize_nq_html(html)]


def raw(html: str, token: NqToken) -> bytes:
    return html.encode("utf-8")[token.start_byte:token.end_byte]


# --- tag tokens -------------------------------------------------------------------------

def test_only_heading_paragraph_table_and_list_tags_become_tokens():
    html = ("<div><h1>T</h1><h4>S</h4><p>a <b>b</b> <span>c</span><br>d</p>"
            "<table><caption>k</caption><thead><tr><th>e</th></tr></thead><tbody><tr><td>f</td>"
            "</tr></tbody></table><ul><li>g</li></ul><ol><li>h</li></ol>"
            "<dl><dt>i</dt><dd>j</dd></dl></div>")
    assert strings(html) == [
        "<H1>", "T", "</H1>", "<H4>", "S", "</H4>", "<P>", "a", "b", "c", "d", "</P>",
        "<Table>", "k", "<Tr>", "<Th>", "e", "</Th>", "</Tr>", "<Tr>", "<Td>", "f", "</Td>",
        "</Tr>", "</Table>", "<Ul>", "<Li>", "g", "</Li>", "</Ul>", "<Ol>", "<Li>", "h",
        "</Li>", "</Ol>", "<Dl>", "<Dt>", "i", "</Dt>", "<Dd>", "j", "</Dd>", "</Dl>"]


def test_tag_spelling_keeps_only_colspan_on_cells_whatever_the_case():
    html = ('<TABLE class="wikitable" colspan="3"><TR style="x"><TH scope="col" '
            'class="navbox-title" colspan="2">a</TH><TD rowspan="2" colspan=4 align=center>b'
            "</TD><td rowspan='3'>c</td><Td COLSPAN='5'>d</Td></TR></TABLE>")
    tags = [t for t in strings(html) if t.startswith("<")]
    assert tags == ["<Table>", "<Tr>", '<Th colspan="2">', "</Th>", '<Td colspan="4">',
                    "</Td>", "<Td>", "</Td>", '<Td colspan="5">', "</Td>", "</Tr>", "</Table>"]


def test_tag_token_spans_the_whole_tag_with_its_attributes():
    html = '<P class="x">Hi</P >'
    tokens = tokenize_nq_html(html)
    assert [raw(html, t) for t in tokens] == [b'<P class="x">', b"Hi", b"</P >"]
    html = '<table><tr><th scope="col" colspan="2">a</th></tr></table>'
    th = tokenize_nq_html(html)[2]
    assert th.token == '<Th colspan="2">' and raw(html, th) == b'<th scope="col" colspan="2">'


def test_nq_token_to_dict():
    token = NqToken("<P>", 3, 6, True)
    assert token.to_dict() == {"token": "<P>", "start_byte": 3, "end_byte": 6,
                               "html_token": True}


# --- what is not tokenized ------------------------------------------------------------

def test_title_comes_first_and_the_rest_of_head_gives_nothing():
    html = ("<html><head><meta charset='utf-8'><title>Trade winds - Wikipedia</title>"
            "<style>p{color:red}</style><script>var x = '<p>';</script></head>"
            "<body><h1>Trade winds</h1></body></html>")
    assert strings(html) == ["Trade", "winds", "-", "Wikipedia", "<H1>", "Trade", "winds",
                             "</H1>"]


def test_sup_style_script_noscript_template_and_comments_are_not_tokenized():
    html = ("<p>Winds<sup class='reference'><a>[1]</a></sup> blow<sup>2</sup>."
            "<style>.a{}</style><script>x()</script><noscript><img src=x>no js</noscript>"
            "<template>t</template><!-- hidden --> on.</p>")
    assert strings(html) == ["<P>", "Winds", "blow", ".", "on", ".", "</P>"]


@pytest.mark.parametrize("element", [
    '<div id="siteSub" class="noprint">From Wikipedia, the free encyclopedia</div>',
    '<sup class="noprint Inline-Template">[<i>citation needed</i>]</sup>',
    '<span class="collapseButton">[<a href="#">show</a>]</span>',
    '<div class="plainlinks hlist navbar mini"><abbr>v</abbr></div>',
])
def test_text_of_noprint_navbar_and_collapse_buttons_is_skipped(element):
    assert strings(f"<div>Before <span>{element}</span> after</div>") == ["Before", "after"]


def test_skipped_elements_still_give_their_tag_tokens():
    html = '<div class="navbar"><ul><li>v</li><li>t</li></ul></div>'
    assert strings(html) == ["<Ul>", "<Li>", "</Li>", "<Li>", "</Li>", "</Ul>"]


def test_skin_navigation_menus_are_skipped_except_interlanguage_links():
    html = ('<div id="mw-navigation"><h2>Navigation menu</h2><div id="p-personal"><ul>'
            '<li>Not logged in</li></ul></div><div id="p-lang"><h3 id="p-lang-label">'
            'Languages</h3><ul><li><a>Deutsch</a></li></ul></div></div>'
            '<div id="footer"><ul id="footer-info"><li>Last edited</li></ul>'
            '<ul id="footer-places"><li>Privacy policy</li></ul></div>')
    assert strings(html) == ["<H2>", "</H2>", "<Ul>", "<Li>", "</Li>", "</Ul>", "<H3>",
                             "</H3>", "<Ul>", "<Li>", "Deutsch", "</Li>", "</Ul>", "<Ul>",
                             "<Li>", "Last", "edited", "</Li>", "</Ul>", "<Ul>", "<Li>",
                             "</Li>", "</Ul>"]


def test_keep_element_outside_a_skipped_region_does_not_unskip_sup():
    assert strings('<div id="p-lang"><p>a<sup>[1]</sup></p></div>') == ["<P>", "a", "</P>"]


# --- words ----------------------------------------------------------------------------

def test_entities_are_unescaped_and_tokens_span_them():
    html = "<p>&quot;A&amp;M&quot; Earth&#39;s &#x27;x&#x27; a&nbsp;b caf&eacute;</p>"
    tokens = tokenize_nq_html(html)[1:-1]
    assert [t.token for t in tokens] == ["``", "A&M", "''", "Earth", "'s", "'", "x", "'", "a",
                                         "b", "café"]
    assert [raw(html, t) for t in tokens] == [
        b"&quot;", b"A&amp;M", b"&quot;", b"Earth", b"&#39;s", b"&#x27;", b"x", b"&#x27;",
        b"a", b"b", b"caf&eacute;"]


def test_words_span_inline_tags_but_tags_between_letters_separate_words():
    html = "<p><i>Marine Geology</i>. <b>208</b> founder<a href='x'>Stephen</a> U<b>.</b>S</p>"
    tokens = tokenize_nq_html(html)
    assert [t.token for t in tokens] == ["<P>", "Marine", "Geology.", "208", "founder",
                                         "Stephen", "U.", "S", "</P>"]
    assert raw(html, tokens[2]) == b"Geology</i>."


def test_block_tags_and_br_separate_words():
    assert strings("<div>one</div><div>two</div>three<br>four<br/>five") == [
        "one", "two", "three", "four", "five"]


def test_byte_offsets_are_exact_for_multibyte_text():
    html = "<title>Café – Ünïcode</title><p>naïve 日本語 “quoted” Ελληνικά.</p>"
    tokens = tokenize_nq_html(html)
    encoded = html.encode("utf-8")
    for token in tokens:
        piece = encoded[token.start_byte:token.end_byte].decode("utf-8")
        if token.html_token:
            assert piece.lower().startswith(token.token.lower()[:3])
        elif token.token not in ("``", "''", "--"):
            assert piece == token.token
    assert [t.token for t in tokens] == ["Café", "--", "Ünïcode", "<P>", "naïve", "日本語",
                                         "``", "quoted", "''", "Ελληνικά", ".", "</P>"]


# --- broken HTML ----------------------------------------------------------------------

def test_implied_end_tags_get_zero_width_closing_tokens():
    html = "<ul><li>one<li>two</ul><p>para<p>next<table><tr><td>a<td>b<tr><td>c</table>"
    tokens = tokenize_nq_html(html)
    assert [t.token for t in tokens] == [
        "<Ul>", "<Li>", "one", "</Li>", "<Li>", "two", "</Li>", "</Ul>", "<P>", "para", "</P>",
        "<P>", "next", "</P>", "<Table>", "<Tr>", "<Td>", "a", "</Td>", "<Td>", "b", "</Td>",
        "</Tr>", "<Tr>", "<Td>", "c", "</Td>", "</Tr>", "</Table>"]
    first_li_close = tokens[3]
    assert first_li_close.start_byte == first_li_close.end_byte == html.index("<li>two")
    assert raw(html, tokens[7]) == b"</ul>"


def test_unclosed_elements_close_at_the_end_of_the_page():
    html = "<div><ul><li>open"
    tokens = tokenize_nq_html(html)
    assert [t.token for t in tokens] == ["<Ul>", "<Li>", "open", "</Li>", "</Ul>"]
    assert tokens[-1].start_byte == tokens[-1].end_byte == len(html)


def test_stray_end_tags_and_misnested_inline_tags_are_ignored():
    assert strings("</p></li><p><b>bold<i>both</b>italic</i></p></td>") == [
        "<P>", "bold", "both", "italic", "</P>"]


@pytest.mark.parametrize("html,expected", [
    ("<p>a < b and c > d</p>", ["<P>", "a", "<", "b", "and", "c", ">", "d", "</P>"]),
    ("<p>x<!-- never closed <p>y", ["<P>", "x", "</P>"]),
    ('<p>a <a title="unclosed>b</a> c</p>', ["<P>", "a", "b", "c", "</P>"]),
    ("<p>a</p><p", ["<P>", "a", "</P>", "<", "p"]),
    ("", []),
    ("just text", ["just", "text"]),
])
def test_malformed_markup_never_fails(html, expected):
    assert strings(html) == expected


def test_tags_stay_balanced_on_tag_soup():
    html = "<table><td><ul><li><p>a<li>b</table><dl><dt>c<dd>d<dt>e</dl></li><h2>f<h3>g"
    stack = []
    for token in tokenize_nq_html(html):
        if token.html_token and token.token.startswith("</"):
            assert stack.pop() == token.token[2:-1]
        elif token.html_token:
            stack.append(token.token[1:-1])
    assert stack == []


def test_iter_tags_steps_over_raw_text_and_reports_comments():
    tags = list(iter_tags(b"<script>if (a<b) {}</script><!-- c --><P class=x>"))
    assert [(t.name, t.closing) for t in tags] == [("script", False), ("script", True),
                                                   ("", False), ("p", False)]


def test_iter_tags_gives_byte_spans_around_comments_and_raw_text():
    data = b"<p>a<!-- <b> --><style>p>i{}</style><i>b</i><!-- open <p>"
    tags = [(t.name, t.closing, data[t.start:t.end]) for t in iter_tags(data)]
    assert tags == [("p", False, b"<p>"), ("", False, b"<!-- <b> -->"),
                    ("style", False, b"<style>"), ("style", True, b"</style>"),
                    ("i", False, b"<i>"), ("i", True, b"</i>"),
                    ("", False, b"<!-- open <p>")]


# --- speed paths keep the same tokens ---------------------------------------------------

def test_nq_token_is_a_value():
    token = NqToken("a", 0, 1, False)
    assert token == NqToken("a", 0, 1, False) and len({token, NqToken("a", 0, 1, False)}) == 1
    assert (token.token, token.start_byte, token.end_byte, token.html_token) == ("a", 0, 1,
                                                                                  False)


def test_byte_spans_across_entities_non_ascii_and_inline_tags():
    html = "<p>\n  <b>Café</b>&amp;co — naïve&#39;s <i>x</i>y “z”</p>"
    tokens = [t for t in tokenize_nq_html(html) if not t.html_token]
    assert [(t.token, raw(html, t).decode()) for t in tokens] == [
        ("Café&co", "Café</b>&amp;co"), ("--", "—"), ("naïve", "naïve"), ("'s", "&#39;s"),
        ("x", "x"), ("y", "y"), ("``", "“"), ("z", "z"), ("''", "”")]


def test_leading_white_space_text_nodes_change_no_span():
    html = "<ul>\n <li>\n\t<span> </span> <a>G. E.</a> Moore, Jr.</li></ul>"
    tokens = [t for t in tokenize_nq_html(html) if not t.html_token]
    assert [(t.token, raw(html, t).decode()) for t in tokens] == [
        ("G.E.", "G. E."), ("Moore", "Moore"), (",", ","), ("Jr", "Jr"), (".", ".")]


def test_repeated_attributes_are_read_for_each_tag():
    html = ('<p><span class="noprint">hidden</span><span class="noprint">again</span>'
            '<span class="x">shown</span><sup class="x">1</sup><span class="x">too</span></p>')
    assert strings(html) == ["<P>", "shown", "too", "</P>"]
