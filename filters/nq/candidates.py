"""NQ long-answer candidates of a page (Kwiatkowski et al. 2019, §3; NQ README).

A candidate is a ``P, Table, Tr, Ul, Ol, Dl, Li, Dd`` or ``Dt`` element ("paragraphs,
tables, table rows, lists, list items"), given as ``{start_byte, end_byte, start_token,
end_token, top_level}``: [start_byte, end_byte) is the element in
``document_html.encode("utf-8")``, ``start_token`` its opening tag token and
``end_token - 1`` its closing tag token. Candidates are ordered by start token, an outer one
before those inside it, and ``top_level`` is true iff no other candidate contains it.

Which elements are candidates: what the official dev data shows
(``../shared/data/nq/nq_dev_original_first3.jsonl.gz``: 3 pages, 1,365 elements with a
candidate tag, 333 candidates). Each rule is needed by the data, and together they select
exactly Google's 333 (byte spans, token spans and top_level, given Google's tokens):

1. inside the article body only: ``#mw-content-text`` on desktop pages, the whole page when
   there is none (Parsoid HTML). Excludes 369 elements: the skin menus, footer and
   category lists, which do have ``<Ul>``/``<Li>`` tokens;
2. not in the table of contents (``#toc`` or class ``toc``): 26 elements, 3 TOC lists;
3. nothing from the first ``<H2>`` stop heading on: "See also", "References", "External
   links", "Notes", "Further reading", "Bibliography", "Sources", "Citations", "Footnotes",
   "Works cited", their singular forms and combinations ("Notes and references"). All 3
   pages have candidates up to "See also" and none of the 630 elements after it (see-also
   lists, reference lists, navboxes, sister-project boxes);
4. not empty: at least one word token (the ``<P></P>`` before and after each TOC: 6);
5. inside a table, at least 3 tokens between its own tags: ``<P> United Kingdom </P>`` in a
   table cell is excluded, while infobox rows ``<Tr> <Th colspan="2"> Production </Th>
   </Tr>`` (3 tokens inside, one word; 3 such rows) are candidates. The data holds one
   excluded short element, so 3 is the only threshold it supports, not a measured optimum
   (it is equally consistent with "no <P> inside a table cell").

The stop headings are ``<H2>`` sections: "Notes" or "Sources" as an ``<H3>`` under a content
section stays content (in the data they only occur under "References"). Parsoid HTML
(Wikimedia REST API) has no ``#mw-content-text`` and no TOC, and its ``<h2>`` headings start
``<section>`` elements, so the rules apply unchanged; on TyDi QA's Parsoid pages the
top-level candidates are exactly TyDi's passage candidates (24 of 24).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, compress, count
from operator import attrgetter, not_
from typing import NamedTuple

from filters.nq.tokens import NqToken, Region, scan_nq_html

CANDIDATE_TAGS = frozenset({"p", "table", "tr", "ul", "ol", "dl", "li", "dd", "dt"})
STOP_SECTIONS = frozenset({
    "see also", "references", "reference", "external links", "external link", "notes",
    "note", "further reading", "bibliography", "sources", "citations", "citation",
    "footnotes", "footnote", "works cited",
})
# Not "source": on geography pages it heads content (where a river rises), and NQ keeps those.
STOP_HEADING_TAG = "h2"
MIN_TOKENS_IN_TABLE = 3
CONTENT_IDS = frozenset({"mw-content-text"})
_SECTION_JOINERS = re.compile(r"\s*(?:,|&|\band\b)\s*")
_TAG_NAME = re.compile(r"</?([A-Za-z0-9]+)")
_EDIT_LINK = ("(", "edit", ")")
_IS_HTML = attrgetter("html_token")
_OPEN_INDEX = attrgetter("open_index")
_RULE_TAGS = CANDIDATE_TAGS | {STOP_HEADING_TAG}  # the elements the rules look at


@dataclass(frozen=True)
class LongAnswerCandidate:
    """One NQ long-answer candidate (``tag`` is lower case and not part of the NQ JSON)."""

    start_token: int
    end_token: int
    start_byte: int
    end_byte: int
    top_level: bool
    tag: str

    def to_dict(self) -> dict:
        """The NQ JSON form: byte and token spans and ``top_level``."""
        return {"start_byte": self.start_byte, "end_byte": self.end_byte,
                "start_token": self.start_token, "end_token": self.end_token,
                "top_level": self.top_level}


class _Element(NamedTuple):
    """A paired opening and closing tag token (a named tuple: thousands per page)."""

    name: str
    open_index: int
    close_index: int
    in_table: bool


def page_region(name: str, attrs: dict[str, str]) -> str | None:
    """Label the article body (``content``) and the table of contents (``toc``)."""
    if attrs.get("id") in CONTENT_IDS:
        return "content"
    if attrs.get("id") == "toc" or "toc" in attrs.get("class", "").split():
        return "toc"
    return None


def is_stop_heading(words: list[str]) -> bool:
    """True for "See also", "References", "Notes and references", ... (rule 3)."""
    if tuple(words[-3:]) in (_EDIT_LINK, ("[", "edit", "]")):
        words = words[:-3]
    title = " ".join(words).lower().strip(" :")
    parts = [p for p in _SECTION_JOINERS.split(title) if p]
    return bool(parts) and all(p in STOP_SECTIONS for p in parts)


@lru_cache(maxsize=4096)
def _tag(token: str) -> tuple[str, bool]:
    """Lower-case name of a tag token and whether it closes (``"</Td>"``: ``("td", True)``)."""
    m = _TAG_NAME.match(token)
    return (m.group(1).lower() if m else ""), token.startswith("</")


def _elements(tokens: list[NqToken]) -> list[_Element]:
    """Pair the opening and closing tag tokens (unmatched ones are dropped); only the
    elements the rules look at (``_RULE_TAGS``) are returned, in closing order.

    A closing tag closes the innermost open element of its name and every element opened
    inside it; ``tables_outside`` of an open element is the number of open tables around it,
    so after closing it the open tables are its own ``tables_outside``."""
    names: list[str] = []  # the open elements' names, innermost last
    opens: list[tuple[int, int]] = []  # and their (open index, tables outside)
    elements: list[_Element] = []
    tables = 0
    tag, kept = _tag, _RULE_TAGS
    for index in compress(count(), map(_IS_HTML, tokens)):  # the tag tokens, at C speed
        name, closing = tag(tokens[index].token)
        if not closing:
            names.append(name)
            opens.append((index, tables))
            if name == "table":
                tables += 1
            continue
        if names and names[-1] == name:  # the usual case: the innermost open element
            names.pop()
            open_index, tables = opens.pop()
        else:
            k = len(names) - 2
            while k >= 0 and names[k] != name:
                k -= 1
            if k < 0:
                continue
            open_index, tables = opens[k]
            del names[k:], opens[k:]
        if name in kept:
            elements.append(_Element(name, open_index, index, tables > 0))
    return elements


class _Page:
    """What the rules need to know about a tokenized page."""

    def __init__(self, tokens: list[NqToken], regions: list[Region]) -> None:
        self.tokens = tokens
        # words[i]: word tokens before token i
        self.words = list(accumulate(map(not_, map(_IS_HTML, tokens)), initial=0))
        self.content = [(r.start_byte, r.end_byte) for r in regions if r.label == "content"]
        self.toc = [(r.start_byte, r.end_byte) for r in regions if r.label == "toc"]
        self.elements = _elements(tokens)
        self.stop = self._stop_index()

    def in_content(self, byte: int) -> bool:
        return not self.content or _inside(self.content, byte)

    def in_toc(self, byte: int) -> bool:
        return _inside(self.toc, byte)

    def _stop_index(self) -> int:
        """Token index of the first stop heading in the body (len(tokens) if none)."""
        stop = len(self.tokens)
        for el in self.elements:
            if el.name != STOP_HEADING_TAG or el.open_index >= stop:
                continue
            start = self.tokens[el.open_index].start_byte
            if self.in_content(start) and not self.in_toc(start):
                words = [t.token for t in self.tokens[el.open_index + 1:el.close_index]
                         if not t.html_token]
                if is_stop_heading(words):
                    stop = el.open_index
        return stop

    def chosen(self) -> list[_Element]:
        """The elements rules 1-5 keep, by start token: the cheap index tests first, the
        region lookups last (a loop, not a method call per element: thousands a page)."""
        tokens, words, stop, content, toc = (self.tokens, self.words, self.stop, self.content,
                                             self.toc)
        chosen: list[_Element] = []
        for el in self.elements:
            name, open_index, close_index, in_table = el
            if (name not in CANDIDATE_TAGS or open_index >= stop
                    or words[close_index] == words[open_index]
                    or (in_table and close_index - open_index - 1 < MIN_TOKENS_IN_TABLE)):
                continue
            start = tokens[open_index].start_byte
            if (not content or _inside(content, start)) and not (toc and _inside(toc, start)):
                chosen.append(el)
        chosen.sort(key=_OPEN_INDEX)
        return chosen


def _inside(spans: list[tuple[int, int]], byte: int) -> bool:
    """True when ``byte`` is in one of the [start, end) ``spans``."""
    for start, end in spans:
        if start <= byte < end:
            return True
    return False


def _candidates(tokens: list[NqToken], regions: list[Region]) -> list[LongAnswerCandidate]:
    out: list[LongAnswerCandidate] = []
    open_ends: list[int] = []
    for name, open_index, close_index, _ in _Page(tokens, regions).chosen():
        while open_ends and open_ends[-1] < open_index:
            open_ends.pop()
        out.append(LongAnswerCandidate(
            start_token=open_index, end_token=close_index + 1,
            start_byte=tokens[open_index].start_byte, end_byte=tokens[close_index].end_byte,
            top_level=not open_ends, tag=name))
        open_ends.append(close_index)
    return out


def long_answer_candidates(html: str, tokens: list[NqToken]) -> list[LongAnswerCandidate]:
    """NQ long-answer candidates of ``html`` given its ``tokens`` (ours or Google's)."""
    _, regions = scan_nq_html(html, page_region, words=False)
    return _candidates(tokens, regions)


def nq_document(html: str) -> tuple[list[NqToken], list[LongAnswerCandidate]]:
    """``document_tokens`` and ``long_answer_candidates`` of a page, in one HTML pass."""
    tokens, regions = scan_nq_html(html, page_region)
    return tokens, _candidates(tokens, regions)
