"""Search backends that turn a question into ranked :class:`SearchHit`s (NQ §3.1).

* :class:`MediaWikiSearch`: Wikipedia's own full-text search through the MediaWiki Action API,
  ``action=query&list=search`` (https://www.mediawiki.org/wiki/API:Search);
* :class:`WebSearch`: a web search JSON API; by default Google's Programmable Search Engine
  ``customsearch/v1`` (https://developers.google.com/custom-search/v1/reference/rest/v1/cse/list),
  with a configurable :class:`ResultMapping` for other engines (e.g. Bing-like
  ``webPages.value[]``);
* ``local``: the offline BM25 index of :mod:`transforms.clients.local_search`.

All network backends go through :class:`transforms.clients.http_json.PoliteHttp` (rate limit,
retries, 429/maxlag pauses, on-disk cache). Build them in ``DoFn.setup()``; they are not picklable.

A search answer needs only its top ``k`` hits, a few KB, but Python's ``json`` turns a body of
many small objects into many dicts (a 10 MB answer of ``{"a":0}`` items took 270 MB). So an
answer is read at most ``max_answer_bytes`` (``MAX_ANSWER_BYTES``, 1 MiB, raw and decoded):
past it the request stops reading and fails with the kind ``search_answer_too_large``
(``SEARCH_ANSWER_TOO_LARGE``: never retried, never cached; the NQ linking stage counts it in
``linking.search_failed.search_answer_too_large`` and dead-letters the question). The answer
is parsed with ``filters.text.safe_json`` (nesting bombs are a ``bad_response``), and a
result list of the wrong shape is a ``bad_response`` too, never a ``KeyError``.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol, runtime_checkable

from filters.nq.search_hits import TOP_K, SearchHit
from filters.text import safe_json
from transforms.clients.bounded_http import BODY_TOO_LARGE, MIB
from transforms.clients.http_json import (
    DEFAULT_REDACT,
    HttpError,
    HttpResult,
    PoliteHttp,
    build_http,
)
from transforms.clients.preflight import Endpoint
from transforms.clients.wikipedia_pages import article_url

DEFAULT_API_URL = "https://{lang}.wikipedia.org/w/api.php"
DEFAULT_CSE_ENDPOINT = "https://www.googleapis.com/customsearch/v1"
API_KEY_ENV = "SEARCH_API_KEY"
ENGINE_ID_ENV = "SEARCH_ENGINE_ID"
MEDIAWIKI_PER_MINUTE = 60.0
WEB_PER_MINUTE = 60.0
MAXLAG_SECONDS = 5
BACKEND_NAMES = ("mediawiki", "web", "local")
SEARCH_ANSWER_TOO_LARGE = "search_answer_too_large"
MAX_ANSWER_BYTES = MIB  # a search answer, raw and decoded: top-k hits are a few KB
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")


@runtime_checkable
class SearchBackend(Protocol):
    """Anything that returns the top ``k`` hits of a query, best first (rank 1..k)."""

    def search(self, query: str, k: int = TOP_K) -> list[SearchHit]:
        """The top ``k`` hits of ``query``."""
        ...

    def close(self) -> None:
        """Release network sessions or index files."""
        ...


class SearchConfigError(ValueError):
    """A backend cannot be built from the given options (e.g. a missing API key)."""


def fetch_answer(http: PoliteHttp, url: str, params: Mapping[str, Any], max_bytes: int,
                 headers: Mapping[str, str] | None = None) -> tuple[int, Any]:
    """The status and JSON of a search answer read at most ``max_bytes``
    (``search_answer_too_large`` past it) and parsed without a nesting bomb
    (``bad_response``)."""
    try:
        result = http.get(url, params, headers=headers, max_bytes=max_bytes)
    except HttpError as error:
        if error.kind != BODY_TOO_LARGE:
            raise
        raise HttpError(SEARCH_ANSWER_TOO_LARGE, error.url, error.status,
                        f"{error.message}; a search answer is read at most {max_bytes} bytes",
                        attempts=error.attempts, from_cache=error.from_cache) from None
    return result.status, _parse(result, url)


def _parse(result: HttpResult, url: str) -> Any:
    try:
        return safe_json.loads(result.body)
    except ValueError as exc:
        raise HttpError("bad_response", url, result.status, str(exc)[:200]) from exc


def clean_snippet(snippet: str) -> str:
    """Plain text of a MediaWiki search snippet: ``<span class="searchmatch">`` (and any other
    markup) removed, HTML entities unescaped, whitespace collapsed."""
    return _SPACE.sub(" ", html.unescape(_TAG.sub("", snippet))).strip()


class MediaWikiSearch:
    """Wikipedia full-text search (CirrusSearch) through the Action API ``list=search``.

    Sends ``maxlag`` so the client backs off when the database replicas lag, as the API
    etiquette asks (https://www.mediawiki.org/wiki/API:Etiquette). ``http_options`` go to
    :class:`PoliteHttp` unless a ready ``http`` client is given.
    """

    def __init__(
        self,
        lang: str = "en",
        api_url: str | None = None,
        *,
        maxlag: int | None = MAXLAG_SECONDS,
        http: PoliteHttp | None = None,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        **http_options: Any,
    ) -> None:
        self.lang = lang
        self.api_url = api_url or DEFAULT_API_URL.format(lang=lang)
        self.maxlag = maxlag
        self.max_answer_bytes = max_answer_bytes
        self.http = http or build_http(MEDIAWIKI_PER_MINUTE, **http_options)

    def params(self, query: str, k: int = TOP_K) -> dict[str, Any]:
        """Action API parameters of a search (formatversion=2 JSON, snippets only)."""
        return {
            "action": "query",
            "list": "search",
            "srsearch": query,
            "srlimit": k,
            "srprop": "snippet",
            "format": "json",
            "formatversion": 2,
            "maxlag": self.maxlag,
            "utf8": 1,
        }

    def search(self, query: str, k: int = TOP_K) -> list[SearchHit]:
        """The top ``k`` articles for ``query``, ranked as the API returns them."""
        status, answer = fetch_answer(self.http, self.api_url, self.params(query, k),
                              self.max_answer_bytes)
        rows = json_path(answer, "query.search")
        if not isinstance(rows, list) or not all(
                isinstance(row, Mapping) and isinstance(row.get("title"), str)
                for row in rows[:k]):
            raise HttpError("bad_response", self.api_url, status,
                            "no query.search list of results with a title")
        return [self._hit(row, rank) for rank, row in enumerate(rows[:k], start=1)]

    def _hit(self, row: Mapping[str, Any], rank: int) -> SearchHit:
        title = str(row["title"])
        snippet = clean_snippet(str(row.get("snippet", "")))
        return SearchHit(url=article_url(self.lang, title), title=title, snippet=snippet, rank=rank)

    def close(self) -> None:
        """Close the HTTP session."""
        self.http.close()

    @property
    def stats(self) -> dict[str, int]:
        """The HTTP client's counters."""
        return self.http.stats


@dataclass(frozen=True)
class ResultMapping:
    """Where a web search API takes its parameters and puts its results.

    ``results`` is the dotted JSON path of the result list; ``url``/``title``/``snippet`` are
    dotted paths inside one result. ``query_param``/``count_param`` name the query and result
    count parameters; the API key goes in ``key_param`` (query) or ``key_header`` (header);
    ``engine_id_param`` names an engine id parameter (Google's ``cx``), None when unused;
    ``max_count`` caps the count parameter.
    """

    results: str
    url: str
    title: str
    snippet: str
    query_param: str = "q"
    count_param: str | None = "num"
    key_param: str | None = "key"
    key_header: str | None = None
    engine_id_param: str | None = None
    max_count: int = 10

    @classmethod
    def from_value(cls, value: ResultMapping | Mapping[str, Any] | str) -> ResultMapping:
        """A mapping from itself, a dict of fields, a preset name or a JSON object string."""
        if isinstance(value, ResultMapping):
            return value
        if isinstance(value, str):
            if value in MAPPING_PRESETS:
                return MAPPING_PRESETS[value]
            value = json.loads(value)
        known = {f.name for f in fields(cls)}
        unknown = set(value) - known
        if unknown:
            raise SearchConfigError(f"unknown result mapping fields: {sorted(unknown)}")
        return cls(**dict(value))


GOOGLE_CSE_MAPPING = ResultMapping(
    results="items", url="link", title="title", snippet="snippet",
    query_param="q", count_param="num", key_param="key", engine_id_param="cx",
)
BING_WEB_MAPPING = ResultMapping(
    results="webPages.value", url="url", title="name", snippet="snippet",
    query_param="q", count_param="count", key_param=None,
    key_header="Ocp-Apim-Subscription-Key", max_count=50,
)
MAPPING_PRESETS: dict[str, ResultMapping] = {
    "google_cse": GOOGLE_CSE_MAPPING,
    "bing": BING_WEB_MAPPING,
}


def json_path(data: Any, path: str) -> Any:
    """Follow a dotted path (``webPages.value``) through nested dicts; None when absent."""
    for part in path.split(".") if path else ():
        if not isinstance(data, Mapping):
            return None
        data = data.get(part)
    return data


class WebSearch:
    """A web search JSON API (Google Programmable Search by default), top ``k`` in rank order.

    The API key is read from the environment variable ``api_key_env``; it is sent as the
    mapping's key parameter or header, redacted from errors and logs and kept out of cache
    keys. The engine id (``cx``) is ``engine_id`` or the ``SEARCH_ENGINE_ID`` variable.
    ``params`` are extra fixed parameters (e.g. ``{"lr": "lang_ja"}``).
    """

    def __init__(
        self,
        endpoint: str = DEFAULT_CSE_ENDPOINT,
        api_key_env: str = API_KEY_ENV,
        mapping: ResultMapping | Mapping[str, Any] | str = GOOGLE_CSE_MAPPING,
        params: Mapping[str, Any] | None = None,
        *,
        engine_id: str | None = None,
        engine_id_env: str = ENGINE_ID_ENV,
        http: PoliteHttp | None = None,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        **http_options: Any,
    ) -> None:
        self.endpoint = endpoint
        self.max_answer_bytes = max_answer_bytes
        self.mapping = ResultMapping.from_value(mapping)
        self.extra_params = dict(params or {})
        self._api_key = _required_env(api_key_env, "an API key")
        self.engine_id = self._engine_id(engine_id, engine_id_env)
        http_options.setdefault("redact_params", _redacted_params(self.mapping))
        self.http = http or build_http(WEB_PER_MINUTE, **http_options)

    def _engine_id(self, engine_id: str | None, engine_id_env: str) -> str | None:
        if self.mapping.engine_id_param is None:
            return None
        return engine_id or _required_env(engine_id_env, "a search engine id (cx)")

    def request_params(self, query: str, k: int = TOP_K) -> dict[str, Any]:
        """Query parameters of one search, key included."""
        mapping = self.mapping
        params: dict[str, Any] = {**self.extra_params, mapping.query_param: query}
        if mapping.count_param:
            params[mapping.count_param] = min(k, mapping.max_count)
        if mapping.engine_id_param:
            params[mapping.engine_id_param] = self.engine_id
        if mapping.key_param:
            params[mapping.key_param] = self._api_key
        return params

    def search(self, query: str, k: int = TOP_K) -> list[SearchHit]:
        """The first ``k`` results with a URL, ranked by their position in the answer."""
        headers = {self.mapping.key_header: self._api_key} if self.mapping.key_header else None
        status, answer = fetch_answer(self.http, self.endpoint, self.request_params(query, k),
                              self.max_answer_bytes, headers)
        items = json_path(answer, self.mapping.results) or []
        if not isinstance(items, Sequence) or isinstance(items, str):
            raise HttpError("bad_response", self.endpoint, status, "results not a list")
        hits = [self._hit(item, rank) for rank, item in enumerate(items[:k], start=1)]
        return [hit for hit in hits if hit is not None]

    def _hit(self, item: Any, rank: int) -> SearchHit | None:
        url = json_path(item, self.mapping.url)
        if not isinstance(url, str) or not url:
            return None
        title = _text(json_path(item, self.mapping.title))
        return SearchHit(url=url, title=title, snippet=_text(json_path(item, self.mapping.snippet)),
                         rank=rank)

    def close(self) -> None:
        """Close the HTTP session."""
        self.http.close()

    @property
    def stats(self) -> dict[str, int]:
        """The HTTP client's counters."""
        return self.http.stats


@dataclass(frozen=True)
class SearchEndpoints:
    """Where the network search backends ask (frozen, picklable): the MediaWiki Action API
    URL and the web search JSON endpoint; None leaves a backend's own default."""

    api_url: str | None = None
    endpoint: str | None = None

    def for_backend(self, name: str) -> dict[str, str]:
        """The keyword arguments of backend ``name`` (only the endpoint it takes, when set)."""
        value = {"mediawiki": self.api_url, "web": self.endpoint}.get(name)
        key = "api_url" if name == "mediawiki" else "endpoint"
        return {key: value} if value is not None else {}


def search_backend_from_options(name: str, lang: str = "en", **options: Any) -> SearchBackend:
    """Build the backend ``name`` ("mediawiki", "web" or "local").

    Options set to None are dropped (unset command-line flags). "local" takes ``index_dir``;
    "mediawiki" takes :class:`MediaWikiSearch` and PoliteHttp keywords; "web" takes
    :class:`WebSearch` and PoliteHttp keywords (``lang`` is not sent: set e.g.
    ``params={"lr": "lang_ja"}`` for Google). PoliteHttp keywords are ``policy`` (an
    :class:`~transforms.clients.http_json.HttpPolicy`: rate, ``cache_dir``, limits), overrides
    of its fields and, for a remote cache (``gs://...``), ``cache_storage``.
    """
    options = {key: value for key, value in options.items() if value is not None}
    if name == "local":
        from transforms.clients.local_search import LocalSearch

        if "index_dir" not in options:
            raise SearchConfigError("the local search backend needs index_dir")
        return LocalSearch(index_dir=options["index_dir"])
    options.pop("index_dir", None)
    if name == "mediawiki":
        return MediaWikiSearch(lang=lang, **options)
    if name == "web":
        return WebSearch(**options)
    raise SearchConfigError(f"unknown search backend {name!r}; choose one of {BACKEND_NAMES}")


def search_endpoint(name: str, lang: str = "en", *, api_url: str | None = None,
                    endpoint: str | None = None, timeout: tuple[float, float] = (10.0, 30.0),
                    option: str = "") -> Endpoint | None:
    """What the preflight check asks for the network backend ``name`` (None for ``local``):
    MediaWiki's ``meta=siteinfo`` (https://www.mediawiki.org/wiki/API:Siteinfo), the
    cheapest Action API query; the web search endpoint without a key or query (any answer
    below 500 shows the server is there, and no search quota is spent)."""
    if name == "mediawiki":
        return Endpoint("the MediaWiki search API", api_url or DEFAULT_API_URL.format(lang=lang),
                        (("action", "query"), ("meta", "siteinfo"), ("format", "json")),
                        option, timeout)
    if name == "web":
        return Endpoint("the web search API", endpoint or DEFAULT_CSE_ENDPOINT, (), option,
                        timeout)
    return None


def _required_env(variable: str, what: str) -> str:
    value = os.environ.get(variable, "").strip()
    if not value:
        raise SearchConfigError(f"web search needs {what}: set the {variable} environment variable")
    return value


def _redacted_params(mapping: ResultMapping) -> tuple[str, ...]:
    return tuple({*DEFAULT_REDACT, *([mapping.key_param] if mapping.key_param else [])})


def _text(value: Any) -> str:
    return _SPACE.sub(" ", value).strip() if isinstance(value, str) else ""
