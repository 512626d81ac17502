"""Polite, resumable client for the Internet Archive Wayback Machine.

Covers the two endpoints the dataset builders need:

* the CDX server (``/cdx/search/cdx``), documented at
  https://github.com/internetarchive/wayback/tree/master/wayback-cdx-server ;
* raw capture replay (``/web/<timestamp>id_/<original>``), which returns the archived payload
  without the Wayback banner or URL rewriting.

Everything that reaches the network goes through one retry loop with per-endpoint rate limits,
exponential backoff, long pauses on rate limiting (HTTP 429 or refused connections) and no retry
on permanent errors. CDX pages and fetched payloads are cached on disk with atomic writes so a
re-run after a crash never asks the archive twice for the same thing.

Modules: :mod:`.cdx` (captures, queries, parsing), :mod:`.digest` (CDX digests),
:mod:`.errors` (failure kinds), :mod:`.body` (reading and decoding payloads),
:mod:`.policy` (:class:`WaybackPolicy`: rates, pauses and limits, defaults included) and
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
    DEFAULT_BASE_URL,
    DEFAULT_USER_AGENT,
    VERIFY_MODES,
    FetchResult,
    WaybackClient,
)
from transforms.clients.wayback.digest import sha1_base32
from transforms.clients.wayback.errors import WaybackError
from transforms.clients.wayback.policy import WaybackPolicy

__all__ = [
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
