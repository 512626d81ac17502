"""Search, page and HTTP options of the linking stage, shared by build_nq and build_jnq.

``LinkingOptions`` is an options dataclass mixin (``transforms.core.options``) holding
``--search``, ``--index-dir``, ``--pages``, ``--lang``, the rate, shards and cache, the
endpoints and the ``--http-*`` request limits (defaults from
``transforms.clients.http_json.DEFAULT_LIMITS``). Before the job, ``resolve_linking`` decides
what the options leave open (``--pages`` from ``--search``, the bundled index when no
``--index-dir`` is given, a given index checked) into a ``ResolvedLinking`` that the spec puts
in ``Plan.context``; ``backend_options`` gives the workers' ``BackendOptions``. The options
themselves are never changed.

What a refresh (``--previous``) may change: the backend kinds (``--search``, ``--pages``) and
``--lang`` decide which page a question gets and stay row options; where the services are
(``--index-dir``, the endpoints), how fast and how patiently they are asked (rate, shards,
``--http-*``) and the cache never change a row and are ``rows=False``. A newer
``--index-dir`` is a newer snapshot of the same method: carried examples keep their page
revision; ``--relink`` (``rows=False`` too: a refresh mode) links every question again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transforms.clients.bounded_http import RequestLimits
from transforms.clients.http_json import DEFAULT_LIMITS, HttpPolicy
from transforms.clients.local_search import IndexFormatError
from transforms.clients.search_backends import SearchEndpoints
from transforms.core.errors import UsageError
from transforms.core.options import (
    non_negative_float,
    option,
    positive_int,
)
from transforms.core.request_options import request_limit_options, request_limits_of
from transforms.nq.backends import BackendOptions

LINKING_GROUP = "linking and pages (NQ §3.1, §4.1)"
HTTP_WHAT = "a search or page API"


def linking_option(default: Any, help: str, **kwargs: Any) -> Any:  # noqa: A002
    """An option of the linking group."""
    return option(default, help, group=LINKING_GROUP, **kwargs)


def lang_option(lang: str) -> Any:
    """``--lang`` with a dataset's default Wikipedia language (NQ en, JNQ ja)."""
    return linking_option(lang, f"Wikipedia language (default {lang})")


_HTTP = request_limit_options(HTTP_WHAT, DEFAULT_LIMITS, group=LINKING_GROUP)


@dataclass(frozen=True)
class LinkingOptions:
    """Search backend, page source, language, request rate and limits of the linking stage."""

    search: str = linking_option(
        "local", "search backend: local BM25 index (default, offline), the Wikipedia search "
                 "API, or a web search JSON API", choices=("local", "mediawiki", "web"))
    index_dir: str = linking_option(
        "", "index release of build_search_index, a local directory or gs://... (copied once "
            "per worker machine); default: the bundled corpus index, built on first use into "
            ".cache/search", rows=False)
    pages: str | None = linking_option(
        None, "page HTML from the local index or the Wikimedia REST API; default: local with "
              "--search local, else rest", choices=("local", "rest"))
    lang: str = lang_option("en")
    requests_per_minute: float = linking_option(
        60, "global rate limit of each network API, shared by the shards (0 = no limit, for a "
            "local mirror)", parse=non_negative_float, rows=False)
    shards: int = linking_option(
        4, "parallel search/page clients (the API sees at most this many)", parse=positive_int,
        rows=False)
    http_cache_dir: str = linking_option(".cache/http",
                                         "cache of search and page responses, local or gs://",
                                         rows=False)
    web_endpoint: str = linking_option(
        "https://www.googleapis.com/customsearch/v1",
        "--search web: the JSON API endpoint (key from $SEARCH_API_KEY, engine id from "
        "$SEARCH_ENGINE_ID)", rows=False)
    mediawiki_api_url: str | None = linking_option(
        None, "--search mediawiki: API URL (default https://<lang>.wikipedia.org/w/api.php)",
        rows=False)
    rest_url: str | None = linking_option(
        None, "--pages rest: REST base (default https://<lang>.wikipedia.org/api/rest_v1)",
        rows=False)
    http_connect_timeout: float = _HTTP["connect_timeout"]
    http_read_timeout: float = _HTTP["read_timeout"]
    http_deadline: float = _HTTP["deadline"]
    http_max_retries: int = _HTTP["max_retries"]
    http_max_redirects: int = _HTTP["max_redirects"]
    http_max_body_mib: float = _HTTP["max_body_mib"]
    http_max_decoded_mib: float = _HTTP["max_decoded_mib"]
    relink: bool = linking_option(
        False, "with --previous: search and fetch the page of every question again (fresh "
               "pages); without it a question the previous release has keeps its example "
               "(page revision, tokens, candidates) or its lasting drop (no Wikipedia page in "
               "the top 5...), with no network request", flag=True, rows=False)


@dataclass(frozen=True)
class ResolvedLinking:
    """What the linking options leave open, decided before the job: the page source and the
    index directory (the bundled index when none was given and one is needed)."""

    pages: str
    index_dir: str


def default_pages(search: str) -> str:
    """``--pages`` when not given: ``local`` with ``--search local``, else ``rest``."""
    return "local" if search == "local" else "rest"


def resolve_linking(options: Any, needs_index: bool) -> ResolvedLinking:
    """Default ``--pages`` from ``--search``; build the bundled index when none is given;
    a given ``--index-dir`` must be an index (``UsageError`` before any work). ``options``
    (a ``LinkingOptions``) is not changed."""
    from transforms.sources.index_copy import check_index_dir
    from transforms.sources.search_corpus import ensure_sample_index

    pages = options.pages or default_pages(options.search)
    index_dir = options.index_dir
    if needs_index and "local" in (options.search, pages):
        if not index_dir:
            index_dir = ensure_sample_index(lang=options.lang)
        else:
            try:
                check_index_dir(index_dir)
            except IndexFormatError as error:
                raise UsageError(str(error)) from error
    return ResolvedLinking(pages, index_dir)


def http_limits(options: Any) -> RequestLimits:
    """The search and page request limits of the ``--http-*`` options."""
    return request_limits_of(options, "http")


def backend_options(options: Any, resolved: ResolvedLinking) -> BackendOptions:
    """The workers' ``BackendOptions`` of the linking options and their resolution; the
    global request rate is divided between the shards."""
    per_client = options.requests_per_minute / max(1, options.shards)
    http = HttpPolicy(per_minute=per_client, cache_dir=options.http_cache_dir,
                      limits=http_limits(options))
    search = SearchEndpoints(api_url=options.mediawiki_api_url, endpoint=options.web_endpoint)
    return BackendOptions(options.search, resolved.pages, options.lang, resolved.index_dir,
                          http, search, options.rest_url)
