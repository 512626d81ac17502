"""What identifies a news page of any site: its URL, document id, headline and date.

* URL: the page's ``<link rel="canonical">``, else its ``og:url``, else the capture URL
  (relative links resolved against the capture URL).
* Asset key (what capture deduplication groups by): the URL without scheme, ``www.``,
  query, fragment, trailing slash and AMP markers (``/amp/``, ``.amp``), so two captures of
  one article share it; the document id is ``news-`` and 16 hex digits of its SHA-1.
* Publication date: htmldate (``find_date``) over the page's metadata only
  (``extensive_search=False``: meta tags, JSON-LD, ``<time>``; never a date guessed from
  the text), the original rather than the updated date.
* Headline: ``og:title``, else the first ``<h1>``, else ``<title>``.
"""

from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from lxml import etree

from filters.bbc.article import clean_text, normalize_datetime

DOCUMENT_PREFIX = "news-"
_AMP_SEGMENT = re.compile(r"/amp(?=/|$)|\.amp$")
_LD_PUBLISHED = re.compile(r'"datePublished"\s*:\s*"([^"]+)"')


@dataclass(frozen=True)
class PageIdentity:
    """Where an article lives, independent of the capture."""

    canonical_url: str
    asset_key: str
    document_id: str
    is_amp: bool


def _first(doc: etree._Element, path: str) -> str:
    for value in doc.xpath(path):
        text = clean_text(value if isinstance(value, str) else "".join(value.itertext()))
        if text:
            return text
    return ""


def canonical_url(doc: etree._Element, capture_url: str) -> str:
    """``<link rel=canonical>``, else ``og:url``, else the capture URL; absolute."""
    found = (_first(doc, '//link[contains(concat(" ", normalize-space(@rel), " "), '
                         '" canonical ")]/@href')
             or _first(doc, '//meta[@property="og:url" or @name="og:url"]/@content')
             or _first(doc, '//meta[@property="og:url" or @name="og:url"]/@value'))
    if not found:
        return capture_url.strip()
    return urljoin(capture_url.strip(), found)


def page_identity(url: str) -> PageIdentity:
    """The asset key and document id of an article URL (see the module docstring)."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = re.sub(r"/{2,}", "/", parts.path or "/")
    is_amp = bool(_AMP_SEGMENT.search(path)) or "amp" in parts.query.split("&")
    path = _AMP_SEGMENT.sub("", path).rstrip("/") or "/"
    key = f"{host}{path}"
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]
    return PageIdentity(url.strip(), key, DOCUMENT_PREFIX + digest, is_amp)


def headline(doc: etree._Element) -> str:
    """``og:title``, else the first ``<h1>``, else ``<title>``."""
    return (_first(doc, '//meta[@property="og:title" or @name="og:title"]/@content')
            or _first(doc, "//h1") or _first(doc, "//title"))


def published_date(doc: etree._Element) -> str:
    """The publication date from the page's metadata (htmldate), as
    ``YYYY-MM-DDTHH:MM:SSZ``: the time is that of a metadata timestamp of the same day
    (``article:published_time``, JSON-LD ``datePublished``, ``<time datetime>``), midnight
    when none has one; empty when the metadata has no date. htmldate cleans the tree it
    reads, so it reads a copy."""
    from htmldate import find_date

    try:
        day = find_date(copy.deepcopy(doc), extensive_search=False, original_date=True,
                        outputformat="%Y-%m-%d")
    except (ValueError, TypeError):
        return ""
    if not day:
        return ""
    candidates = doc.xpath('//meta[@property="article:published_time" or '
                           '@name="article:published_time" or @itemprop="datePublished"]'
                           '/@content | //time/@datetime')
    for script in doc.xpath('//script[@type="application/ld+json"]/text()'):
        candidates += _LD_PUBLISHED.findall(script)
    for candidate in candidates:
        moment = normalize_datetime(str(candidate))
        if moment.startswith(day):
            return moment
    return normalize_datetime(day)
