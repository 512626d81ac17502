"""Parse a news page of any site into NLQuAD body blocks (``build_nlquad --layout generic``).

The main content is found by trafilatura (chosen over resiliparse and readability-lxml on
the 16 pages of ../shared/data/news: docs/design/news-extractor.md), asked to keep headings
(``<head>``), paragraphs, lists and quotes, and the links (a paragraph or list item that is
only a link is navigation). Its body becomes the same ``Block`` list the BBC parser gives
(``filters.bbc.article``), so the NLQuAD rules of ``filters.nlquad.qa`` apply unchanged.

Before extraction the page's interrogative headings are checked where they stand
(``filters.nlquad.boilerplate_questions.heading_context_verdict``): one inside a newsletter,
comments, ad, related-links or FAQ element, or whose words are a newsletter, comment or ad
prompt (``question_text_verdict``), is removed and reported as a dropped question with its
reason (NLQuAD §3: the template is removed; these must never
become questions). A heading that repeats the page's headline is the title, not a
sub-heading, and is removed too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from filters.bbc.article import (
    LIST,
    PARAGRAPH,
    SUBHEADING,
    Block,
    ParseSkip,
    TooDeeplyNested,
    clean_text,
    load_html,
)
from filters.nlquad.boilerplate_questions import heading_context_verdict, question_text_verdict
from filters.nlquad.news_page import PageIdentity, canonical_url, headline, page_identity
from filters.nlquad.news_page import published_date as page_date
from filters.nlquad.qa import is_interrogative

GENERIC_ERA = "generic"  # the ``layout_era`` of rows from the generic extractor
EXTRACTOR = "trafilatura"
NO_ARTICLE_BODY = "no_article_body"
EMPTY_DOCUMENT = "empty_document"
TOO_DEEPLY_NESTED = "too_deeply_nested"
CONTEXT_LEVELS = 4  # enclosing elements whose class/id words place a heading
PROMPT_MAX_WORDS = 60  # a prompt's section removed with it ("Tell us in the comments below.")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_STOP_AT = ("article", "main", "body")
_REMOVED_TAGS = ("script", "style", "template", "svg", "noscript")


@dataclass(frozen=True)
class NewsArticle:
    """What the generic parser found on a page."""

    identity: PageIdentity
    headline: str
    published: str
    blocks: tuple[Block, ...]
    dropped_headings: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    @property
    def paragraphs(self) -> list[str]:
        return [b.text for b in self.blocks if b.kind == PARAGRAPH]


def _text(el: etree._Element) -> str:
    return clean_text("".join(el.itertext()))


def _link_only(el: etree._Element, text: str, link_tags: tuple[str, ...]) -> bool:
    linked = clean_text(" ".join(_text(a) for a in el.iter(*link_tags)))
    return bool(linked) and linked == text


def _furniture_container(heading: etree._Element) -> tuple[etree._Element, str] | None:
    """The heading or the nearest of its ``CONTEXT_LEVELS`` enclosing elements (below any
    ``article``/``main``/``body``) whose class or id words make it furniture, with the
    reason; None when none does."""
    el: etree._Element | None = heading
    for _ in range(CONTEXT_LEVELS + 1):
        if el is None or not isinstance(el.tag, str) or el.tag in _STOP_AT:
            return None
        verdict = heading_context_verdict([el.get("class") or "", el.get("id") or ""])
        if not verdict.keep:
            return el, verdict.reason
        el = el.getparent()
    return None


def _prompt_section(heading: etree._Element) -> list[etree._Element]:
    """The heading and its short section (the elements after it up to the next heading, at
    most ``PROMPT_MAX_WORDS`` words: "Tell us in the comments below."); only the heading
    when the section is longer."""
    section, words = [heading], 0
    for sibling in heading.itersiblings():
        if not isinstance(sibling.tag, str):
            continue
        if sibling.tag in _HEADINGS:
            break
        words += len(_text(sibling).split())
        section.append(sibling)
    return section if words <= PROMPT_MAX_WORDS else [heading]


def _remove(el: etree._Element) -> None:
    """Remove an element, keeping its tail text."""
    parent = el.getparent()
    if parent is None:
        return
    previous = el.getprevious()
    if el.tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def remove_furniture_questions(doc: etree._Element, title: str) -> list[tuple[str, str]]:
    """Remove the interrogative headings that are page furniture with what belongs to them
    (the furniture element they sit in, or a prompt's short section), and any heading
    repeating the headline; returns ``(question, reason)`` of the furniture, in page order."""
    dropped = []
    for heading in list(doc.iter(*_HEADINGS)):
        if heading.getparent() is None or not any(True for _ in heading.iterancestors("html")):
            continue  # inside furniture removed already
        text = _text(heading)
        if not text:
            continue
        if title and text == title:
            _remove(heading)
            continue
        if not is_interrogative(text):
            continue
        verdict = question_text_verdict(text)
        container = None if not verdict.keep else _furniture_container(heading)
        if not verdict.keep:
            dropped.append((text, verdict.reason))
            for el in _prompt_section(heading):
                _remove(el)
        elif container is not None:
            dropped.append((text, container[1]))
            _remove(container[0])
    return dropped


def _list_block(el: etree._Element) -> Block | None:
    items, link_only = [], True
    for item in el.iter("item"):
        text = _text(item)
        if text:
            items.append(text)
            link_only = link_only and _link_only(item, text, ("ref",))
    return Block(LIST, items=tuple(items), link_only=link_only) if items else None


def body_blocks(body: etree._Element) -> list[Block]:
    """trafilatura's body (``head``, ``p``, ``list``, ``quote``, ``code``) as blocks in
    reading order; a paragraph that is only a link is navigation and left out."""
    blocks: list[Block] = []
    for child in body:
        if not isinstance(child.tag, str):
            continue
        text = _text(child)
        if child.tag == "head":
            if text:
                blocks.append(Block(SUBHEADING, text))
        elif child.tag == "list":
            block = _list_block(child)
            if block:
                blocks.append(block)
        elif child.tag == "quote" and child.find("p") is not None:
            blocks += [Block(PARAGRAPH, t) for t in (_text(p) for p in child.iter("p")) if t]
        elif child.tag in ("p", "quote", "code") and text:
            if not _link_only(child, text, ("ref",)):
                blocks.append(Block(PARAGRAPH, text))
    return blocks


class NewsParser:
    """The generic parser; its trafilatura settings are made once (``DoFn.setup``)."""

    def __init__(self):
        from trafilatura.settings import Extractor

        self._options = Extractor(output_format="python", formatting=True, links=True,
                                  images=False, tables=False, comments=False, dedup=False)

    def parse(self, html_text: str, capture_url: str) -> NewsArticle | ParseSkip:
        """Blocks, headline, date and URL of a decoded page, or a named skip."""
        from trafilatura import bare_extraction

        try:
            doc = load_html(html_text)
        except TooDeeplyNested as error:
            return ParseSkip(TOO_DEEPLY_NESTED, f"deeper than libxml2 parses: {error}")
        if doc is None or not doc.xpath("//body"):
            return ParseSkip(NO_ARTICLE_BODY, "no <body> in the page (truncated or empty)")
        title = headline(doc)
        identity = page_identity(canonical_url(doc, capture_url))
        published = page_date(doc)
        etree.strip_elements(doc, *_REMOVED_TAGS, with_tail=False)
        dropped = remove_furniture_questions(doc, title)
        extracted = bare_extraction(doc, options=self._options)
        body = getattr(extracted, "body", None)
        if body is None or not len(body):
            return ParseSkip(NO_ARTICLE_BODY, f"{EXTRACTOR} found no main content on the "
                                              f"page (not an article, or text loaded by script)")
        blocks = body_blocks(body)
        if not any(b.kind == PARAGRAPH for b in blocks):
            return ParseSkip(EMPTY_DOCUMENT, f"the main content {EXTRACTOR} found has no "
                                             f"paragraph")
        return NewsArticle(identity, title, published, tuple(blocks), tuple(dropped))
