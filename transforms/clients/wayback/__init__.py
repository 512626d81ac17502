"""Polite, resumable client for the Internet Archive Wayback Machine.

Covers the two endpoints the dataset builders need:

* the CDX server (``/cdx/search/cdx``), documented at
  https://github.com/internetarchive/wayback/tree/master/wayback-cdx-server ;
* raw capture replay (``/web/<timestamp>id_/<original>``), which returns the archived payload
  without the Wayback banner or URL rewriting.

Everything that reaches the network goes through one retry loop with per-endpoint rate limits,
exponential backoff, long pauses on rate limiting (HTTP 429 or refused connections), capped
Retry-After, wait budgets per request and per run, and no retry on permanent errors. A replay
is judged by its Memento headers: another capture than the one listed, a status the page
itself recorded and the archive's own page are each their own outcome. CDX pages and fetched
payloads are cached on disk with atomic writes so a re-run after a crash never asks the
archive twice for the same thing.

Modules: :mod:`.cdx` (captures, queries, parsing), :mod:`.paging` (bounds on resume-key
paging), :mod:`.digest` (CDX digests), :mod:`.memento` (Memento headers), :mod:`.replay`
(:class:`FetchResult` and what a replay is), :mod:`.errors` (failure kinds), :mod:`.body`
(reading and decoding payloads), :mod:`.fetch_cache` (the capture cache), :mod:`.policy`
(:class:`WaybackPolicy`: rates, pauses, budgets and limits, defaults included) and
:mod:`.client` (:class:`WaybackClient`). This package deliberately has no Apache Beam
dependency: Beam DoFns build a client in ``DoFn.setup()`` and export
:attr:`WaybackClient.stats` as metrics.
"""

from transforms.clients.wayback.cdx import (
    BBC_NEWS_PREFIXES,
    CDX_FIELDS,
    MALFORMED_ROW_REASONS,
    CdxBadRow,
    CdxCapture,
    CdxDuplicate,
    CdxPage,
    bbc_cdx_queries,
    parse_cdx_json,
)
from transforms.clients.wayback.client import (
    ARTICLE_FILTERS,
    DEFAULT_BASE_URL,
    DEFAULT_USER_AGENT,
    VERIFY_MODES,
    WaybackClient,
)
from transforms.clients.wayback.digest import sha1_base32
from transforms.clients.wayback.errors import WaybackError
from transforms.clients.wayback.policy import WaybackPolicy
from transforms.clients.wayback.replay import FetchResult

__all__ = [
    "ARTICLE_FILTERS",
    "BBC_NEWS_PREFIXES",
    "CDX_FIELDS",
    "DEFAULT_BASE_URL",
    "DEFAULT_USER_AGENT",
    "MALFORMED_ROW_REASONS",
    "VERIFY_MODES",
    "CdxBadRow",
    "CdxCapture",
    "CdxDuplicate",
    "CdxPage",
    "FetchResult",
    "WaybackClient",
    "WaybackError",
    "WaybackPolicy",
    "bbc_cdx_queries",
    "parse_cdx_json",
    "sha1_base32",
]
