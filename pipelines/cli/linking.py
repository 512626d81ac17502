"""Search, page and HTTP options of the linking stage, shared by build_nq and build_jnq."""

from __future__ import annotations

import argparse
from typing import Any

from pipelines.cli.http_limits import mib_to_bytes, non_negative_int, positive_float
from transforms.clients.bounded_http import MIB
from transforms.clients.http_json import DEFAULT_LIMITS
from transforms.nq.backends import BackendOptions
from transforms.sources.search_corpus import ensure_sample_index


def add_linking_arguments(parser: argparse.ArgumentParser, lang: str):
    """Search, page and HTTP options shared by build_nq and build_jnq; returns the group."""
    linking = parser.add_argument_group("linking and pages (NQ §3.1, §4.1)")
    linking.add_argument("--search", choices=("local", "mediawiki", "web"), default="local",
                         help="search backend: local BM25 index (default, offline), the "
                              "Wikipedia search API, or a web search JSON API")
    linking.add_argument("--index-dir", default="",
                         help="local index (build_search_index); default: the bundled corpus "
                              "index, built on first use into .cache/search")
    linking.add_argument("--pages", choices=("local", "rest"),
                         help="page HTML from the local index or the Wikimedia REST API; "
                              "default: local with --search local, else rest")
    linking.add_argument("--lang", default=lang, help=f"Wikipedia language (default {lang})")
    linking.add_argument("--requests-per-minute", type=float, default=60,
                         help="global rate limit of each network API (shared by the shards)")
    linking.add_argument("--shards", type=int, default=4,
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
    """Time, size, redirect and retry limits of each search or page request."""
    limits = DEFAULT_LIMITS
    group.add_argument("--http-connect-timeout", type=positive_float, default=10.0,
                       help="seconds to wait for a connection to a search or page API "
                            "(default 10)")
    group.add_argument("--http-read-timeout", type=positive_float, default=30.0,
                       help="seconds to wait for each read from a search or page API "
                            "(default 30)")
    group.add_argument("--http-deadline", type=positive_float, default=limits.deadline,
                       help="total seconds per request attempt, redirects included, however "
                            f"slowly bytes arrive (default {limits.deadline:g}; failure kind "
                            "deadline_exceeded, retried)")
    group.add_argument("--http-max-retries", type=non_negative_int, default=4,
                       help="retries after the first attempt of a search or page request "
                            "(default 4)")
    group.add_argument("--http-max-redirects", type=non_negative_int,
                       default=limits.max_redirects,
                       help="redirect hops followed per request, each rate-limited and counted "
                            f"(default {limits.max_redirects}; failure kind too_many_redirects)")
    group.add_argument("--http-max-body-mib", type=positive_float,
                       default=limits.max_body_bytes / MIB,
                       help="largest response body as sent, in MiB (default "
                            f"{limits.max_body_bytes // MIB}; failure kind body_too_large, "
                            "not retried)")
    group.add_argument("--http-max-decoded-mib", type=positive_float,
                       default=limits.max_decoded_bytes / MIB,
                       help="largest body once gzip/deflate is undone, in MiB (default "
                            f"{limits.max_decoded_bytes // MIB}; failure kind body_too_large, "
                            "not retried)")


def http_limit_options(args: argparse.Namespace) -> dict[str, Any]:
    """PoliteHttp keyword arguments of the parsed limit options (plain, picklable values)."""
    return {
        "timeout": (args.http_connect_timeout, args.http_read_timeout),
        "deadline": args.http_deadline,
        "max_retries": args.http_max_retries,
        "max_redirects": args.http_max_redirects,
        "max_body_bytes": mib_to_bytes(args.http_max_body_mib),
        "max_decoded_bytes": mib_to_bytes(args.http_max_decoded_mib),
    }


def backend_options(args: argparse.Namespace) -> BackendOptions:
    """BackendOptions from parsed linking arguments (``args.pages`` already resolved)."""
    per_client = args.requests_per_minute / max(1, args.shards)
    http = {"per_minute": per_client, "cache_dir": args.http_cache_dir,
            **http_limit_options(args)}
    search = {"mediawiki": {"api_url": args.mediawiki_api_url},
              "web": {"endpoint": args.web_endpoint}}.get(args.search, {})
    return BackendOptions(args.search, args.pages, args.lang, args.index_dir, http, search,
                          args.rest_url)


def resolve_linking(args: argparse.Namespace, needs_index: bool) -> None:
    """Default ``--pages`` from ``--search``; build the bundled index when none is given."""
    args.pages = args.pages or ("local" if args.search == "local" else "rest")
    if needs_index and "local" in (args.search, args.pages) and not args.index_dir:
        args.index_dir = ensure_sample_index(lang=args.lang)

