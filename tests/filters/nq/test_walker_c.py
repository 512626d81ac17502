"""The C walker ``filters.nq._walker.scan`` gives exactly the tokens and regions of the Python
``_Walker`` of :mod:`filters.nq.tokens` (the reference): on every snippet of the token and
candidate tests, on seeded tag soup and every pair of known tags (both built from the sets of
tokens.py, which the C tables mirror), on the bundled sample pages and on the shared NQ and TyDi
pages; errors raised by ``split`` or ``region_of`` propagate."""

from __future__ import annotations

import gzip
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from filters.nq import gen_c_tables
from filters.nq.candidates import page_region
from filters.nq.text_tokens import tokenize_text
from filters.nq.tokens import (
    NATIVE_TOKENS,
    NqToken,
    Region,
    RegionOf,
    _Walker,
    iter_tags,
    scan_nq_html,
    tag_attrs,
)
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

# The tag sets of tokens.py the C walker's table mirrors (gen_c_tables), and every tag it
# knows with a few it does not: a set changed in Python alone gives pages the two walkers
# read differently. Most tags are drawn set first, so that the members of small sets
# (headings, table scope) meet each other often.
_TAG_SETS = [sorted(tags) for tags in gen_c_tables.tag_sets().values()]
_NAMES = [*gen_c_tables.known_tags(), "foo", "x-y", "a:b", "my_tag"]
# Attribute spellings the walker parses: ids and classes named by no set.
_GENERIC_ATTRS = [
    "", "", "", " ", ' class="toc"', " CLASS=toc", ' id="toc"', ' id="mw-content-text"',
    ' ID = "mw-content-text"', ' id="mw-content-text" class="toc"', ' class="toc" id="x"',
    ' colspan="2"', " COLSPAN='3'", " colspan=4", ' colspan=" &#50; "', ' colspan="&amp;"',
    ' colspan=""', ' colSpan="1&quot;"', ' colspan="\u00a0x\u2003"', ' colspan="&#0;"',
    ' title="a>b"', " xid=toc", ' class="a"id="toc"', ' class = "toc"', ' id=',
    ' class="unclosed', " a \"", " x='y", " =", ' style="x" /', " /", "/", ' class="café"',
    ' id="\xff"', ' class="toc\x85"', ' id="toc\x00"', ' class="" id=""',
]


def _spellings(key: str, value: str) -> list[str]:
    """``key=value`` written the ways the walker must read alike (quotes, case of the key,
    white space str.strip() and str.split() drop, an entity) or not (a longer or upper-case
    value, another key, an earlier value of the key)."""
    entity = f"&#{ord(value[0])};{value[1:]}"
    return [
        f' {key}="{value}"', f" {key.upper()}='{value}'", f" {key}={value}", f" {key}={value}/",
        f' {key} = "\x1c{value}\u3000"', f" {key}='\x0b{value}\x1f'", f' {key}="{entity}"',
        f' {key}="{value.upper()}"', f' {key}="{value}x"', f' data-{key}="{value}"',
        f" title='x>y' {key}={value}", f" {key}='x' {key}=\"{value}\"",
    ]


def _set_attrs() -> list[str]:
    """Every id and class the skip sets of tokens.py name, spelled the ways of _spellings; the
    classes among others (tab and CR LF apart), each kept id with each skipped class."""
    words = gen_c_tables.walker_words()
    ids = sorted(words["SKIP_TEXT_IDS"] | words["KEEP_TEXT_IDS"])
    classes = sorted(words["SKIP_TEXT_CLASSES"])
    out = [attr for element_id in ids for attr in _spellings("id", element_id)]
    for name in classes:
        out += [*_spellings("class", name), f" class='a {name} mini'", f' CLASS="a\t{name}\r\n"']
    out += [f' id="{keep}" class="{name}"' for keep in sorted(words["KEEP_TEXT_IDS"])
            for name in classes]
    out += [f" rowspan=2 colspan=5 id={keep}" for keep in sorted(words["KEEP_TEXT_IDS"])]
    return out


_SET_ATTRS = _set_attrs()
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
            name = rng.choice(rng.choice(_TAG_SETS) if rng.random() < 0.7 else _NAMES)
            if rng.random() < 0.2:
                name = "".join(c.upper() if rng.random() < 0.5 else c for c in name)
            if rng.random() < 0.35:
                parts.append(f"</{name}{rng.choice(['', ' ', ' x', '/'])}>")
            else:
                attrs = rng.choice(_SET_ATTRS if rng.random() < 0.35 else _GENERIC_ATTRS)
                parts.append(f"<{name}{attrs}{rng.choice(['', '', '', '/'])}>")
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


SOUP_SEEDS, SOUP_PAGES = range(6), 500


@pytest.mark.parametrize("seed", SOUP_SEEDS)
def test_tag_soup(seed: int) -> None:
    """500 random pages per seed (3,000 in all)."""
    for html in soup_pages(seed, SOUP_PAGES):
        assert_same(html)


def pair_pages() -> Iterator[str]:
    """For every ordered pair of tags the C walker knows (and one it does not): one element
    started inside the other and then the outer one ended, outside and inside a table, so
    that each flag of each tag (token, cell, void, inline, raw, skipped, closes <p>, head,
    heading, scopes, table part, list item stop) decides some page. Removing a tag from any
    set of tokens.py, or adding one, changes some page, unless the walker never reads that
    set for that tag (a void or raw tag returns before most tests)."""
    names = [*gen_c_tables.known_tags(), "foo"]
    for outer in names:
        for inner in names:
            yield f"<{outer}>1.<{inner}>2.<{outer}>3.</{inner}>4.</{outer}>5."
            yield f"<table><{outer}>1.<{inner} colspan=2>2.</{inner}>3.<{inner}>4.</{outer}>5."


def test_every_pair_of_known_tags() -> None:
    """The pair pages (about 31,000) give the same tokens."""
    for html in pair_pages():
        assert c_scan(html, None, True) == python_scan(html, None, True), html


def all_soup_pages() -> Iterator[str]:
    """The pages of test_tag_soup."""
    for seed in SOUP_SEEDS:
        yield from soup_pages(seed, SOUP_PAGES)


def test_the_soup_opens_and_closes_every_known_tag() -> None:
    """Each tag of the C walker's table (every tag of a set of tokens.py) starts and ends
    elements of the tag soup, so a tag whose sets differ between the walkers fails it."""
    opened: set[str] = set()
    closed: set[str] = set()
    for html in all_soup_pages():
        for tag in iter_tags(html.encode("utf-8")):
            (closed if tag.closing else opened).add(tag.name)
    known = set(gen_c_tables.known_tags())
    assert known - opened == set() and known - closed == set()


def _structure(html: str) -> tuple[list[tuple[int, int, bool]], list[Region]]:
    """The Python walker's token spans and regions, not the token texts."""
    tokens, regions = python_scan(html, page_region, True)
    return [(t.start_byte, t.end_byte, t.html_token) for t in tokens], regions


def _renamed(html: str, value: str) -> str:
    """``html`` with the attribute value ``value`` (a whole id or class) made "zz...z"."""
    return re.sub(rf"(?<![\w-]){re.escape(value)}(?![\w-])", "z" * len(value), html)


@pytest.mark.parametrize("table", [name for _, name in gen_c_tables.WALKER_WORDS])
def test_every_skipped_id_and_class_changes_some_soup_page(table: str) -> None:
    """Without monkeypatching: for each id or class of the set, some soup page gives other
    tokens or regions when that id or class is renamed (same length, named by no set), so a C
    table without it, which reads the page as the renamed one, fails test_tag_soup."""
    parsed: set[str] = set()
    for html in all_soup_pages():
        for tag in iter_tags(html.encode("utf-8")):
            attrs = tag_attrs(tag.attrs)
            parsed.update([attrs.get("id", ""), *attrs.get("class", "").split()])
    values = gen_c_tables.walker_words()[table]
    assert values <= parsed
    assert not any(set(value) == {"z"} for value in values)
    for value in sorted(values):
        pages = (html for html in all_soup_pages() if value in html)
        assert any(_structure(html) != _structure(_renamed(html, value)) for html in pages), value


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
