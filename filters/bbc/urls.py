"""Classify and normalize BBC News URLs.

Article pages are ``/news/<section-slug>-<asset id>`` (7-9 digits) on bbc.co.uk or bbc.com, and
from 2021 ``/news/articles/<12-char id>``. Everything else under ``/news/`` is a video page
(``/news/av/``), a live page (``/news/live/``), an index page (``/news``, ``/news/world``,
``/news/topics/...``) or some other non-article page (interactives, other services, sport).
Two URLs of one article share an *asset key* once host, scheme, port, query, fragment and the
``/amp/`` prefix are normalized away (NLQuAD issue, "Facts to build on: URLs").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

BBC_HOSTS = ("bbc.co.uk", "bbc.com")
CANONICAL_HOST = "https://www.bbc.co.uk"

_ASSET_PATH = re.compile(r"^/news/(?P<amp>amp/)?(?P<slug>[a-z][a-z0-9_-]*?)-(?P<id>\d{7,9})/?$")
_NEW_ARTICLE_PATH = re.compile(r"^/news/(?P<amp>amp/)?articles/(?P<id>[a-z0-9]{12})(?:\.amp)?/?$")
_INDEX_PATH = re.compile(r"^/news(?:/[a-z_]+(?:[-/][a-z_]+)*)?/?$")
_INDEX_PREFIXES = ("/news/topics/", "/news/localnews/", "/news/correspondents/")
_NON_ARTICLE_PREFIXES = (
    "/news/extra/",
    "/news/resources/",
    "/news/special/",
    "/news/video_and_audio/",
    "/news/in_pictures",
    "/news/world_radio_and_tv",
)


@dataclass(frozen=True)
class UrlClass:
    """Outcome of URL classification: ``kind`` is ``article`` or a skip reason."""

    kind: str
    asset_key: str = ""
    canonical_url: str = ""
    is_amp: bool = False

    @property
    def is_article(self) -> bool:
        return self.kind == "article"


def _bbc_path(url: str) -> str | None:
    """Return the lower-cased path of a BBC URL, or None for other hosts."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if not any(host == h or host.endswith("." + h) for h in BBC_HOSTS):
        return None
    return re.sub(r"/{2,}", "/", parts.path or "/").lower()


def is_bbc_host(url: str) -> bool:
    """True when ``url`` is on a BBC host (bbc.co.uk, bbc.com or a subdomain), article or not."""
    return _bbc_path(url) is not None


def classify_bbc_url(url: str) -> UrlClass:
    """Classify a BBC URL as an article (with its asset key) or a named non-article kind.

    Kinds: ``article``, ``video_page``, ``live_page``, ``index_page``, ``not_article_url``.
    """
    path = _bbc_path(url)
    if path is None or not path.startswith("/news"):
        return UrlClass("not_article_url")
    if path.startswith("/news/av/") or path.startswith("/news/av-embeds/"):
        return UrlClass("video_page")
    if path.startswith("/news/live/"):
        return UrlClass("live_page")
    if any(path.startswith(p) for p in _NON_ARTICLE_PREFIXES):
        return UrlClass("not_article_url")
    match = _NEW_ARTICLE_PATH.match(path)
    if match:
        key = f"news/articles/{match['id']}"
        return UrlClass("article", key, f"{CANONICAL_HOST}/{key}", bool(match["amp"]))
    match = _ASSET_PATH.match(path)
    if match:
        key = f"news/{match['id']}"
        canonical = f"{CANONICAL_HOST}/news/{match['slug']}-{match['id']}"
        return UrlClass("article", key, canonical, bool(match["amp"]))
    if any(path.startswith(p) for p in _INDEX_PREFIXES) or _INDEX_PATH.match(path):
        return UrlClass("index_page")
    return UrlClass("not_article_url")


def is_article_url(url: str) -> bool:
    """True when ``url`` is a BBC News article URL (the CDX enumeration's URL filter)."""
    return classify_bbc_url(url).is_article
