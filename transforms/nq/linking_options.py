"""Search, page and HTTP options of the linking stage, shared by build_nq and build_jnq.

``LinkingOptions`` is an options dataclass mixin (``transforms.core.options``) holding
``--search``, ``--index-dir``, ``--sample-index``, ``--pages``, ``--lang``, the rate, shards
and cache, the endpoints and the ``--http-*`` request limits (defaults from
``transforms.clients.http_json.DEFAULT_LIMITS``). Before the job, ``resolve_linking`` decides
what the options leave open into a ``ResolvedLinking`` that the spec puts in ``Plan.context``
and the manifest: the search backend, ``--pages`` from ``--search``, the index, and the labels
the card names them by (``transforms.nq.backend_labels``); ``backend_options`` gives the
workers' ``BackendOptions`` and ``linking_endpoints`` the network endpoints checked before the
job (``Plan.endpoints``). The options themselves are never changed.

**No toy default on real input.** The bundled sample index (46 English or 28 Japanese pages
written for the sample) serves only the bundled sample log (``transforms.nq.sample_log``):
without ``--search`` that log is linked against it, as before. Any other input needs a choice
(``--search mediawiki``, ``--search local --index-dir DIR``, ``--search web``; an
``--index-dir`` alone means ``--search local``), or the deliberate ``--sample-index``, which
the manifest and card record; otherwise ``UsageError`` (exit 2) lists the choices before any
work. With ``--stop-after questions`` nothing is searched and nothing is asked.

What a refresh (``--previous``) may change: the backend kinds (``--search``, ``--pages``) and
``--lang`` decide which page a question gets and stay row options (the manifest records the
resolved ``--search``); where the services are (``--index-dir``, ``--sample-index``, the
endpoints), how fast and how patiently they are asked (rate, shards, ``--http-*``,
``--no-preflight``, ``--max-consecutive-failures``) and the cache never change a row and are
``rows=False``. A newer ``--index-dir`` is a newer snapshot of the same method: carried
examples keep their page revision; ``--relink`` (``rows=False`` too: a refresh mode) links
every question again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from filters.nq.relevance_floor import DEFAULT_MIN_MARGIN, DEFAULT_MIN_SCORE, RelevanceFloor
from transforms.clients.bounded_http import RequestLimits
from transforms.clients.http_json import DEFAULT_LIMITS, HttpPolicy
from transforms.clients.local_search import IndexFormatError
from transforms.clients.preflight import Endpoint
from transforms.clients.search_backends import BACKEND_NAMES, SearchEndpoints, search_endpoint
from transforms.clients.wikipedia_pages import pages_endpoint
from transforms.core.endpoint_options import endpoint_check_options
from transforms.core.errors import UsageError
from transforms.core.options import (
    non_negative_float,
    option,
    positive_int,
)
from transforms.core.request_options import request_limit_options, request_limits_of
from transforms.nq.backend_labels import (
    bundled_index_label,
    index_page_count,
    local_index_label,
    pages_label,
    search_label,
)
from transforms.nq.backends import BackendOptions

LINKING_GROUP = "linking and pages (NQ §3.1, §4.1)"
HTTP_WHAT = "a search or page API"
SEARCH_URL_OPTIONS = {"mediawiki": "--mediawiki-api-url", "web": "--web-endpoint"}


def linking_option(default: Any, help: str, **kwargs: Any) -> Any:  # noqa: A002
    """An option of the linking group."""
    return option(default, help, group=LINKING_GROUP, **kwargs)


def lang_option(lang: str) -> Any:
    """``--lang`` with a dataset's default Wikipedia language (NQ en, JNQ ja)."""
    return linking_option(lang, f"Wikipedia language (default {lang})")


_HTTP = request_limit_options(HTTP_WHAT, DEFAULT_LIMITS, group=LINKING_GROUP)
_CHECKS = endpoint_check_options("the search and page APIs", group=LINKING_GROUP)


@dataclass(frozen=True)
class LinkingOptions:
    """Search backend, page source, language, request rate and limits of the linking stage."""

    search: str | None = linking_option(
        None, "search backend: a local BM25 index (--index-dir), the Wikipedia search API, or "
              "a web search JSON API; required unless --input is the bundled sample log "
              "(default: its bundled sample index, offline) or --index-dir is given (local)",
        choices=tuple(sorted(BACKEND_NAMES)))
    index_dir: str = linking_option(
        "", "index release of build_search_index, a local directory or gs://... (copied once "
            "per worker machine); default, for the bundled sample log only: the bundled "
            "sample index, built on first use into .cache/search", rows=False)
    sample_index: bool = linking_option(
        False, "link against the bundled sample index (the few pages written for the sample "
               "log) although --input is not that log: a demonstration, recorded as such in "
               "the manifest and card; its pages rarely answer other questions",
        flag=True, rows=False)
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
    no_preflight: bool = _CHECKS["no_preflight"]
    max_consecutive_failures: int = _CHECKS["max_consecutive_failures"]
    min_score: float = linking_option(
        DEFAULT_MIN_SCORE, "relevance floor: the top Wikipedia page's lowest search score, "
                           "else the question is dropped as below_floor; --search local: the "
                           "share of the question's BM25 weight the page matches, 0 to 1 "
                           "(default measured on NQ-open, docs/design/decisions.md); backends "
                           "without scores (mediawiki, web) are not floored; 0 = off",
        parse=non_negative_float)
    min_margin: float = linking_option(
        DEFAULT_MIN_MARGIN, "relevance floor: the top Wikipedia page's lowest lead over the "
                            "next hit, as a share of its score (0.2: a fifth ahead); 0 = off "
                            "(default)", parse=non_negative_float)
    relink: bool = linking_option(
        False, "with --previous: search and fetch the page of every question again (fresh "
               "pages); without it a question the previous release has keeps its example "
               "(page revision, tokens, candidates) or its lasting drop (no Wikipedia page in "
               "the top 5...), with no network request", flag=True, rows=False)


@dataclass(frozen=True)
class ResolvedLinking:
    """What the linking options leave open, decided before the job: the search backend, the
    page source, the index directory (the bundled index when it may serve) and the labels
    the manifest and card name them by; ``bundled_index`` says the bundled sample index is
    used, ``sample_input`` that ``--input`` is the bundled sample log."""

    pages: str
    index_dir: str
    search: str = "local"
    search_label: str = ""
    pages_label: str = ""
    index_label: str = ""
    bundled_index: bool = False
    sample_input: bool = False
    index_pages: int | None = None  # pages the index records (the small-index warning)


CHOICES = {  # every backend of transforms.clients.search_backends.BACKEND_NAMES
    "mediawiki": ("--search mediawiki", "Wikipedia's search API, pages from its REST API "
                                        "(network; --mediawiki-api-url, --rest-url)"),
    "local": ("--search local --index-dir DIR", "a local BM25 index built by python -m "
                                                "pipelines.build_search_index (or gs://...)"),
    "web": ("--search web", "a web search JSON API (key in $SEARCH_API_KEY, engine id in "
                            "$SEARCH_ENGINE_ID; --web-endpoint)"),
}


def default_pages(search: str | None) -> str:
    """``--pages`` when not given: ``local`` with ``--search local``, else ``rest``."""
    return "local" if search == "local" else "rest"


def choose_backend_message(options: Any, why: str) -> str:
    """The exit-2 message of a run whose input may not use the bundled sample index: why,
    then every backend to choose from (``CHOICES``), then ``--sample-index``."""
    width = max(len(flag) for flag, _ in CHOICES.values())
    lines = [f"--input {options.input} is not the bundled sample log, and {why}: the bundled "
             f"sample index holds only the few pages written for that log, so your questions "
             f"would be linked to unrelated pages. Choose where to search:"]
    lines += [f"  {flag:<{width}}  {what}" for flag, what in CHOICES.values()]
    lines.append("  (--sample-index links against the bundled sample index anyway, as a "
                 "demonstration; the manifest and card say so)")
    return "\n".join(lines)


def _search_of(options: Any, needs_index: bool, sample_input: bool) -> str:
    """The search backend: as given; ``local`` for ``--index-dir`` or ``--sample-index``;
    ``local`` (the bundled index) for the sample log and when nothing is searched."""
    if options.search:
        return options.search
    if options.index_dir or options.sample_index or sample_input or not needs_index:
        return "local"
    raise UsageError(choose_backend_message(options, "no search backend was chosen"))


def _index_of(options: Any, search: str, pages: str, sample_input: bool) -> tuple[str, bool]:
    """``(index directory, bundled)`` of a run that searches or reads pages locally: the
    given ``--index-dir``, checked; else the bundled index, for the sample log or with
    ``--sample-index``; else ``UsageError``."""
    from transforms.sources.index_copy import check_index_dir
    from transforms.sources.search_corpus import NoSampleCorpusError, ensure_sample_index

    if options.index_dir:
        if options.sample_index:
            raise UsageError("--sample-index and --index-dir name two indexes: keep one")
        try:
            check_index_dir(options.index_dir)
        except IndexFormatError as error:
            raise UsageError(str(error)) from error
        return options.index_dir, False
    if not (sample_input or options.sample_index):
        flag = "--search local" if search == "local" else "--pages local"
        raise UsageError(choose_backend_message(options, f"{flag} has no --index-dir"))
    try:
        return ensure_sample_index(lang=options.lang), True
    except NoSampleCorpusError as error:
        raise UsageError(f"{error}; or pass --index-dir DIR") from None


def resolve_linking(options: Any, needs_index: bool) -> ResolvedLinking:
    """The search backend, ``--pages`` and the index of a run, and their labels (module
    docstring): the bundled index only for the bundled sample log or ``--sample-index``,
    a given ``--index-dir`` checked, ``UsageError`` (exit 2) before any work otherwise.
    ``options`` (a ``LinkingOptions``) is not changed."""
    from transforms.nq.sample_log import is_sample_log

    sample_input = needs_index and is_sample_log(options.input, options.lang)
    search = _search_of(options, needs_index, sample_input)
    check_floor(options, search)
    pages = options.pages or default_pages(search)
    if not needs_index:
        return ResolvedLinking(pages, options.index_dir, search)
    uses_index = "local" in (search, pages)
    if options.sample_index and not uses_index:
        raise UsageError(f"--sample-index: --search {search} --pages {pages} read no index")
    index_dir, bundled, index = options.index_dir, False, ""
    if uses_index:
        index_dir, bundled = _index_of(options, search, pages, sample_input)
        index = bundled_index_label(index_dir) if bundled else local_index_label(index_dir)
    return ResolvedLinking(
        pages, index_dir, search,
        search_label(search, options.lang, index, api_url=options.mediawiki_api_url,
                     web_endpoint=options.web_endpoint),
        pages_label(pages, search, options.lang, index, rest_url=options.rest_url),
        index, bundled, sample_input,
        index_page_count(index_dir) if resolved_search_reads(search) else None)


def check_floor(options: Any, search: str) -> None:
    """``UsageError`` (exit 2, before any work) for a floor nothing can pass: a margin is at
    most 1, and so is a local score (a share of the question's weight)."""
    if options.min_margin > 1:
        raise UsageError(f"--min-margin {options.min_margin}: a margin is a share of the page's "
                         f"score, at most 1 (0.2: the page leads the next hit by a fifth)")
    if search == "local" and options.min_score > 1:
        raise UsageError(f"--min-score {options.min_score}: with --search local a score is the "
                         f"share of the question's BM25 weight a page matches, at most 1 "
                         f"(default {DEFAULT_MIN_SCORE})")


def resolved_search_reads(search: str) -> bool:
    """Whether the search itself reads the index (``--search local``): its size then decides
    which pages questions can find."""
    return search == "local"


def source_of(resolved: ResolvedLinking) -> dict[str, Any]:
    """The manifest ``source`` entries of the linking: backends, index and their labels
    (the kinds only when nothing is searched: ``--stop-after questions``)."""
    kinds = {"search": resolved.search, "pages": resolved.pages,
             "index_dir": resolved.index_dir}
    if not resolved.search_label:
        return kinds
    return {**kinds, "search_backend": resolved.search_label,
            "pages_backend": resolved.pages_label, "index": resolved.index_label,
            "bundled_sample_index": resolved.bundled_index,
            "sample_input": resolved.sample_input,
            **({"index_pages": resolved.index_pages} if resolved.index_pages is not None
               else {})}


def recorded_of(resolved: ResolvedLinking) -> dict[str, Any]:
    """The options the manifest records as resolved: ``--search``, ``--pages``, the index."""
    return {"search": resolved.search, "pages": resolved.pages,
            "index_dir": resolved.index_dir}


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
    return BackendOptions(options.search or resolved.search, resolved.pages, options.lang,
                          resolved.index_dir, http, search, options.rest_url,
                          failure_limit=options.max_consecutive_failures,
                          floor=relevance_floor(options))


def relevance_floor(options: Any) -> RelevanceFloor:
    """The relevance floor of ``--min-score`` and ``--min-margin``."""
    return RelevanceFloor(options.min_score, options.min_margin)


def linking_endpoints(options: Any, resolved: ResolvedLinking) -> tuple[Endpoint, ...]:
    """The network endpoints the linking stage will ask (the search API unless ``--search
    local``, the REST API with ``--pages rest``), for the check before the job; none with
    ``--no-preflight``."""
    if options.no_preflight:
        return ()
    timeout = http_limits(options).timeout
    backend = options.search or resolved.search
    search = search_endpoint(backend, options.lang, api_url=options.mediawiki_api_url,
                             endpoint=options.web_endpoint, timeout=timeout,
                             option=SEARCH_URL_OPTIONS.get(backend, ""))
    pages = (pages_endpoint(options.lang, options.rest_url, timeout, "--rest-url")
             if resolved.pages == "rest" else None)
    return tuple(endpoint for endpoint in (search, pages) if endpoint is not None)
