"""In-process fake of Wikipedia's APIs and of web search APIs, for offline tests.

Speaks the subset of each protocol the toolkit uses:

* ``GET /w/api.php?action=query&list=search`` — MediaWiki Action API search
  (https://www.mediawiki.org/wiki/API:Search), ``formatversion=2`` JSON with
  ``query.search[] = {ns, title, pageid, snippet}``; snippets are HTML-escaped and wrap matched
  terms in ``<span class="searchmatch">``; ranking is term overlap (title terms count double);
* ``GET /api/rest_v1/page/html/<title>[/<revision>]`` — Wikimedia REST API Parsoid HTML, with
  ``ETag: W/"<revision>/<tid>"``, 404 for unknown pages, 302 for ``redirects`` and Parsoid
  redirect pages (``<link rel="mw:PageProp/redirect">``) for ``redirect_pages``;
* ``GET /customsearch/v1`` — Google Programmable Search JSON (``items[]``), 403 without the
  right ``key``, 400 without ``cx`` or with ``num`` outside 1..10;
* ``GET /v7.0/search`` — a Bing-like API (``webPages.value[]``), key in the
  ``Ocp-Apim-Subscription-Key`` header, 401 without it.

Faults are scripted per path substring with :meth:`FakeWiki.fail`.
"""

from __future__ import annotations

import html
import json
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from tests.fakes.base import (
    CONNECTION_FAULTS,
    FakeHttpServer,
    FaultInjectingHandler,
    QuietServer,
)

STRING_FAULTS = (*CONNECTION_FAULTS, "maxlag")
REST_PREFIX = "/api/rest_v1/page/html/"
STOPWORDS = frozenset(
    "a an and are as at by did do does for from how in is it of on or the to was what when "
    "where which who why with".split()
)
_WORD = re.compile(r"\w+")

Fault = int | str | tuple[int, dict[str, str]]
Response = tuple[int, dict[str, str], bytes]
WebResult = tuple[str, str, str]


@dataclass
class FakePage:
    """A page of the fake wiki: plain ``text`` rendered as Parsoid HTML at ``revision``.

    ``etag=False`` serves the page without an ETag, so clients must read the revision from the
    ``<html about=".../revision/N">`` attribute; ``about=False`` leaves that attribute out.
    """

    title: str
    text: str
    revision: int
    page_id: int = 0
    etag: bool = True
    about: bool = True

    @property
    def key(self) -> str:
        return title_key(self.title)

    def parsoid_html(self, lang: str) -> str:
        """Parsoid-style HTML document of the page."""
        body = "".join(f"<p>{html.escape(part)}</p>" for part in self.text.split("\n\n"))
        document = _parsoid_document(lang, self.key, self.revision, self.page_id, body)
        return document if self.about else re.sub(r' about="[^"]*"', "", document, count=1)


PageSpec = FakePage | tuple[Any, ...]


def title_key(title: str) -> str:
    """Spaces to underscores, first letter upper-cased (MediaWiki's database key)."""
    key = re.sub(r"[\s_]+", "_", title).strip("_")
    return key[:1].upper() + key[1:]


def to_page(spec: PageSpec) -> FakePage:
    """Accept a FakePage or ``(title, text, revision[, page_id[, etag[, about]]])``."""
    return spec if isinstance(spec, FakePage) else FakePage(*spec)


def terms(text: str) -> list[str]:
    """Lower-cased word tokens of a query, stopwords and 1-letter words dropped."""
    words = _WORD.findall(text.lower())
    return [w for w in dict.fromkeys(words) if w not in STOPWORDS and len(w) > 1]


def _contains(haystack: str, term: str) -> bool:
    """Whole-word match for ASCII terms, substring match otherwise (CJK has no spaces)."""
    if term.isascii():
        return term in _WORD.findall(haystack.lower())
    return term in haystack.lower()


def score(page: FakePage, query_terms: Sequence[str]) -> int:
    """Term overlap: 2 per query term in the title, 1 per query term in the text."""
    return sum(2 * _contains(page.title, t) + _contains(page.text, t) for t in query_terms)


def highlight(text: str, query_terms: Sequence[str], width: int = 160) -> str:
    """HTML-escaped start of ``text`` with query terms in ``<span class="searchmatch">``."""
    escaped = html.escape(text[:width])
    for term in query_terms:
        pattern = rf"\b({re.escape(term)})\b" if term.isascii() else f"({re.escape(term)})"
        escaped = re.sub(pattern, r'<span class="searchmatch">\1</span>', escaped, flags=re.I)
    return escaped


class FakeWiki(FakeHttpServer):
    """Fake Wikipedia and web search APIs on 127.0.0.1 (random port) in a daemon thread.

    ``redirects`` map titles to targets answered with HTTP 302; ``redirect_pages`` map titles
    to targets answered with a Parsoid redirect page (what ``redirect=false`` really returns).
    ``web_results`` script web search answers per (lower-cased, stripped) query as
    ``(url, title, snippet)`` lists; other queries rank the pages and return their article
    URLs. Every request path (with query string) is appended to :attr:`requests`.

    Faults (``fail``): an HTTP status (sent without Retry-After), ``(status, headers)``,
    "hang" (stall ``hang_seconds``, then answer normally), "reset" (TCP reset, no response),
    "truncate" (Content-Length larger than the body, then close) or "maxlag" (HTTP 200
    MediaWiki error ``{"error": {"code": "maxlag", "lag": 7}}`` with ``Retry-After: 5``), and
    the hostile-server faults of :mod:`tests.fakes.base` ("gzip_bomb", "endless", "slowloris",
    "redirect_loop", "short_gzip").
    """

    def __init__(
        self,
        pages: Iterable[PageSpec] = (),
        *,
        lang: str = "en",
        redirects: Mapping[str, str] | None = None,
        redirect_pages: Mapping[str, str] | None = None,
        web_results: Mapping[str, Sequence[WebResult]] | None = None,
        api_key: str = "test-key",
        hang_seconds: float = 5.0,
    ) -> None:
        self.pages = {page.key: page for page in map(to_page, pages)}
        self.lang = lang
        self.redirects = {title_key(k): v for k, v in (redirects or {}).items()}
        self.redirect_pages = {title_key(k): v for k, v in (redirect_pages or {}).items()}
        self.web_results = {k.strip().lower(): list(v) for k, v in (web_results or {}).items()}
        self.api_key = api_key
        self.hang_seconds = hang_seconds
        self._init_server()

    # lifecycle -------------------------------------------------------------------------------

    @property
    def api_url(self) -> str:
        """The Action API endpoint (``/w/api.php``)."""
        return f"{self.base_url}/w/api.php"

    @property
    def rest_url(self) -> str:
        """The REST API root (``/api/rest_v1``)."""
        return f"{self.base_url}/api/rest_v1"

    # scripting and inspection ------------------------------------------------------------------

    def requests_to(self, path_substring: str) -> list[str]:
        """Logged requests whose path contains ``path_substring``."""
        return [path for path in self.requests if path_substring in path]

    # routing ---------------------------------------------------------------------------------

    def route(self, path: str, headers: Mapping[str, str]) -> Response:
        """Normal (fault-free) response for ``path``."""
        parts = urlsplit(path)
        query = parse_qs(parts.query, keep_blank_values=True)
        if parts.path == "/w/api.php":
            return self._action_api(query)
        if parts.path.startswith(REST_PREFIX):
            return self._page_html(parts.path[len(REST_PREFIX):])
        if parts.path == "/customsearch/v1":
            return self._google(query)
        if parts.path == "/v7.0/search":
            return self._bing(query, headers)
        return _json(404, {"error": "no such endpoint"})

    def ranked(self, query: str, limit: int) -> list[FakePage]:
        """Pages sharing terms with ``query``, best first (ties by title)."""
        query_terms = terms(query)
        scored = [(score(page, query_terms), page) for page in self.pages.values()]
        scored = [(s, page) for s, page in scored if s > 0]
        scored.sort(key=lambda item: (-item[0], item[1].title))
        return [page for _, page in scored[:limit]]

    def _action_api(self, query: dict[str, list[str]]) -> Response:
        if _first(query, "action") != "query" or _first(query, "list") != "search":
            return _api_error("badvalue", "Only action=query&list=search is faked.")
        search = _first(query, "srsearch")
        if not search:
            return _api_error("nosrsearch", 'The "srsearch" parameter must be set.')
        limit = int(_first(query, "srlimit") or 10)
        pages = self.ranked(search, limit)
        rows = [self._search_row(page, search) for page in pages]
        info = {"totalhits": len(self.ranked(search, len(self.pages)))}
        body = {"batchcomplete": True, "query": {"searchinfo": info, "search": rows}}
        return _json(200, body)

    def _search_row(self, page: FakePage, search: str) -> dict[str, Any]:
        return {"ns": 0, "title": page.title, "pageid": page.page_id,
                "snippet": highlight(page.text, terms(search))}

    def _page_html(self, rest: str) -> Response:
        """``<title>`` or ``<title>/<revision>`` (titles with "/" arrive as %2F)."""
        raw_title, _, raw_revision = rest.partition("/")
        key = title_key(unquote(raw_title))
        if key in self.redirects:
            location = quote(title_key(self.redirects[key]), safe="")
            return 302, {"Location": location, "Content-Type": "text/html"}, b""
        if key in self.redirect_pages:
            return self._redirect_page(key, self.redirect_pages[key])
        page = self.pages.get(key)
        if page is None or (raw_revision and raw_revision != str(page.revision)):
            return _not_found(rest)
        headers = {"Content-Type": 'text/html; charset=utf-8; profile="mediawiki.org/specs/html"'}
        if page.etag:
            headers["ETag"] = f'W/"{page.revision}/{_tid(page)}"'
        return 200, headers, page.parsoid_html(self.lang).encode("utf-8")

    def _redirect_page(self, key: str, target: str) -> Response:
        revision = zlib.crc32(key.encode()) % 10**8
        link = f'<link rel="mw:PageProp/redirect" href="./{quote(title_key(target), safe="")}"/>'
        document = _parsoid_document(self.lang, key, revision, 0, link)
        headers = {"Content-Type": "text/html; charset=utf-8", "ETag": f'"{revision}/redirect"'}
        return 200, headers, document.encode("utf-8")

    def _google(self, query: dict[str, list[str]]) -> Response:
        if _first(query, "key") != self.api_key:
            return _google_error(403, "Method doesn't allow unregistered callers.")
        if not _first(query, "cx"):
            return _google_error(400, "Request contains an invalid argument.")
        num = int(_first(query, "num") or 10)
        if not 1 <= num <= 10:
            return _google_error(400, "Request contains an invalid argument.")
        results = self._web_results(_first(query, "q") or "", num)
        body: dict[str, Any] = {
            "kind": "customsearch#search",
            "searchInformation": {"totalResults": str(len(results))},
        }
        if results:
            body["items"] = [
                {"kind": "customsearch#result", "title": title, "link": url, "snippet": snippet}
                for url, title, snippet in results
            ]
        return _json(200, body)

    def _bing(self, query: dict[str, list[str]], headers: Mapping[str, str]) -> Response:
        if headers.get("ocp-apim-subscription-key") != self.api_key:
            return _json(401, {"error": {"code": "401", "message": "Access denied."}})
        count = int(_first(query, "count") or 10)
        results = self._web_results(_first(query, "q") or "", count)
        value = [{"name": title, "url": url, "snippet": snippet} for url, title, snippet in results]
        return _json(200, {"_type": "SearchResponse", "webPages": {"value": value}})

    def _web_results(self, search: str, limit: int) -> list[WebResult]:
        scripted = self.web_results.get(search.strip().lower())
        if scripted is not None:
            return scripted[:limit]
        return [
            (f"https://{self.lang}.wikipedia.org/wiki/{quote(page.key)}", page.title,
             page.text[:160])
            for page in self.ranked(search, limit)
        ]


class _Server(QuietServer):
    fake: FakeWiki


class _Handler(FaultInjectingHandler):
    server: _Server

    def respond(self, fault: Fault | None) -> Response:
        if isinstance(fault, int | tuple):
            return _status_fault(fault)
        if fault == "maxlag":
            return _maxlag()
        headers = {k.lower(): v for k, v in self.headers.items()}
        return self.server.fake.route(self.path, headers)


def _parsoid_document(lang: str, key: str, revision: int, page_id: int, body: str) -> str:
    """A Parsoid-like page: ``about`` revision, ``mw:pageId`` meta, ``dc:isVersionOf`` link."""
    host = f"{lang}.wikipedia.org"
    return (
        '<!DOCTYPE html>\n<html prefix="dc: http://purl.org/dc/terms/ mw: http://mediawiki.org/rdf/"'
        f' about="https://{host}/wiki/Special:Redirect/revision/{revision}"><head>'
        f'<meta charset="utf-8"/><meta property="mw:pageId" content="{page_id}"/>'
        '<meta property="mw:pageNamespace" content="0"/>'
        f'<link rel="dc:isVersionOf" href="//{host}/wiki/{quote(key)}"/>'
        f"<title>{html.escape(key.replace('_', ' '))}</title></head>"
        f'<body lang="{lang}" class="mw-content-ltr mw-parser-output">{body}</body></html>'
    )


def _tid(page: FakePage) -> str:
    """A stable render id for the ETag."""
    return f"{zlib.crc32(page.key.encode()):08x}-0000-11e8-8000-000000000000"


def _status_fault(fault: int | tuple[int, dict[str, str]]) -> Response:
    status, extra = fault if isinstance(fault, tuple) else (fault, {})
    return status, {"Content-Type": "text/plain", **extra}, f"scripted fault {status}".encode()


def _maxlag() -> Response:
    error = {"code": "maxlag", "info": "Waiting for 10.64.0.1: 7 seconds lagged.",
             "host": "10.64.0.1", "lag": 7, "type": "db"}
    headers = {"Content-Type": "application/json; charset=utf-8", "Retry-After": "5",
               "X-Database-Lag": "7"}
    return 200, headers, json.dumps({"error": error, "servedby": "fake"}).encode("utf-8")


def _api_error(code: str, info: str) -> Response:
    return _json(200, {"error": {"code": code, "info": info}, "servedby": "fake"})


def _google_error(status: int, message: str) -> Response:
    reason = "forbidden" if status == 403 else "badRequest"
    error = {"code": status, "message": message, "errors": [{"message": message, "reason": reason}]}
    return _json(status, {"error": error})


def _not_found(rest: str) -> Response:
    problem = {"type": "https://mediawiki.org/wiki/HyperSwitch/errors/not_found",
               "title": "Not found.", "method": "get", "detail": "Page or revision not found.",
               "uri": REST_PREFIX + rest}
    return 404, {"Content-Type": "application/problem+json"}, json.dumps(problem).encode()


def _json(status: int, body: Any) -> Response:
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    return status, {"Content-Type": "application/json; charset=utf-8"}, data


def _first(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


FakeWiki.server_class = _Server
FakeWiki.handler_class = _Handler
FakeWiki.string_faults = frozenset(STRING_FAULTS)
