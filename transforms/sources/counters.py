"""The counters of the page sources: what ``transforms.sources.page_files`` and
``transforms.sources.wayback`` tally (stages ``input``, ``cdx`` and ``fetch``) and the cards
and summaries of the datasets built on them read (``SOURCE_COUNTERS``, NLQuAD's).

The ``cdx`` stage accounts for every row the archive returns: ``rows_read`` =
``captures_listed`` + ``skipped.adjacent_duplicate`` + ``malformed.<reason>`` (one of
``transforms.clients.wayback.cdx.MALFORMED_ROW_REASONS``).
"""

from __future__ import annotations

from transforms.clients.wayback.cdx import ADJACENT_DUPLICATE
from transforms.core.counters import Counter, CounterFamily, CounterSet
from transforms.core.summary import DEAD_LETTERED
from transforms.sources.compressed import DECODED_TOO_LARGE

INPUT = "input"
CDX = "cdx"
FETCH = "fetch"

# names of the ``cdx`` stage (``transforms.sources.wayback`` re-exports them)
ROWS_READ = "rows_read"
CAPTURES_LISTED = "captures_listed"
SKIPPED_ADJACENT_DUPLICATE = f"skipped.{ADJACENT_DUPLICATE}"
MALFORMED = "malformed"

# input: page files (sample, html, warc) and fetched Wayback captures
INPUT_PAGES = Counter(INPUT, "pages")
INPUT_SKIPPED = CounterFamily(INPUT, "skipped")  # skipped.no_capture_url
NO_CAPTURE_URL = INPUT_SKIPPED.member("no_capture_url")
UNREADABLE_FILES = Counter(INPUT, "unreadable_files")
TRUNCATED_OR_CORRUPT_FILES = Counter(INPUT, "truncated_or_corrupt_files")
DECODED_TOO_LARGE_FILES = Counter(INPUT, f"{DECODED_TOO_LARGE}_files")
UNSUPPORTED_COMPRESSION_FILES = Counter(INPUT, "unsupported_compression_files")
WARC_EMPTY_FILES = Counter(INPUT, "warc_empty_files")
WARC_NOT_ARCHIVE_FILES = Counter(INPUT, "warc_not_archive_files")
WARC_TRUNCATED_OR_CORRUPT_FILES = Counter(INPUT, "warc_truncated_or_corrupt_files")
WARC_TRUNCATED_RECORDS = Counter(INPUT, "warc_truncated_records")
WARC_DECODED_TOO_LARGE_RECORDS = Counter(INPUT, f"warc_{DECODED_TOO_LARGE}_records")
WARC_SKIPPED = CounterFamily(INPUT, "warc_skipped")  # warc_skipped.<record kind>
INPUT_DEAD_LETTERED = Counter(INPUT, DEAD_LETTERED)
# a WARC response whose payload was hashed: its WARC-Payload-Digest header was missing,
# malformed, of another algorithm than SHA-1, or describes encoded bytes (transforms.sources.
# warc_digest); a refresh's page read again for its content failed (transforms.sources.
# page_reload): changed_during_run, unreadable
WARC_DIGEST_HASHED = CounterFamily(INPUT, "warc_digest_hashed")
RELOAD_FAILED = CounterFamily(INPUT, "reload_failed")

# cdx: the Wayback CDX listing
CDX_ROWS_READ = Counter(CDX, ROWS_READ)
CDX_CAPTURES_LISTED = Counter(CDX, CAPTURES_LISTED)
CDX_ADJACENT_DUPLICATES = Counter(CDX, SKIPPED_ADJACENT_DUPLICATE)
CDX_SKIPPED = CounterFamily(CDX, "skipped")  # skipped.<url kind>, skipped.beyond_max_captures
BEYOND_MAX_CAPTURES = CDX_SKIPPED.member("beyond_max_captures")
CDX_MALFORMED = CounterFamily(CDX, MALFORMED)  # malformed.<reason>
CDX_FAILED = CounterFamily(CDX, "failed")  # failed.<kind>
CDX_DUPLICATE_ARTICLE_URLS = Counter(CDX, "duplicate_article_urls")
CDX_REVISITS_LISTED = Counter(CDX, "revisits_listed")  # of captures_listed: warc/revisit
CDX_HTTP_REQUESTS = Counter(CDX, "http_requests")
CDX_HTTP_RATE_LIMITED = Counter(CDX, "http_rate_limited")
CDX_RETRY_WAITS = Counter(CDX, "retry_waits")
CDX_RETRY_WAIT_SECONDS = Counter(CDX, "retry_wait_seconds")
CDX_THROTTLE_WAIT_SECONDS = Counter(CDX, "throttle_wait_seconds")
CDX_DEAD_LETTERED = Counter(CDX, DEAD_LETTERED)

# fetch: Wayback captures
FETCHED = Counter(FETCH, "fetched")
CACHE_HITS = Counter(FETCH, "cache_hits")
RETRIES = Counter(FETCH, "retries")
DIGEST_MISMATCH_KEPT = Counter(FETCH, "digest_mismatch_kept")
FETCH_FAILED = CounterFamily(FETCH, "failed")  # failed.<kind>
# a replay of another capture than the one listed, kept (--wayback-capture-redirects accept)
REDIRECTED_CAPTURES_KEPT = Counter(FETCH, "redirected_captures_kept")
FETCH_HTTP_REQUESTS = Counter(FETCH, "http_requests")
FETCH_HTTP_RATE_LIMITED = Counter(FETCH, "http_rate_limited")
FETCH_RETRY_WAITS = Counter(FETCH, "retry_waits")
FETCH_RETRY_WAIT_SECONDS = Counter(FETCH, "retry_wait_seconds")
FETCH_THROTTLE_WAIT_SECONDS = Counter(FETCH, "throttle_wait_seconds")
FETCH_DEAD_LETTERED = Counter(FETCH, DEAD_LETTERED)

#: the ``WaybackClient.stats`` a DoFn of each stage tallies per element, by stat name: the
#: requests, the rate-limited answers and every wait (retry pauses, counted and in seconds,
#: and seconds waited for a rate-limiter slot)
HTTP_TALLIES = {
    CDX: {"requests": CDX_HTTP_REQUESTS, "rate_limited": CDX_HTTP_RATE_LIMITED,
          "retry_waits": CDX_RETRY_WAITS, "retry_wait_seconds": CDX_RETRY_WAIT_SECONDS,
          "throttle_wait_seconds": CDX_THROTTLE_WAIT_SECONDS},
    FETCH: {"requests": FETCH_HTTP_REQUESTS, "rate_limited": FETCH_HTTP_RATE_LIMITED,
            "retry_waits": FETCH_RETRY_WAITS, "retry_wait_seconds": FETCH_RETRY_WAIT_SECONDS,
            "throttle_wait_seconds": FETCH_THROTTLE_WAIT_SECONDS},
}

SOURCE_COUNTERS = CounterSet.from_module(globals())
