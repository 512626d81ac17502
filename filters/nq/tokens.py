"""NQ "original format" document tokens from a page's HTML (Kwiatkowski et al. 2019, §4.1).

One algorithm, kept whole past the 600-line guide: the HTML walker, its tag tables and the
specification below, the Python reference of ``_walker.c`` (read them side by side; the C
tables are generated from the sets here by ``filters.nq.gen_c_tables``).

Every NQ example carries ``document_tokens``: ``{token, start_byte, end_byte, html_token}``
with [start_byte, end_byte) into ``document_html.encode("utf-8")``. What the official dev
data shows (``../shared/data/nq/nq_dev_original_first3.jsonl.gz``: 3 pages, 20,068 tokens),
and what :func:`tokenize_nq_html` reproduces:

Tag tokens (NQ README: "a HTML tag that defines a heading, paragraph, table, or list")

* only ``P, Table, Tr, Td, Th, Ul, Ol, Li, Dl, Dd, Dt, H1..H6`` become tokens; A, Span, Div,
  Tbody, Thead, Tfoot, Br, Img, ... never do (the data: 246 Div, 60 Br, 14 Tbody, no token);
* spelling ``"<" + name.capitalize() + ">"`` whatever the case in the HTML (``<TD>`` ->
  ``<Td>``), closing ``</Td>``; of all attributes only ``colspan`` survives, on Td/Th:
  ``<TH scope="col" class="navbox-title" colspan="2">`` -> ``<Th colspan="2">`` (20 in the
  data); ``rowspan`` (126 times in the HTML) never appears;
* the byte span is the whole tag, attributes included, and every element gets its closing
  token. In broken HTML an element closed implicitly (``<li>a<li>b``, HTML5 implied end
  tags) or never closed gets a zero-width closing token (start_byte == end_byte) where it
  ends, so tags stay balanced and a candidate's ``end_token - 1`` is its closing tag;
* tag tokens are kept where words are dropped (the navbox "v t e" list gives ``<Ul> <Li>
  </Li> <Li> </Li> <Li> </Li> </Ul>``).

Words (PTB-like, on the text with inline tags removed and entities unescaped)

* the stream starts with the words of ``<title>``; nothing else in ``<head>`` is tokenized;
* not tokenized: script, style, noscript, template, comments; every ``<sup>`` (240 in the
  data, none tokenized: citations ``[1]``, ``[citation needed]``, backlink letters, a
  footnote ``<sup><small>1</small></sup>``); elements with class ``noprint`` (``#siteSub``
  "From Wikipedia, the free encyclopedia", "Mobile view"), ``navbar`` ("v t e") or
  ``collapseButton`` ("[show]"); the Vector skin's menus (``#mw-navigation``) and footer
  links (``#footer-places``) except the interlanguage links (``#p-lang``);
* a word may span inline tags (``Geology</I>.`` -> ``Geology.``), but a tag between two
  letters or digits separates words (``founder<A>Stephen``), and so do block tags and
  ``<br>``; an entity is unescaped and its token spans it (``&#39;s`` -> ``'s``);
* ``"`` -> ``\u0060\u0060`` when opening, ``''`` when closing; ``[ ]`` -> ``( )``; en and
  em dashes -> ``--``; ``..``, ``...``, ``…`` -> ``...``; ``’`` -> ``'``;
* clitics split (``Earth 's``, ``do n't``, ``I 've``); a leading or trailing ``'`` is a
  token (``' Twas``, ``Kids '``), an inner one is not (``O'Bright``);
* hyphens split (``high - pressure``, ``2007 - 06 - 20``) except after the prefixes CoreNLP's
  ``splitHyphenated`` keeps (``non-profit``, ``mid-summer``, ``X-ray``); ``/``, ``:``,
  ``%``, ``°``, ``®`` split (``72 / 100``, ``05 : 08``, ``57 %``);
* kept whole: URLs, numbers ``7,731,004`` ``17.2`` ``$7``, domains ``Usinfo.state.gov``,
  acronyms ``U.S.`` ``a.k.a.``, ``A&M``; initials one space apart are joined (``G. E.`` ->
  ``G.E.``, the span covering the space);
* a final period stays on its word before a digit (``Geology. 208``), a comma (``Inc.,``)
  or a word in the same chunk (``2004MGeol.208``), and after an initial or a common
  abbreviation before a letter (``G. Braham``, ``Mr. Fulton``, ``p. 1385``); it is its own
  token at the end of the text, before a closing bracket or quote (``Jr . )``) and after
  other words before a letter (``Springer . p.``, ``Caribbean . Archived``).

Agreement with Google's tokens on the 3 pages: 99.82% recall and 99.89% precision (exact
token and byte span); tag tokens identical. Not reproduced (36 of 20,068 tokens): case
changes (``Wikipedia`` -> ``wikipedia`` in 2 of 3 titles, ``On Stage`` -> ``on stage``),
CJK and Khmer word segmentation (``日本語`` -> ``日本 語``), inconsistent initials (``A.``
vs ``A .`` in the same context), and words Google's renderer lost or kept seemingly at
random in the skin menus and in two table cells ("Category", seven years of a list).

Speed (``benchmarks/bench_nq_candidates.py``): :func:`tokenize_nq_html` and
:func:`scan_nq_html` run the C walker (``_walker.c``) with the C word splitter (``_ptb.c``),
built at install, at about 0.9x a bare ``lxml.html`` parse. The Python walker below
(:func:`python_scan_nq_html`) is the reference they are tested against, and the fallback when
they are not built: one pass, no tree, one ``finditer`` tag scan, cached attributes, at about
0.09x the parse.

This module is the HTML side: tag scanning, the tag tokens, which text is skipped, and the
mapping of word spans back to bytes. The PTB-like text tokenizer that applies the word
rules (quotes, clitics, hyphens, what is kept whole, the final period) lives in
:mod:`filters.nq.text_tokens` (:func:`~filters.nq.text_tokens.tokenize_text`).
"""

from __future__ import annotations

import html as html_lib
import re
import warnings
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import NamedTuple

from filters.nq.text_tokens import WORD_BREAK, tokenize_text


def fallback_warning(error: ImportError, package: Path) -> str | None:
    """Why the C walker is missing, or None in a source tree (setup.py beside the package)
    where no extension was ever built: there the Python walker is expected."""
    source_tree = (package / "_walker.c").is_file() and (package.parents[1] / "setup.py").is_file()
    built = any(path.suffix in (".so", ".pyd") for path in package.glob("_[pw]*.*"))
    if source_tree and not built:
        return None
    return (f"the C extensions filters.nq._ptb and filters.nq._walker did not import ({error}): "
            "NQ tokens fall back to the Python walker, about 10x slower; build them with "
            "`pip install .` (in a source tree: python setup.py build_ext --inplace)")


try:  # the C walker and word splitter (setup.py builds them at install; same tokens)
    from filters.nq import _ptb, _walker
except ImportError as _error:  # the Python walker below; warned unless never built
    _ptb = _walker = None
    if _message := fallback_warning(_error, Path(__file__).resolve().parent):
        warnings.warn(_message, RuntimeWarning, stacklevel=1)

NATIVE_TOKENS = _walker is not None

TOKEN_TAGS = frozenset({
    "p", "table", "tr", "td", "th", "ul", "ol", "li", "dl", "dd", "dt",
    "h1", "h2", "h3", "h4", "h5", "h6",
})
CELL_TAGS = frozenset({"td", "th"})
VOID_TAGS = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta",
    "param", "source", "track", "wbr", "basefont", "bgsound", "frame", "image",
})
INLINE_TAGS = frozenset({
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn",
    "em", "font", "i", "ins", "kbd", "label", "mark", "nobr", "q", "rp", "rt", "ruby", "s",
    "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
})
RAW_TEXT_TAGS = frozenset({
    "script", "style", "noscript", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
})
SKIP_TEXT_TAGS = frozenset({"sup", "template"})
SKIP_TEXT_CLASSES = frozenset({"noprint", "navbar", "collapseButton"})
# Vector skin chrome whose words Google's token stream leaves out, except the
# interlanguage links (``p-lang``) inside the navigation menus.
SKIP_TEXT_IDS = frozenset({"siteSub", "mw-navigation", "p-lang-label", "footer-places",
                           "footer-icons"})
KEEP_TEXT_IDS = frozenset({"p-lang"})
CLOSES_P = frozenset({
    "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div",
    "dl", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
    "h6", "header", "hgroup", "hr", "main", "menu", "nav", "ol", "p", "pre", "section",
    "summary", "table", "ul", "li", "dd", "dt", "listing", "xmp",
})
HEAD_TAGS = frozenset({"head", "title", "meta", "link", "style", "script", "noscript", "base",
                       "template"})
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_DEFAULT_SCOPE = frozenset({
    "table", "td", "th", "caption", "html", "template", "object", "marquee", "applet",
})
_TABLE_SCOPE = frozenset({"table", "html", "template"})
_TABLE_PARTS = frozenset({"td", "th", "tr", "tbody", "thead", "tfoot", "caption"})
# Special elements that stop the search for an open <li>/<dd> (HTML5 §13.2.6.4.7).
_LIST_ITEM_STOP = frozenset({
    "ul", "ol", "dl", "menu", "table", "td", "th", "tr", "caption", "body", "html", "section",
    "article", "aside", "nav", "blockquote", "figure", "form", "h1", "h2", "h3", "h4", "h5",
    "h6",
})

_MARKUP = re.compile(
    # possessive quantifiers (Python 3.11): the same matches without backtracking
    rb"<(/?)([A-Za-z][A-Za-z0-9:_-]*+)((?:[^>\"'=]++|=\s*+\"[^\"]*+\"|=\s*+'[^']*+'|=)*+)>"
    rb"|<(?:!--|![^>]*>|\?[^>]*>|/[^A-Za-z>][^>]*>)"
    rb"|<(/?)([A-Za-z][A-Za-z0-9:_-]*)([^>]*)>",
    re.S,
)
_ATTR = re.compile(
    rb"(?:^|[\s\"'/])(class|id|colspan)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>]+))", re.I)
_COMMENT_END = re.compile(rb"--!?>")
_NAMES: dict[bytes, str] = {}  # tag name bytes -> lower-case str (names repeat)
_HAS_CLASS_OR_ID = re.compile(rb"(?:class|id)\s*=", re.I)
_RAW_END = {name: re.compile(rb"</" + name.encode() + rb"[\s/>]", re.I) for name in RAW_TEXT_TAGS}
_ENTITY = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};?)")


class NqToken(NamedTuple):
    """One NQ document token: a word or an HTML tag, with its [start, end) UTF-8 byte span.

    A named tuple rather than a dataclass: a page has thousands of tokens, and a tuple is
    built about twice as fast."""

    token: str
    start_byte: int
    end_byte: int
    html_token: bool

    def to_dict(self) -> dict:
        """The NQ JSON form of the token."""
        return {"token": self.token, "start_byte": self.start_byte, "end_byte": self.end_byte,
                "html_token": self.html_token}


class Tag(NamedTuple):
    """One markup tag of the HTML: lower-case ``name``, raw ``attrs`` and byte span."""

    name: str
    closing: bool
    attrs: bytes
    start: int
    end: int


def iter_tags(data: bytes) -> Iterator[Tag]:
    """Yield the markup of ``data`` in order: start and end tags, and comments, doctype and
    processing instructions as tags with an empty name. The content of raw-text elements
    (script, style, title, ...) is stepped over."""
    return (Tag(*raw) for raw in _scan_tags(data))


RawTag = tuple[str, bool, bytes, int, int]  # the fields of a Tag, as a plain tuple


def _scan_tags(data: bytes) -> Iterator[RawTag]:
    """:func:`iter_tags` as plain tuples, for the walker's hot loop. ``finditer`` runs on
    from each tag; it restarts after a comment or a raw-text element's content."""
    names = _NAMES
    last = data.rfind(b">") + 1  # no tag ends after it: bounds every failed search
    restart: int | None = 0
    while restart is not None:
        start, restart, m = restart, None, None
        for m in _MARKUP.finditer(data, start, max(last, start)):
            closing, name, attrs, closing2, name2, attrs2 = m.groups()
            if name is None:
                if name2 is None:  # comment, doctype or processing instruction
                    end = m.end()
                    if data.startswith(b"<!--", m.start()):
                        end = restart = _comment_end(data, end)
                    yield "", False, b"", m.start(), end
                    if restart is not None:
                        break
                    continue
                closing, name, attrs = closing2, name2, attrs2
            lower = names.get(name) or _tag_name(name)
            yield lower, closing == b"/", attrs, m.start(), m.end()
            if not closing and lower in RAW_TEXT_TAGS:
                raw_end = _RAW_END[lower].search(data, m.end())
                restart = raw_end.start() if raw_end else len(data)
                break
        else:
            comment = data.find(b"<!--", start if m is None else m.end())
            if comment >= 0:  # an unterminated comment runs to the end of the page
                yield "", False, b"", comment, len(data)


def _tag_name(name: bytes) -> str:
    """Lower-case tag name, cached (a page uses a few dozen names thousands of times)."""
    lower = name.decode("ascii").lower()
    if len(_NAMES) < 4096:
        _NAMES[name] = lower
    return lower


def _comment_end(data: bytes, pos: int) -> int:
    """End of the comment whose ``<!--`` ends at ``pos``; an unclosed one runs to the end."""
    m = _COMMENT_END.search(data, pos)
    return m.end() if m else len(data)


def tag_attrs(attrs: bytes) -> dict[str, str]:
    """The ``class``, ``id`` and ``colspan`` attributes of a tag, unescaped."""
    found: dict[str, str] = {}
    for key, double, single, bare in _ATTR.findall(attrs):
        name = key.decode("ascii").lower()
        if name not in found:
            value = (double or single or bare).decode("utf-8", "replace")
            found[name] = (html_lib.unescape(value) if "&" in value else value).strip()
    return found


_ATTRS_CACHE: dict[bytes, dict[str, str]] = {}


def _cached_attrs(raw: bytes) -> dict[str, str]:
    """:func:`tag_attrs`, cached per raw attribute string (``class="reference"`` and the
    like repeat hundreds of times a page). Callers must not change the dict."""
    attrs = _ATTRS_CACHE.get(raw)
    if attrs is None:
        if len(_ATTRS_CACHE) >= 8192:
            _ATTRS_CACHE.clear()
        attrs = _ATTRS_CACHE[raw] = tag_attrs(raw)
    return attrs


def html_token_text(name: str, attrs: bytes, closing: bool) -> str:
    """NQ spelling of a tag token: ``<Td colspan="2">``, ``</Td>``, ``<P>`` (NQ §4.1)."""
    if closing:
        return _CLOSING_TOKENS[name]
    if name in CELL_TAGS and b"colspan" in attrs.lower():
        colspan = tag_attrs(attrs).get("colspan")
        if colspan:
            return f'<{name.capitalize()} colspan="{colspan}">'
    return _OPENING_TOKENS[name]


_OPENING_TOKENS = {name: f"<{name.capitalize()}>" for name in TOKEN_TAGS}
_CLOSING_TOKENS = {name: f"</{name.capitalize()}>" for name in TOKEN_TAGS}


def skips_text(name: str, attrs: dict[str, str]) -> int:
    """+1 for elements whose words NQ leaves out (``<sup>``, ``class="noprint"``, the skin's
    navigation menus), -1 for the interlanguage list inside them, else 0."""
    if name in SKIP_TEXT_TAGS:
        return 1
    element_id = attrs.get("id")
    if element_id in KEEP_TEXT_IDS:
        return -1
    if element_id in SKIP_TEXT_IDS:
        return 1
    return int(not SKIP_TEXT_CLASSES.isdisjoint(attrs.get("class", "").split()))


class _Run:
    """Text collected between two block boundaries, with a map back to HTML bytes."""

    __slots__ = ("parts", "chars", "pieces")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.chars = 0
        # (char_start, byte_start, byte_end, text, atomic)
        self.pieces: list[tuple[int, int, int, str, bool]] = []

    def add(self, data: bytes, start: int, end: int) -> None:
        """Append the text node data[start:end]; a tag between two letters or digits
        separates words (``founder<A>Stephen`` -> ``founder`` ``Stephen``)."""
        text = data[start:end].decode("utf-8", "replace")
        if not self.parts and text.isspace():
            return  # leading white space makes no token
        if self.parts and text[:1].isalnum() and self.parts[-1][-1:].isalnum():
            self._piece(WORD_BREAK, start, start, True)
        if "&" not in text:  # most text nodes: one plain piece (_piece, inlined)
            self.pieces.append((self.chars, start, end, text, False))
            self.parts.append(text)
            self.chars += len(text)
            return
        pos, cursor = 0, start
        for m in _ENTITY.finditer(text):
            value = html_lib.unescape(m.group())
            if value == m.group():
                continue
            cursor = self._literal(text[pos:m.start()], cursor)
            self._piece(value, cursor, cursor + len(m.group()), True)
            cursor += len(m.group())
            pos = m.end()
        self._literal(text[pos:], cursor)

    def _literal(self, piece: str, cursor: int) -> int:
        size = len(piece.encode("utf-8"))
        self._piece(piece, cursor, cursor + size, False)
        return cursor + size

    def _piece(self, text: str, b0: int, b1: int, atomic: bool) -> None:
        if text:
            self.pieces.append((self.chars, b0, b1, text, atomic))
            self.parts.append(text)
            self.chars += len(text)

    def tokens(self) -> list[NqToken]:
        text = "".join(self.parts)
        if not text or text.isspace():
            return []
        if len(self.pieces) == 1 and not self.pieces[0][4] and text.isascii():
            b0 = self.pieces[0][1]
            return [NqToken(word, b0 + s, b0 + e, False) for s, e, word in tokenize_text(text)]
        return self._mapped(tokenize_text(text))

    def _mapped(self, spans: list[tuple[int, int, str]]) -> list[NqToken]:
        """Map character spans to byte spans: a plain ASCII piece maps by a constant
        ``shift``; entities, word breaks and non-ASCII text take :meth:`_byte`."""
        pieces = self.pieces
        starts = [p[0] for p in pieces]
        shifts = [None if atomic or not text.isascii() else b0 - c0
                  for c0, b0, _, text, atomic in pieces]
        offsets: dict[int, list[int]] = {}
        out: list[NqToken] = []
        for s, e, word in spans:
            i = bisect_right(starts, s) - 1
            j = bisect_right(starts, e - 1) - 1
            shift_s, shift_e = shifts[i], shifts[j]
            b0 = s + shift_s if shift_s is not None else self._byte(offsets, i, s, False)
            b1 = e + shift_e if shift_e is not None else self._byte(offsets, j, e - 1, True)
            out.append(NqToken(word, b0, b1, False))
        return out

    def _byte(self, offsets: dict[int, list[int]], index: int, char: int,
              after: bool) -> int:
        """Byte offset of (the end of, when ``after``) character ``char`` of the run, in
        piece ``index``; ``offsets`` caches each non-ASCII piece's character offsets."""
        c0, b0, b1, text, atomic = self.pieces[index]
        if atomic:
            return b1 if after else b0
        if index not in offsets:
            offsets[index] = list(accumulate(map(len, map(str.encode, text)), initial=0))
        return b0 + offsets[index][char - c0 + after]


@dataclass(frozen=True)
class Region:
    """The [start_byte, end_byte) span of an element ``region_of`` labelled while scanning."""

    label: str
    start_byte: int
    end_byte: int


RegionOf = Callable[[str, dict[str, str]], str | None]


class _Open(NamedTuple):
    """An open element on the walker's stack."""

    name: str
    skip: int
    start: int
    region: str | None


_PLAIN_INLINE = {name: _Open(name, 0, -1, None) for name in INLINE_TAGS}


class _Walker:
    """One pass over the HTML: a simplified HTML5 tree builder that only tracks what NQ
    tokens need (open token elements, text-skipping elements, implied end tags)."""

    def __init__(self, html: str, region_of: RegionOf | None, words: bool) -> None:
        self.data = html.encode("utf-8")
        self.region_of = region_of
        self.words = words
        self.tokens: list[NqToken] = []
        self.regions: list[Region] = []
        self.stack: list[_Open] = []
        self.open_count: defaultdict[str, int] = defaultdict(int)
        self.skip = 0
        self.run = _Run()
        self.in_head = False
        self.title_done = False

    def walk(self) -> list[NqToken]:
        """Tokens of the page. Inline tags (two thirds of a Wikipedia page's tags) take a
        short path: they never flush the text run, imply no end tag and are no token."""
        pos = 0
        inline = INLINE_TAGS - VOID_TAGS
        data, words = self.data, self.words
        for name, closing, attrs, start, end in _scan_tags(data):
            if start > pos and words and not self.skip and not self.in_head:
                self.run.add(data, pos, start)  # the text before the tag (see _text)
            pos = end
            if not name:
                continue
            if name in inline:
                if closing:
                    self._end_inline(name, end)
                else:
                    self._start_inline(name, attrs, start, end)
            elif closing:
                self._end_tag(Tag(name, closing, attrs, start, end))
            else:
                pos = self._start_tag(Tag(name, closing, attrs, start, end))
        self._text(pos, len(self.data))
        self._flush()
        while self.stack:
            self._pop(len(self.data), len(self.data))
        return self.tokens

    def _text(self, start: int, end: int) -> None:
        if end > start and self.words and not self.skip and not self.in_head:
            self.run.add(self.data, start, end)

    def _flush(self) -> None:
        if self.run.pieces:
            self.tokens.extend(self.run.tokens())
            self.run = _Run()

    def _start_inline(self, name: str, attrs: bytes, start: int, end: int) -> None:
        """:meth:`_start_tag` for an inline element (``<a>``, ``<span>``, ``<sup>``, ...).
        Most have no class or id: they skip no text, label no region, and share one stack
        entry per name (its start is only read for a region)."""
        self.in_head = False
        if name in SKIP_TEXT_TAGS or (attrs and _HAS_CLASS_OR_ID.search(attrs)):
            self._push(name, attrs, start)
        else:
            self.stack.append(_PLAIN_INLINE[name])
            self.open_count[name] += 1
        if attrs and attrs.rstrip().endswith(b"/"):
            self._pop(end, end)

    def _end_inline(self, name: str, end: int) -> None:
        """:meth:`_end_tag` for an inline element: no flush, no implied end tags; usually it
        closes the innermost element (what :meth:`_find` returns first)."""
        stack = self.stack
        if stack and stack[-1].name == name:
            self._close(stack.pop(), end)
            return
        k = self._find(name)
        if k is not None:
            self._close(stack.pop(k), end)

    def _start_tag(self, tag: Tag) -> int:
        name = tag.name
        if name in RAW_TEXT_TAGS:
            return self._raw_text(tag)
        if name == "head":
            self.in_head = True
        elif name not in HEAD_TAGS:
            self.in_head = False
        if name not in INLINE_TAGS:
            self._flush()
        if name in VOID_TAGS:
            return tag.end
        self._implied_end_tags(name, tag.start)
        self._push(name, tag.attrs, tag.start)
        if name in TOKEN_TAGS:
            self.tokens.append(NqToken(html_token_text(name, tag.attrs, False), tag.start,
                                       tag.end, True))
        if tag.attrs.rstrip().endswith(b"/"):
            self._pop(tag.end, tag.end)
        return tag.end

    def _push(self, name: str, raw_attrs: bytes, start: int) -> None:
        region = None
        if raw_attrs and _HAS_CLASS_OR_ID.search(raw_attrs):
            attrs = _cached_attrs(raw_attrs)
            skip = skips_text(name, attrs)
            if skip < 0 and not self.skip:
                skip = 0
            if self.region_of and attrs:
                region = self.region_of(name, attrs)
        else:
            skip = 1 if name in SKIP_TEXT_TAGS else 0
        self.stack.append(_Open(name, skip, start, region))
        self.open_count[name] += 1
        self.skip += skip

    def _raw_text(self, tag: Tag) -> int:
        """Step over script/style/...; the first ``<title>`` outside the body gives words.
        Returns where the content ends (the end tag follows from ``iter_tags``)."""
        end = _RAW_END[tag.name].search(self.data, tag.end)
        content_end = end.start() if end else len(self.data)
        if tag.name == "title" and not self.title_done and not self._open("body"):
            self.title_done = True
            self._flush()
            was_in_head, self.in_head = self.in_head, False
            self._text(tag.end, content_end)
            self._flush()
            self.in_head = was_in_head
        return content_end

    def _open(self, name: str) -> bool:
        return self.open_count[name] > 0

    def _end_tag(self, tag: Tag) -> None:
        name = tag.name
        if name == "br":
            self._flush()
            return
        if name == "head":
            self.in_head = False
        k = self._find(name)
        if k is None:
            return
        if name in INLINE_TAGS:
            self._close(self.stack.pop(k), tag.end)
            return
        self._flush()
        while len(self.stack) > k + 1:
            self._pop(tag.start, tag.start)
        self._pop(tag.start, tag.end)

    def _find(self, name: str) -> int | None:
        """Index of the open element an end tag closes, within its HTML5 scope."""
        if not self.open_count[name]:
            return None
        if name in _TABLE_PARTS or name == "table":
            scope = _TABLE_SCOPE
        elif name == "li":
            scope = _DEFAULT_SCOPE | {"ul", "ol"}
        else:
            scope = _DEFAULT_SCOPE
        for k in range(len(self.stack) - 1, -1, -1):
            open_name = self.stack[k].name
            if open_name == name:
                return k
            if open_name in scope:
                return None
        return None

    def _pop(self, start: int, end: int) -> None:
        element = self.stack.pop()
        if element.name in TOKEN_TAGS:
            self._flush()
            self.tokens.append(NqToken(_CLOSING_TOKENS[element.name], start, end, True))
        self._close(element, end)

    def _close(self, element: _Open, end: int) -> None:
        self.open_count[element.name] -= 1
        if element.skip:
            self.skip -= element.skip
        if element.region:
            self.regions.append(Region(element.region, element.start, end))

    def _pop_to(self, k: int, at: int) -> None:
        self._flush()
        while len(self.stack) > k:
            self._pop(at, at)

    def _implied_end_tags(self, name: str, at: int) -> None:
        """End tags a browser implies before a ``name`` start tag (HTML5 §13.2.6.4.7)."""
        if name in CLOSES_P:
            k = self._find("p")
            if k is not None:
                self._pop_to(k, at)
        if name in HEADINGS and self.stack and self.stack[-1].name in HEADINGS:
            self._pop_to(len(self.stack) - 1, at)
        if name == "li":
            self._close_list_item({"li"}, at)
        elif name in ("dd", "dt"):
            self._close_list_item({"dd", "dt"}, at)
        elif name in ("tr", "tbody", "thead", "tfoot") or name in CELL_TAGS:
            self._close_table_part(name, at)

    def _close_list_item(self, names: set[str], at: int) -> None:
        if not any(self.open_count[name] for name in names):
            return
        for k in range(len(self.stack) - 1, -1, -1):
            open_name = self.stack[k].name
            if open_name in names:
                self._pop_to(k, at)
                return
            if open_name in _LIST_ITEM_STOP:
                return

    def _close_table_part(self, name: str, at: int) -> None:
        if not self.open_count["table"]:
            return
        stops = {"td": ("tr",), "th": ("tr",), "tr": ("tbody", "thead", "tfoot")}.get(name, ())
        for k in range(len(self.stack) - 1, -1, -1):
            open_name = self.stack[k].name
            if open_name in _TABLE_SCOPE or open_name in stops:
                self._pop_to(k + 1, at)
                return


def tokenize_nq_html(html: str) -> list[NqToken]:
    """NQ ``document_tokens`` of a page: title words, then words and heading/paragraph/
    table/list tags of the body, with byte offsets into ``html.encode("utf-8")``."""
    return scan_nq_html(html, None)[0]


def scan_nq_html(html: str, region_of: RegionOf | None,
                 words: bool = True) -> tuple[list[NqToken], list[Region]]:
    """Tokens (only the tag tokens when ``words`` is false) and the spans of the elements
    ``region_of(name, {class, id, colspan})`` labels (none without it), in one pass.
    ``region_of`` must be a pure function of its arguments: the C walker calls it once per
    distinct tag."""
    if _walker is not None:
        return _walker.scan(html, _ptb.tokenize_text, region_of, words, NqToken, Region)
    return python_scan_nq_html(html, region_of, words)


def python_scan_nq_html(html: str, region_of: RegionOf | None,
                        words: bool = True) -> tuple[list[NqToken], list[Region]]:
    """:func:`scan_nq_html` in Python: the reference the C walker and word splitter are
    tested against, and what runs when they are not built."""
    walker = _Walker(html, region_of, words)
    tokens = walker.walk()
    return tokens, walker.regions
