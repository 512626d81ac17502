"""Search, page and HTTP options of the linking stage, shared by build_nq and build_jnq."""

from __future__ import annotations

import argparse
from typing import Any

from pipelines.cli.errors import UsageError
from pipelines.cli.http_limits import add_limit_arguments, limit_options
from pipelines.cli.options import non_negative_float, positive_int
from transforms.clients.bounded_http import RequestLimits
from transforms.clients.http_json import HttpPolicy
from transforms.clients.local_search import IndexFormatError
from transforms.clients.search_backends import SearchEndpoints
from transforms.nq.backends import BackendOptions
from transforms.sources.index_copy import check_index_dir
from transforms.sources.search_corpus import ensure_sample_index


def add_linking_arguments(parser: argparse.ArgumentParser, lang: str):
    """Search, page and HTTP options shared by build_nq and build_jnq; returns the group."""
    linking = parser.add_argument_group("linking and pages (NQ §3.1, §4.1)")
    linking.add_argument("--search", choices=("local", "mediawiki", "web"), default="local",
                         help="search backend: local BM25 index (default, offline), the "
                              "Wikipedia search API, or a web search JSON API")
    linking.add_argument("--index-dir", default="",
                         help="index release of build_search_index, a local directory or "
                              "gs://... (copied once per worker machine); default: the bundled "
                              "corpus index, built on first use into .cache/search")
    linking.add_argument("--pages", choices=("local", "rest"),
                         help="page HTML from the local index or the Wikimedia REST API; "
                              "default: local with --search local, else rest")
    linking.add_argument("--lang", default=lang, help=f"Wikipedia language (default {lang})")
    linking.add_argument("--requests-per-minute", type=non_negative_float, default=60,
                         help="global rate limit of each network API, shared by the shards "
                              "(0 = no limit, for a local mirror)")
    linking.add_argument("--shards", type=positive_int, default=4,
                         help="parallel search/page clients (the API sees at most this many)")
    linking.add_argument("--http-cache-dir", default=".cache/http",
                         help="cache of search and page responses, local or gs://")
    linking.add_argument("--web-endpoint", default="https://www.googleapis.com/customsearch/v1",
                         help="--search web: the JSON API endpoint (key from $SEARCH_API_KEY, "
                              "engine id from $SEARCH_ENGINE_ID)")
    linking.add_argument("--mediawiki-api-url", default=None,
                         help="--search mediawiki: API URL (default "
                              "https://<lang>.wikipedia.org/w/api.php)")
    linking.add_argument("--rest-url", default=None,
                         help="--pages rest: REST base (default "
                              "https://<lang>.wikipedia.org/api/rest_v1)")
    add_http_limit_arguments(linking)
    return linking


def add_http_limit_arguments(group: Any) -> None:
    """Time, size, redirect and retry limits of each search or page request (``--http-*``)."""
    add_limit_arguments(group, "http", "a search or page API", HttpPolicy().limits)


def http_limit_options(args: argparse.Namespace) -> RequestLimits:
    """The search and page request limits of the parsed ``--http-*`` options."""
    return limit_options(args, "http")


def backend_options(args: argparse.Namespace) -> BackendOptions:
    """BackendOptions from parsed linking arguments (``args.pages`` already resolved)."""
    per_client = args.requests_per_minute / max(1, args.shards)
    http = HttpPolicy(per_minute=per_client, cache_dir=args.http_cache_dir,
                      limits=http_limit_options(args))
    search = SearchEndpoints(api_url=args.mediawiki_api_url, endpoint=args.web_endpoint)
    return BackendOptions(args.search, args.pages, args.lang, args.index_dir, http, search,
                          args.rest_url)


def resolve_linking(args: argparse.Namespace, needs_index: bool) -> None:
    """Default ``--pages`` from ``--search``; build the bundled index when none is given;
    a given ``--index-dir`` must be an index (``UsageError`` before any work)."""
    args.pages = args.pages or ("local" if args.search == "local" else "rest")
    if needs_index and "local" in (args.search, args.pages):
        if not args.index_dir:
            args.index_dir = ensure_sample_index(lang=args.lang)
            return
        try:
            check_index_dir(args.index_dir)
        except IndexFormatError as error:
            raise UsageError(str(error)) from error

