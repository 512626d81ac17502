"""The C walker ``filters.nq._walker.scan`` gives exactly the tokens and regions of the Python
``_Walker`` of :mod:`filters.nq.tokens` (the reference): on every snippet of the token and
candidate tests, on seeded tag soup, on the bundled sample pages and on the shared NQ and TyDi
pages; errors raised by ``split`` or ``region_of`` propagate."""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from filters.nq.candidates import page_region
from filters.nq.text_tokens import tokenize_text
from filters.nq.tokens import NATIVE_TOKENS, NqToken, Region, RegionOf, _Walker, scan_nq_html
from tests.filters.nq.test_candidates import DESKTOP, PARSOID

_walker = pytest.importorskip("filters.nq._walker")
pytest.importorskip("filters.nq._ptb")
assert NATIVE_TOKENS  # both built: scan_nq_html runs the C walker with the C splitter

PROJECT_ROOT = Path(__file__).resolve().parents[3]
SAMPLES = PROJECT_ROOT / "pipelines" / "samples"
Result = tuple[list[NqToken], list[Region]]


def python_scan(html: str, region_of: RegionOf | None, words: bool) -> Result:
    """The reference: the Python walker's tokens and regions."""
    walker = _Walker(html, region_of, words)
    tokens = walker.walk()
    return tokens, walker.regions


def c_scan(html: str, region_of: RegionOf | None, words: bool,
           split: Callable[[str], list] = tokenize_text) -> Result:
    """The C walker with the Python text tokenizer."""
    return _walker.scan(html, split, region_of, words, NqToken, Region)


def assert_same(html: str) -> None:
    """Equal tokens (of type NqToken) and regions, with and without region_of and words;
    with words, also through the public ``scan_nq_html`` (the C walker with the C word
    splitter, what the pipelines run)."""
    for region_of in (page_region, None):
        for words in (True, False):
            expected = python_scan(html, region_of, words)
            got = c_scan(html, region_of, words)
            assert got == expected, (html[:300], region_of, words)
            assert all(type(token) is NqToken for token in got[0])
            assert all(type(region) is Region for region in got[1])
            if region_of is not None:
                assert scan_nq_html(html, region_of, words) == expected, (html[:300], words)


# --- 1. the snippets of test_tokens.py and test_candidates.py ----------------------------

SNIPPETS = [
    # test_tokens.py
    "<div><h1>T</h1><h4>S</h4><p>a <b>b</b> <span>c</span><br>d</p>"
    "<table><caption>k</caption><thead><tr><th>e</th></tr></thead><tbody><tr><td>f</td>"
    "</tr></tbody></table><ul><li>g</li></ul><ol><li>h</li></ol>"
    "<dl><dt>i</dt><dd>j</dd></dl></div>",
    '<TABLE class="wikitable" colspan="3"><TR style="x"><TH scope="col" '
    'class="navbox-title" colspan="2">a</TH><TD rowspan="2" colspan=4 align=center>b'
    "</TD><td rowspan='3'>c</td><Td COLSPAN='5'>d</Td></TR></TABLE>",
    '<P class="x">Hi</P >',
    '<table><tr><th scope="col" colspan="2">a</th></tr></table>',
    "<html><head><meta charset='utf-8'><title>Trade winds - Wikipedia</title>"
    "<style>p{color:red}</style><script>var x = '<p>';</script></head>"
    "<body><h1>Trade winds</h1></body></html>",
    "<p>Winds<sup class='reference'><a>[1]</a></sup> blow<sup>2</sup>."
    "<style>.a{}</style><script>x()</script><noscript><img src=x>no js</noscript>"
    "<template>t</template><!-- hidden --> on.</p>",
    *(f"<div>Before <span>{element}</span> after</div>" for element in (
        '<div id="siteSub" class="noprint">From Wikipedia, the free encyclopedia</div>',
        '<sup class="noprint Inline-Template">[<i>citation needed</i>]</sup>',
        '<span class="collapseButton">[<a href="#">show</a>]</span>',
        '<div class="plainlinks hlist navbar mini"><abbr>v</abbr></div>')),
    '<div class="navbar"><ul><li>v</li><li>t</li></ul></div>',
    '<div id="mw-navigation"><h2>Navigation menu</h2><div id="p-personal"><ul>'
    '<li>Not logged in</li></ul></div><div id="p-lang"><h3 id="p-lang-label">'
    'Languages</h3><ul><li><a>Deutsch</a></li></ul></div></div>'
    '<div id="footer"><ul id="footer-info"><li>Last edited</li></ul>'
    '<ul id="footer-places"><li>Privacy policy</li></ul></div>',
    '<div id="p-lang"><p>a<sup>[1]</sup></p></div>',
    "<p>&quot;A&amp;M&quot; Earth&#39;s &#x27;x&#x27; a&nbsp;b caf&eacute;</p>",
    "<p><i>Marine Geology</i>. <b>208</b> founder<a href='x'>Stephen</a> U<b>.</b>S</p>",
    "<div>one</div><div>two</div>three<br>four<br/>five",
    "<title>Café – Ünïcode</title><p>naïve 日本語 “quoted” Ελληνικά.</p>",
    "<ul><li>one<li>two</ul><p>para<p>next<table><tr><td>a<td>b<tr><td>c</table>",
    "<div><ul><li>open",
    "</p></li><p><b>bold<i>both</b>italic</i></p></td>",
    "<p>a < b and c > d</p>",
    "<p>x<!-- never closed <p>y",
    '<p>a <a title="unclosed>b</a> c</p>',
    "<p>a</p><p",
    "",
    "just text",
    "<table><td><ul><li><p>a<li>b</table><dl><dt>c<dd>d<dt>e</dl></li><h2>f<h3>g",
    "<script>if (a<b) {}</script><!-- c --><P class=x>",
    "<p>a<!-- <b> --><style>p>i{}</style><i>b</i><!-- open <p>",
    "<p>\n  <b>Café</b>&amp;co — naïve&#39;s <i>x</i>y “z”</p>",
    "<ul>\n <li>\n\t<span> </span> <a>G. E.</a> Moore, Jr.</li></ul>",
    '<p><span class="noprint">hidden</span><span class="noprint">again</span>'
    '<span class="x">shown</span><sup class="x">1</sup><span class="x">too</span></p>',
    # test_candidates.py
    DESKTOP,
    PARSOID,
    "<ul><li>one<li>two</ul><p>para<p>next<table><tr><td>a b c<tr><td>d e f",
    '<div id="mw-content-text"><div class="mw-parser-output"><p>Lead text.</p>'
    '<div class="mw-heading mw-heading2"><h2 id="See_also">See also</h2>'
    '<span class="mw-editsection"><span class="mw-editsection-bracket">[</span>'
    '<a>edit</a><span class="mw-editsection-bracket">]</span></span></div>'
    "<ul><li>Monsoon</li></ul></div></div>",
]


@pytest.mark.parametrize("html", SNIPPETS)
def test_snippets_of_the_python_tests(html: str) -> None:
    """Every hand-written page of the token and candidate tests."""
    assert_same(html)


def test_tokens_are_nq_tokens_built_in_c() -> None:
    """The tokens are NqToken values, tag spellings as html_token_text gives them."""
    tokens, regions = c_scan('<div id="toc"><TD colspan=" &#50; ">x</TD></div>', page_region,
                             True)
    assert tokens == [NqToken('<Td colspan="2">', 14, 36, True), NqToken("x", 36, 37, False),
                      NqToken("</Td>", 37, 42, True)]
    assert regions == [Region("toc", 0, 48)]


# --- 2. seeded tag soup ----------------------------------------------------------------

_NAMES = [
    "p", "table", "tr", "td", "th", "ul", "ol", "li", "dl", "dd", "dt", "h1", "h2", "h3",
    "h6", "a", "b", "i", "span", "small", "sup", "sub", "abbr", "br", "wbr", "img", "hr",
    "meta", "link", "base", "input", "script", "style", "title", "textarea", "xmp", "noscript",
    "iframe", "noembed", "noframes", "head", "body", "html", "template", "div", "section",
    "tbody", "thead", "tfoot", "caption", "menu", "blockquote", "pre", "nav", "form", "center",
    "object", "marquee", "applet", "foo", "x-y", "a:b", "my_tag", "listing",
]
_ATTRS = [
    "", "", "", " ", ' class="noprint"', " class='navbar mini'", ' class="a collapseButton"',
    ' class="toc"', " CLASS=toc", ' class=" noprint\u3000"', ' class="NOPRINT"',
    ' id="siteSub"', ' id="mw-navigation"', " id='p-lang'", ' id="p-lang-label"',
    ' id="footer-places"', ' id="footer-icons"', ' id="toc"', ' id="mw-content-text"',
    ' ID = "mw-content-text"', ' id="mw-content-text" class="toc"', ' class="toc" id="x"',
    ' colspan="2"', " COLSPAN='3'", " colspan=4", ' colspan=" &#50; "', ' colspan="&amp;"',
    ' colspan=""', ' colSpan="1&quot;"', ' colspan="\u00a0x\u2003"', ' colspan="&#0;"',
    ' title="a>b"', " title='x>y' class=noprint", ' data-class="noprint"', " xid=toc",
    ' class="a"id="toc"', ' class = "toc"', ' id=', ' class="unclosed', " a \"", " x='y",
    " =", ' style="x" /', " /", "/", ' rowspan="2" colspan=5 id=p-lang', ' class="&#110;oprint"',
    " class=noprint/", ' id="p-lang" class="noprint"', ' class="café"', ' id="\xff"',
    ' class="\x1cnoprint\x1f"', " id='\x0bp-lang\x1d'", ' class="toc\x85"', ' id="toc\x00"',
    ' CLASS="a\tnavbar\r\n"', ' class=\'x\' class="noprint"', ' class="" id=""',
]
_ENTITIES = [
    "&amp;", "&nbsp;", "&#39;", "&#x27;", "&#128512;", "&#x1F600;", "&amp", "&ampxyz",
    "&foo;", "&foo", "&#0;", "&#1;", "&#xD800;", "&#99999999;", "&#x110000;", "&notin;",
    "&notit;", "&eacute", "&#65", "&#x41", "&", "& ", "&#", "&#x", "&a;", "&NotEqualTilde;",
    "&quot;", "&lt;p&gt;", "&#8212;", "&hellip;", "&#x200b;", "&#32;", "&#12;",
]
_TEXTS = [
    "word", "Earth", "42", "3.5", "U.S.", "G. E.", "don't", "high-pressure", '"', "“q”",
    "é", "日本語", "😀", "𝔘", "\xa0", "\u3000", "\u2003", "\u200b", " ", "\n\t", "  ", ".",
    "...", "(", "[1]", "–", "a", "1", "Mr.", "x'", "www.example.com", "caf", "\r\n",
]
_MARKUP = [
    "<!-- c -->", "<!--", "<!-->", "<!--->", "<!-- x --!>", "<!doctype html>", "<!DOCTYPE>",
    "<?pi x?>", "</ >", "</>", '<a "', "< p>", "<p", "-->", "<", ">", "</script >",
    "</SCRIPT>", "</scriptx>", "</style/>", "</title\n>", "<br/>", "</br>", "</BR >", "<P/>",
    "<li/>", "</1>", "<!>", "<?>", "<=>", "</p", "<b =>", "<b x=\"'>\">",
]


def soup_page(rng: random.Random) -> str:
    """A random page of tags of every kind, broken markup, entities and text."""
    parts: list[str] = []
    for _ in range(rng.randint(0, 60)):
        kind = rng.random()
        if kind < 0.45:
            name = rng.choice(_NAMES)
            if rng.random() < 0.2:
                name = "".join(c.upper() if rng.random() < 0.5 else c for c in name)
            if rng.random() < 0.35:
                parts.append(f"</{name}{rng.choice(['', ' ', ' x', '/'])}>")
            else:
                parts.append(f"<{name}{rng.choice(_ATTRS)}{rng.choice(['', '', '', '/'])}>")
        elif kind < 0.55:
            parts.append(rng.choice(_ENTITIES))
        elif kind < 0.65:
            parts.append(rng.choice(_MARKUP))
        else:
            parts.append(rng.choice(_TEXTS))
            if rng.random() < 0.3:
                parts.append(rng.choice(_TEXTS))
    return "".join(parts)


def soup_pages(seed: int, count: int) -> Iterator[str]:
    """``count`` seeded tag-soup pages."""
    rng = random.Random(seed)
    for _ in range(count):
        yield soup_page(rng)


def test_many_and_long_tag_names() -> None:
    """Hundreds of distinct names (the name table grows), long and mixed-case ones."""
    rng = random.Random(7)
    parts = []
    for k in range(600):
        name = f"X{k}-" + "Ab" * rng.randint(0, 50)
        parts.append(f"<{name} id='p-lang' class=\"navbar c{k}\">w{k}</{name.lower()}>")
        parts.append(rng.choice(["<p>", "</p>", "<li>", "<sup>", "</SUP>", "<td>", "é "]))
    parts.append("<SCRIPT" + "x" * 70 + ">a</script" + "X" * 70 + ">b")
    assert_same("".join(parts))


@pytest.mark.parametrize("seed", range(6))
def test_tag_soup(seed: int) -> None:
    """500 random pages per seed (3,000 in all)."""
    for html in soup_pages(seed, 500):
        assert_same(html)


# --- 3. the sample pages -----------------------------------------------------------------

def _decoded(raw: bytes) -> str:
    for encoding in ("utf-8", "cp932", "euc-jp"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            pass
    return raw.decode("latin-1")


def _html_fields(path: Path) -> Iterator[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line) if line.strip() else {}
            if isinstance(record, dict) and isinstance(record.get("document_html"), str):
                yield record["document_html"]


def sample_pages() -> list[str]:
    """The bundled HTML pages and the document_html fields of the sample JSON lines."""
    pages = [_decoded(path.read_bytes()) for path in sorted(SAMPLES.rglob("*.html"))]
    for path in sorted([*SAMPLES.rglob("*.jsonl"), *SAMPLES.rglob("*.jsonl.gz")]):
        pages.extend(_html_fields(path))
    return pages


def test_sample_pages() -> None:
    """Every HTML page under pipelines/samples."""
    pages = sample_pages()
    assert len(pages) >= 100
    for html in pages:
        assert_same(html)


# --- 4. real pages -----------------------------------------------------------------------

@pytest.mark.realdata
def test_shared_nq_and_tydi_pages(shared_data: Path) -> None:
    """The 3 official NQ dev pages and the TyDi pages of ../shared/data/nq."""
    nq = shared_data / "nq" / "nq_dev_original_first3.jsonl.gz"
    if not nq.is_file():
        pytest.skip(f"{nq} is absent")
    pages = list(_html_fields(nq))
    tydi = shared_data / "nq" / "tydiqa_small_gold_annotation.jsonl.gz"
    if tydi.is_file():
        pages.extend(_html_fields(tydi))
    assert len(pages) >= 3
    for html in pages:
        assert_same(html)


# --- 5. errors -----------------------------------------------------------------------------

class _Boom(Exception):
    """Raised by the failing callbacks."""


def _failing_split(text: str) -> list:
    raise _Boom(text)


def _failing_region(name: str, attrs: dict[str, str]) -> str | None:
    raise _Boom(name)


def test_an_exception_in_split_propagates() -> None:
    with pytest.raises(_Boom):
        c_scan("<p>some words</p>", None, True, _failing_split)
    assert c_scan("<p>some words</p>", None, False, _failing_split)[0][0].token == "<P>"


def test_an_exception_in_region_of_propagates() -> None:
    with pytest.raises(_Boom):
        c_scan('<div><p id="x">a</p></div>', _failing_region, True)
    assert c_scan("<div><p>a</p></div>", _failing_region, True)[1] == []


def test_bad_split_results_raise() -> None:
    with pytest.raises(ValueError):
        c_scan("<p>a&amp;b</p>", None, True, lambda text: [(0, 1)])
    with pytest.raises(TypeError):
        c_scan("<p>ab</p>", None, True, lambda text: 3)


def test_html_must_be_str() -> None:
    with pytest.raises(TypeError):
        _walker.scan(b"<p>a</p>", tokenize_text, None, True, NqToken, Region)
    with pytest.raises(UnicodeEncodeError):
        c_scan("<p>\ud800</p>", None, True)


def test_split_changing_its_own_list_is_safe() -> None:
    """Converting a span that is not a tuple runs Python code, which here empties the list
    split returned: the walker reads the list again (it once read freed memory)."""
    spans: list = []

    class Shrinking:
        def __iter__(self) -> Iterator:
            spans.clear()
            spans.extend([None] * 3)
            return iter((0, 1, "w"))

    def split(text: str) -> list:
        spans[:] = [Shrinking()] + [[0, 1, "x"] for _ in range(2000)]
        return spans

    with pytest.raises(TypeError):
        c_scan("<p>hello world</p>", None, True, split)


def test_region_of_changing_the_attributes_is_safe() -> None:
    """region_of gets the walker's cached attribute dict; a non-str colspan put there is
    formatted with str() (it was once read as a str's memory)."""

    class Three:
        def __str__(self) -> str:
            return "3"

    def region_of(name: str, attrs: dict) -> None:
        attrs["colspan"] = Three()

    html = "<table><tr><td colspan=2 class=x>a</td></tr></table>"
    tokens = c_scan(html, region_of, True)[0]
    assert tokens[2].token in ('<Td colspan="2">', '<Td colspan="3">')
