"""Wikipedia pages as NQ stored them: Parsoid HTML of one revision and a revision-pinned URL.

Pages come from the Wikimedia REST API, ``GET /page/html/{title}?redirect=false`` (Parsoid
HTML; https://en.wikipedia.org/api/rest_v1/#/Page%20content/get_page_html__title_). The
revision is read from the ETag (``"<revision>/<render id>"``, possibly weak) or, failing that,
from the Parsoid ``<html about=".../Special:Redirect/revision/<revision>">`` attribute
(https://www.mediawiki.org/wiki/Specs/HTML). Redirect pages are reported, not followed: NQ's
document is the page the search engine ranked.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from transforms.clients.http_json import REDIRECT_STATUSES, HttpError, PoliteHttp, build_http
from transforms.clients.preflight import Endpoint

DEFAULT_REST_URL = "https://{lang}.wikipedia.org/api/rest_v1"
REST_PER_MINUTE = 100.0
# MediaWiki's wfUrlencode() leaves these characters unescaped in page URLs (NQ's URLs too:
# "The_Proud_Family_(soundtrack)", but "Five_Nights_at_Freddy%27s").
_TITLE_SAFE = ";@$!*(),/~:"
_REST_SAFE = _TITLE_SAFE.replace("/", "")
_ETAG_REVISION = re.compile(r'^\s*(?:W/)?"?(\d+)(?:/|")')
_HTML_TAG = re.compile(r"<html\b[^>]*>", re.I)
_ABOUT_REVISION = re.compile(r'\babout\s*=\s*["\'][^"\']*?revision/(\d+)["\']', re.I)
_LINK_TAG = re.compile(r"<link\b[^>]*>", re.I)
_REDIRECT_REL = re.compile(r'\brel\s*=\s*["\']mw:PageProp/redirect["\']', re.I)
_VERSION_OF_REL = re.compile(r'\brel\s*=\s*["\']dc:isVersionOf["\']', re.I)
_HREF = re.compile(r'\bhref\s*=\s*["\']([^"\']*)["\']', re.I)


@dataclass(frozen=True)
class WikiPage:
    """One revision of a Wikipedia page.

    ``title`` is the display title (spaces, as NQ's ``document_title``); ``html`` is the
    Parsoid HTML; ``url`` is :func:`nq_document_url` of the page.
    """

    title: str
    lang: str
    revision: int
    html: str
    url: str


class PageError(Exception):
    """A page that cannot be used: ``kind`` is "page_missing", "page_redirected" (``target``
    holds the redirect target's display title when known) or "no_revision"."""

    def __init__(self, kind: str, title: str = "", target: str | None = None) -> None:
        detail = f" -> {target}" if target else ""
        super().__init__(f"{kind}: {title}{detail}")
        self.kind = kind
        self.title = title
        self.target = target

    def __reduce__(self) -> tuple[Any, ...]:
        """Keep the attributes across pickling (Beam ships errors between workers)."""
        return (self.__class__, (self.kind, self.title, self.target))


def title_key(title: str) -> str:
    """MediaWiki's database form of a title: trimmed, underscores for spaces, runs collapsed,
    first letter upper-cased (``$wgCapitalLinks``, on for Wikipedias)."""
    key = re.sub(r"[\s_]+", "_", title).strip("_")
    first = key[:1].upper()
    return (first if len(first) == 1 else key[:1]) + key[1:]


def display_title(title: str) -> str:
    """The title with spaces, as shown on the page and in NQ's ``document_title``."""
    return title_key(title).replace("_", " ")


def quote_title(title: str) -> str:
    """The title as MediaWiki writes it in URLs (``wfUrlencode``): underscores for spaces,
    UTF-8 percent-encoding, with ``;@$!*(),/~:`` left as they are."""
    return quote(re.sub(r"\s", "_", title.strip()), safe=_TITLE_SAFE)


def article_url(lang: str, title: str) -> str:
    """``https://{lang}.wikipedia.org/wiki/<Title>``, e.g. ``.../wiki/Trade_winds``."""
    return f"https://{lang}.wikipedia.org/wiki/{quote_title(title)}"


def nq_document_url(lang: str, title: str, revision: int) -> str:
    """NQ's ``document_url`` for a page revision, reproduced byte for byte.

    NQ's URLs have a double slash before ``w/index.php`` and an HTML-escaped ``&amp;``
    between the parameters, e.g.
    ``https://en.wikipedia.org//w/index.php?title=Trade_winds&amp;oldid=817251427``.
    """
    return f"https://{lang}.wikipedia.org//w/index.php?title={quote_title(title)}&amp;oldid={revision}"


def revision_from_etag(etag: str) -> int | None:
    """The revision in a REST API ETag: ``W/"817251427/<tid>"`` or ``"817251427/<tid>"``."""
    match = _ETAG_REVISION.match(etag or "")
    return int(match.group(1)) if match else None


def revision_from_html(page_html: str) -> int | None:
    """The revision in Parsoid's ``<html about="...Special:Redirect/revision/<id>">``."""
    tag = _HTML_TAG.search(page_html)
    match = _ABOUT_REVISION.search(tag.group(0)) if tag else None
    return int(match.group(1)) if match else None


def redirect_target(page_html: str) -> str | None:
    """Display title of a Parsoid redirect page's target
    (``<link rel="mw:PageProp/redirect" href="./Target"/>``), None for other pages."""
    href = _link_href(page_html, _REDIRECT_REL)
    return _href_title(href) if href is not None else None


def canonical_title(page_html: str) -> str | None:
    """Display title from Parsoid's ``<link rel="dc:isVersionOf" href="//host/wiki/Title"/>``."""
    href = _link_href(page_html, _VERSION_OF_REL)
    return _href_title(href) if href is not None else None


def pages_endpoint(lang: str = "en", rest_url: str | None = None,
                   timeout: tuple[float, float] = (10.0, 30.0), option: str = "") -> Endpoint:
    """What the preflight check asks of the REST API: its root (``/api/rest_v1/``, the API's
    own description), no page fetched."""
    base = (rest_url or DEFAULT_REST_URL.format(lang=lang)).rstrip("/")
    return Endpoint("the Wikimedia REST API (pages)", f"{base}/", (), option, timeout)


class WikipediaPageFetcher:
    """Fetches the current Parsoid HTML of Wikipedia pages, cached and retried.

    ``http_options`` go to :class:`transforms.clients.http_json.PoliteHttp` (``cache_dir``,
    ``cache_storage`` for a remote ``cache_dir``, ``per_minute``, ``max_retries``, ``sleep``,
    ``clock``, ...) unless a ready ``http`` client is given.
    Without ``revision``, the cache pins whatever revision was current at the first fetch.
    """

    def __init__(
        self,
        lang: str = "en",
        rest_url: str | None = None,
        *,
        http: PoliteHttp | None = None,
        **http_options: Any,
    ) -> None:
        self.lang = lang
        self.rest_url = (rest_url or DEFAULT_REST_URL.format(lang=lang)).rstrip("/")
        self.http = http or build_http(REST_PER_MINUTE, **http_options)

    def close(self) -> None:
        """Close the HTTP session."""
        self.http.close()

    def __enter__(self) -> WikipediaPageFetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def stats(self) -> dict[str, int]:
        """The HTTP client's counters."""
        return self.http.stats

    def fetch(self, title: str, revision: int | None = None) -> WikiPage:
        """The page ``title`` (current revision, or ``/page/html/{title}/{revision}``).

        Raises :class:`PageError` for missing and redirected pages and when no revision can be
        found; other failures raise :class:`transforms.clients.http_json.HttpError`.
        """
        key = title_key(title)
        if not key:
            raise ValueError("empty page title")
        path = quote(key, safe=_REST_SAFE) + (f"/{int(revision)}" if revision else "")
        try:
            result = self.http.get(
                f"{self.rest_url}/page/html/{path}", {"redirect": "false"}, allow_redirects=False
            )
        except HttpError as err:
            if err.kind in ("http_404", "http_410"):
                raise PageError("page_missing", display_title(key)) from err
            raise
        if result.status in REDIRECT_STATUSES:
            target = _location_title(result.header("Location"))
            raise PageError("page_redirected", display_title(key), target)
        return self._page(key, result.text, result.header("ETag"))

    def _page(self, key: str, page_html: str, etag: str) -> WikiPage:
        """Build the WikiPage, refusing redirect pages and pages without a revision."""
        target = redirect_target(page_html)
        if target is not None:
            raise PageError("page_redirected", display_title(key), target)
        revision = revision_from_etag(etag) or revision_from_html(page_html)
        if revision is None:
            raise PageError("no_revision", display_title(key))
        title = canonical_title(page_html) or display_title(key)
        url = nq_document_url(self.lang, title, revision)
        return WikiPage(title=title, lang=self.lang, revision=revision, html=page_html, url=url)


def _link_href(page_html: str, rel: re.Pattern[str]) -> str | None:
    """``href`` of the first ``<link>`` whose ``rel`` matches."""
    for tag in _LINK_TAG.finditer(page_html):
        if rel.search(tag.group(0)):
            href = _HREF.search(tag.group(0))
            return html_lib.unescape(href.group(1)) if href else None
    return None


def _href_title(href: str) -> str:
    """Display title of ``./Title``, ``//host/wiki/Title`` or ``/wiki/Title#Section``."""
    path = urlsplit(href).path
    if "/wiki/" in path:
        path = path.split("/wiki/", 1)[1]
    elif path.startswith("./"):
        path = path[2:]
    return display_title(unquote(path))


def _location_title(location: str) -> str | None:
    """Target title of a REST redirect's ``Location`` (``Target``, ``../html/Target``, ...)."""
    path = urlsplit(location or "").path
    if not path:
        return None
    if "/page/html/" in path:
        path = path.split("/page/html/", 1)[1].split("/", 1)[0]
    else:
        path = path.rstrip("/").rsplit("/", 1)[-1]
    return display_title(unquote(path)) or None
