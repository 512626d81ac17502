"""How the toolkit treats the Wayback Machine: rates, pauses, fetchers, cache and request limits.

:class:`WaybackPolicy` is the one place these defaults live: the client, the Beam source
(:class:`transforms.sources.wayback.ReadWaybackPages`) and the command-line defaults of
``build_nlquad`` all read them from here. Frozen and picklable, so DoFns hold it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from transforms.clients.bounded_http import MIB, RequestLimits, with_overrides

CAPTURE_REDIRECTS: tuple[str, ...] = ("refuse", "accept")
DEFAULT_LIMITS = RequestLimits(timeout=(10.0, 60.0), deadline=300.0, max_retries=5,
                               max_redirects=5, max_body_bytes=64 * MIB,
                               max_decoded_bytes=256 * MIB)


@dataclass(frozen=True)
class WaybackPolicy:
    """Rates and limits of Wayback requests.

    ``cdx_per_minute`` and ``fetches_per_minute`` are the CDX and capture fetch rates (0: no
    limit; the archive allows ~24 and ~480 a minute per IP); ``fetch_workers`` fetchers share
    the fetch rate (see :meth:`per_fetcher`). A rate-limited answer pauses
    ``max(rate_limit_pause, Retry-After)``; other retryable failures back off from
    ``backoff_base`` up to ``backoff_max``; a Retry-After is obeyed up to ``max_retry_after``
    seconds. One request (a capture, a CDX page) waits at most ``request_wait_budget`` seconds
    between its attempts, and a client at most ``run_wait_budget`` in all (0: no budget;
    fetchers share it as they share the rate). ``max_cdx_pages`` caps the pages of one CDX
    query. ``capture_redirects`` says what a replay of another capture than the one listed
    is: "refuse" (``capture_redirected``) or "accept" (kept with its own timestamp).
    ``cache_dir`` caches CDX pages and captures (None: no cache; ``gs://...`` needs a
    ``cache_storage``). ``limits`` bound every request.
    """

    cdx_per_minute: float = 20
    fetches_per_minute: float = 240
    rate_limit_pause: float = 60.0
    fetch_workers: int = 2
    cache_dir: str | os.PathLike[str] | None = None
    backoff_base: float = 2.0
    backoff_max: float = 120.0
    max_retry_after: float = 300.0
    request_wait_budget: float = 600.0
    run_wait_budget: float = 7200.0
    max_cdx_pages: int = 10_000
    capture_redirects: str = "refuse"
    limits: RequestLimits = DEFAULT_LIMITS

    def __post_init__(self) -> None:
        if self.capture_redirects not in CAPTURE_REDIRECTS:
            raise ValueError(f"capture_redirects must be one of {CAPTURE_REDIRECTS}, "
                             f"got {self.capture_redirects!r}")
        if self.max_cdx_pages < 1:
            raise ValueError(f"max_cdx_pages must be at least 1, got {self.max_cdx_pages}")

    def override(self, **changes: Any) -> WaybackPolicy:
        """This policy with fields (or fields of ``limits``) replaced by name."""
        return with_overrides(self, **changes)

    def per_fetcher(self) -> WaybackPolicy:
        """The policy of one of ``fetch_workers`` fetchers: its share of the fetch rate and
        of the run's wait budget."""
        workers = max(1, self.fetch_workers)
        return replace(self, fetches_per_minute=self.fetches_per_minute / workers,
                       run_wait_budget=self.run_wait_budget / workers, fetch_workers=1)
