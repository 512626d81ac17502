"""Parse a BBC News article page of any layout era into ordered body blocks.

Layout depends on the capture date (NLQuAD issue, "Facts to build on"):

* Era A (before Apr 2015): ``div.story-body``, ``h1.story-header``, ``span.cross-head``.
* Era B (Apr 2015 - Oct 2020, nearly all of NLQuAD): ``div.story-body__inner`` with direct
  ``p``, ``h2.story-body__crosshead``, ``ul.story-body__unordered-list``, ``figure``,
  ``hr.story-body__line``; headline ``h1.story-body__h1``; date in
  ``div.mini-info-list div.date[data-seconds]`` or JSON-LD ``datePublished``.
* Era C (Nov 2020 -) and D/E (2021 -): ``article`` with ``data-component`` (newest:
  ``data-block``) blocks ``text-block``, ``crosshead-block``, ``subheadline-block``,
  ``unordered-list-block``; headline ``h1#main-heading``; date ``time[datetime]``.

Only article text is kept: captions, image credits, media, scripts and styles, ad slots, share
tools, "Related Topics", promos and see-also lists never become blocks. The result is a list of
``Block`` (paragraph, subheading, list, break) in reading order, or a named skip reason.

Lists that are navigation stay blocks but are flagged, so the QA builder can leave them out of
the context and count them: ``link_only`` ("related stories": every item is one link) and
``promo`` (the 2020 promo box, e.g. "AVOIDING CONTACT: <a>The rules on self-isolation</a>":
every item is dominated by link text, see ``is_navigation_item``). NLQuAD §3 discards questions
whose answer contains a bullet list; a promo box is not part of the answer, so it must not cost
the question. Its announcing banner (an image, "Banner image reading 'more about coronavirus'")
never becomes a block, like every image that is not a break-line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from lxml import etree
from lxml import html as lxml_html

PARAGRAPH, SUBHEADING, LIST, BREAK = "paragraph", "subheading", "list", "break"

_WS = re.compile(r"\s+")
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
_GREY_LINE = re.compile(r"presentational (grey|gray)? ?line|grey line|gray line", re.I)
_REMOVED_TAGS = ("script", "style", "template", "svg", "button", "iframe", "form")

_C_PARAGRAPH = {"text-block", "text"}
_C_SUBHEADING = {"crosshead-block", "subheadline-block", "crosshead", "subheadline",
                 "subheading-block", "heading-block"}
_C_LIST = {"unordered-list-block", "ordered-list-block", "list-block", "unorderedList",
           "orderedList", "list"}
_C_IMAGE = {"image-block", "image"}
_C_BREAK = {"divider-block", "divider", "hr-block"}

_A_NOISE_CLASSES = ("caption", "embedded-hyper", "story-feature", "share-help", "videoinstory",
                    "hyperpuff", "puffbox", "bookmark", "byline", "story-date", "emp-",
                    "mva", "warning", "story-header", "related")
_B_NOISE_CLASSES = ("bbccom_slot", "bbccom_advert", "social-embed", "media-player",
                    "player-with-placeholder", "twitter-tweet", "instagram", "tags-",
                    "share", "related", "story-more", "inline-media", "off-screen",
                    "byline", "mini-info")
_NOISE_TAGS = ("figure", "figcaption", "noscript", "aside", "table", "nav", "header",
               "footer", "h1", "img", "picture", "video", "audio")


@dataclass(frozen=True)
class Block:
    """One body block in reading order."""

    kind: str
    text: str = ""
    items: tuple[str, ...] = ()
    link_only: bool = False
    promo: bool = False


@dataclass(frozen=True)
class ParsedArticle:
    """What the parser found on an article page."""

    era: str
    headline: str
    og_title: str
    published: str
    canonical_link: str
    blocks: tuple[Block, ...] = field(default_factory=tuple)

    @property
    def paragraphs(self) -> list[str]:
        return [b.text for b in self.blocks if b.kind == PARAGRAPH]


@dataclass(frozen=True)
class ParseSkip:
    """A page that is not a usable article, with the named reason."""

    reason: str
    detail: str = ""


def clean_text(text: str) -> str:
    """Collapse whitespace (including non-breaking spaces) to single spaces and trim."""
    return _WS.sub(" ", text.replace("\u00a0", " ")).strip()


def _text(el: etree._Element) -> str:
    return clean_text("".join(el.itertext()))


def _classes(el: etree._Element) -> str:
    return (el.get("class") or "").lower()


def _has_class(el: etree._Element, name: str) -> bool:
    return name in _classes(el).split()


class TooDeeplyNested(ValueError):
    """The page nests elements deeper than libxml2 parses even without its default limit."""


def load_html(html_text: str) -> etree._Element | None:
    """Parse without libxml2's default depth limit of 256 (``huge_tree``: 2048 levels); a page
    nested deeper still raises ``TooDeeplyNested`` rather than losing its rest silently."""
    text = _XML_DECL.sub("", html_text, count=1)
    if not text.strip():
        return None
    parser = lxml_html.HTMLParser(huge_tree=True)
    try:
        doc = lxml_html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError):
        doc = None
    for entry in parser.error_log:
        if entry.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT or "Excessive depth" in entry.message:
            raise TooDeeplyNested(entry.message.strip())
    if doc is None:
        return None
    for br in doc.iter("br"):
        br.tail = "\n" + (br.tail or "")
    return doc


def _json_ld_objects(doc: etree._Element) -> list[dict]:
    objects: list[dict] = []
    for script in doc.xpath('//script[@type="application/ld+json"]'):
        try:
            data = json.loads(script.text or "")
        except (json.JSONDecodeError, TypeError):
            continue
        stack = data if isinstance(data, list) else [data]
        while stack:
            item = stack.pop(0)
            if isinstance(item, dict):
                objects.append(item)
                graph = item.get("@graph")
                if isinstance(graph, list):
                    stack.extend(graph)
    return objects


def normalize_datetime(value: str) -> str:
    """Normalize a page date (ISO 8601, epoch seconds or ``YYYY/MM/DD hh:mm:ss``) to
    ``YYYY-MM-DDTHH:MM:SSZ`` in UTC; empty string when unparseable."""
    value = (value or "").strip()
    if not value:
        return ""
    try:
        if value.isdigit():
            moment = datetime.fromtimestamp(int(value), tz=UTC)
        else:
            candidate = value.replace("/", "-").replace(" ", "T", 1)
            moment = datetime.fromisoformat(candidate.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        return ""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _published(doc: etree._Element, ld: list[dict]) -> str:
    candidates: list[str] = [str(o.get("datePublished", "")) for o in ld]
    candidates += doc.xpath('//div[contains(@class,"mini-info-list")]'
                            '//div[contains(@class,"date")]/@data-seconds')
    candidates += doc.xpath("//article//time/@datetime | //main//time/@datetime")
    candidates += doc.xpath('//meta[@name="OriginalPublicationDate"]/@content')
    candidates += doc.xpath('//meta[@property="article:published_time"]/@content')
    candidates += doc.xpath("//time/@datetime")
    for candidate in candidates:
        normalized = normalize_datetime(candidate)
        if normalized:
            return normalized
    return ""


def _meta(doc: etree._Element, prop: str) -> str:
    values = doc.xpath(f'//meta[@property="{prop}" or @name="{prop}"]/@content')
    return clean_text(values[0]) if values else ""


def _headline(doc: etree._Element, era: str, ld: list[dict], og_title: str) -> str:
    paths = {
        "A": ('//h1[contains(@class,"story-header")]',),
        "B": ('//h1[contains(@class,"story-body__h1")]',),
        "C": ('//h1[@id="main-heading"]',),
        "D": ('//h1[@id="main-heading"]', '//*[@data-component="headline-block"]//h1'),
    }.get(era, ())
    for path in (*paths, "//article//h1", "//h1"):
        for el in doc.xpath(path):
            text = _text(el)
            if text:
                return text
    for obj in ld:
        if obj.get("headline"):
            return clean_text(str(obj["headline"]))
    return og_title


def _is_link_only(el: etree._Element, text: str) -> bool:
    """A paragraph made of nothing but links is navigation ("Read the full transcript")."""
    links = list(el.iter("a"))
    return bool(links) and clean_text(" ".join(_text(a) for a in links)) == text


# A promo item is a short capitalised label and a link ("HOPE AND LOSS: <a>Your coronavirus
# stories</a>"), or text that is mostly link text. A list is a promo when every item is one.
# Measured on the real pages in ../shared/data/bbc (tests/filters/bbc/
# test_promo_lists_realdata.py): the 13 items of the three 2020 promo boxes carry 0.41-0.82 of
# their text as link text, every one behind such a label (0.41: the longest label, 39
# characters); prose items with an inline link carry at most 0.45; and each of the five lists
# kept as text there has an item without any link (share 0.0), so "every item" has a wide margin.
PROMO_MIN_LINK_SHARE = 0.5
PROMO_LABEL_MAX_CHARS = 60
_PROMO_LABEL = re.compile(r"^[A-Z0-9][A-Z0-9 &'\u2019,./()+-]*:$")


def link_share(el: etree._Element, text: str | None = None) -> float:
    """Share of an element's text (characters, whitespace collapsed) that is link text."""
    text = _text(el) if text is None else text
    if not text:
        return 0.0
    linked = clean_text(" ".join(_text(a) for a in el.iter("a")))
    return min(1.0, len(linked) / len(text))


def _text_before_first_link(el: etree._Element) -> str:
    parts: list[str] = []

    def collect(node: etree._Element) -> bool:
        if node.tag == "a":
            return True
        parts.append(node.text or "")
        for child in node:
            if isinstance(child.tag, str) and collect(child):
                return True
            parts.append(child.tail or "")
        return False

    collect(el)
    return clean_text("".join(parts))


def is_navigation_item(el: etree._Element, text: str | None = None) -> bool:
    """A list item that only points elsewhere: it has link text and either the link text is at
    least ``PROMO_MIN_LINK_SHARE`` of the item, or everything outside the links is one short
    capitalised label ending in ":" before the first link ("VIDEO: <a>The 20-second hand
    wash</a>")."""
    text = _text(el) if text is None else text
    linked = [t for t in (_text(a) for a in el.iter("a")) if t]
    if not text or not linked:
        return False
    if link_share(el, text) >= PROMO_MIN_LINK_SHARE:
        return True
    label = _text_before_first_link(el)
    rest = text[len(label):] if text.startswith(label) else text
    for link in linked:
        rest = rest.replace(link, " ", 1)
    return (len(label) <= PROMO_LABEL_MAX_CHARS and bool(_PROMO_LABEL.match(label))
            and any(c.isalpha() for c in label) and not clean_text(rest).strip(".,;:-"))


def _list_block(el: etree._Element) -> Block | None:
    items, link_only, promo = [], True, True
    for li in el.iter("li"):
        text = _text(li)
        if not text:
            continue
        items.append(text)
        if not _is_link_only(li, text):
            link_only = False
        if not is_navigation_item(li, text):
            promo = False
    if not items:
        return None
    return Block(LIST, items=tuple(items), link_only=link_only, promo=promo and not link_only)


def _is_grey_line(el: etree._Element) -> bool:
    alts = el.xpath(".//img/@alt | .//@data-alt")
    return any(_GREY_LINE.search(a or "") for a in alts)


def _block_name(el: etree._Element) -> str:
    return el.get("data-component") or el.get("data-block") or ""


def _walk(root: etree._Element, visit) -> None:
    """Call ``visit(child)`` on the elements under ``root`` in document order, descending into
    a child when ``visit`` returns True; an explicit stack, so any depth is fine."""
    stack = [iter(root)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif isinstance(child.tag, str) and visit(child):
            stack.append(iter(child))


def _walk_component_blocks(root: etree._Element, out: list[Block]) -> None:
    """Era C+: only ``data-component``/``data-block`` blocks carry body content."""

    def visit(child: etree._Element) -> bool:
        name = _block_name(child)
        if not name:
            return child.tag not in ("header", "nav", "footer", "aside")
        if name in _C_PARAGRAPH:
            found = len(out)
            _walk_classic(child, out, ())
            text = _text(child)
            if len(out) == found and text and not _is_link_only(child, text):
                out.append(Block(PARAGRAPH, text))
        elif name in _C_SUBHEADING:
            text = _text(child)
            if text:
                out.append(Block(SUBHEADING, text))
        elif name in _C_LIST:
            block = _list_block(child)
            if block:
                out.append(block)
        elif name in _C_BREAK or (name in _C_IMAGE and _is_grey_line(child)):
            out.append(Block(BREAK))
        return False

    _walk(root, visit)


def _is_noise(el: etree._Element, noise_classes: tuple[str, ...]) -> bool:
    if el.tag in _NOISE_TAGS:
        return True
    classes = _classes(el)
    return any(n in classes for n in noise_classes) or el.get("aria-hidden") == "true"


def _walk_classic(el: etree._Element, out: list[Block], noise: tuple[str, ...]) -> None:
    """Era A/B: walk the body in document order, pruning non-text containers."""

    def visit(child: etree._Element) -> bool:
        tag = child.tag
        if tag == "figure" and _is_grey_line(child):
            out.append(Block(BREAK))
        elif tag == "hr":
            out.append(Block(BREAK))
        elif _is_noise(child, noise):
            return False
        elif tag == "p":
            cross = [s for s in child.iter("span") if _has_class(s, "cross-head")]
            text = _text(child)
            if cross and text == clean_text(" ".join(_text(s) for s in cross)):
                out.append(Block(SUBHEADING, text))
            elif text and not _is_link_only(child, text):
                out.append(Block(PARAGRAPH, text))
        elif tag in ("h2", "h3") or (tag == "span" and _has_class(child, "cross-head")):
            text = _text(child)
            if text:
                out.append(Block(SUBHEADING, text))
        elif tag in ("ul", "ol"):
            block = _list_block(child)
            if block:
                out.append(block)
        else:
            return True
        return False

    _walk(el, visit)


def _find_body(doc: etree._Element) -> tuple[str, etree._Element | None]:
    component = ('.//*[@data-component="text-block" or @data-block="text" '
                 'or @data-component="crosshead-block" or @data-component="subheadline-block"]')
    for art in doc.xpath("//article | //main"):
        if art.xpath(component):
            modern = art.xpath('.//@data-block | .//*[contains(@class,"ssrcss-")]')
            return ("D" if modern else "C"), art
    inner = doc.xpath('//div[contains(concat(" ", normalize-space(@class), " "), '
                      '" story-body__inner ")]')
    if inner:
        return "B", inner[0]
    story = doc.xpath('//div[contains(concat(" ", normalize-space(@class), " "), " story-body ")]')
    if story:
        return "A", story[0]
    return "", None


def parse_bbc_article(html_text: str) -> ParsedArticle | ParseSkip:
    """Parse a decoded BBC News page (NLQuAD §3: text-only article body with sub-headings)."""
    try:
        doc = load_html(html_text)
    except TooDeeplyNested as error:
        return ParseSkip("too_deeply_nested", f"deeper than libxml2 parses: {error}")
    if doc is None or not doc.xpath("//body"):
        return ParseSkip("no_article_body", "no <body> in the page (truncated or empty)")
    ld = _json_ld_objects(doc)
    og_title = _meta(doc, "og:title")
    og_type = _meta(doc, "og:type").lower()
    canonical = doc.xpath('//link[@rel="canonical"]/@href')
    published = _published(doc, ld)
    etree.strip_elements(doc, *_REMOVED_TAGS, with_tail=False)
    era, body = _find_body(doc)
    if body is None:
        if og_type.startswith("video"):
            return ParseSkip("video_page", f"og:type={og_type} and no article body")
        return ParseSkip("no_article_body", "no article body container of any known era")
    blocks: list[Block] = []
    if era in ("C", "D"):
        _walk_component_blocks(body, blocks)
    else:
        _walk_classic(body, blocks, _A_NOISE_CLASSES if era == "A" else _B_NOISE_CLASSES)
    if not any(b.kind == PARAGRAPH for b in blocks):
        return ParseSkip("empty_document", f"era {era} body without paragraphs")
    return ParsedArticle(
        era=era,
        headline=_headline(doc, era, ld, og_title),
        og_title=og_title,
        published=published,
        canonical_link=clean_text(canonical[0]) if canonical else "",
        blocks=tuple(blocks),
    )
