"""The counters of NLQuAD: what its stages and page sources tally and its card and summary read.

The ``input``, ``cdx`` and ``fetch`` stages are the page sources' (``transforms.sources.
page_files``, ``transforms.sources.wayback``), which tally with their own names: they are
declared here, with the sources' name constants where they have them. The question prefix
tallies (``question_prefix_1.<first word>``) are not counts: ``stats.json`` ranks them under
``question_prefixes`` (``transforms.release.stats``), so they are stage names only.
"""

from __future__ import annotations

from transforms.core.counters import Counter, CounterFamily, CounterSet
from transforms.core.summary import DEAD_LETTERED
from transforms.release.stats import PREFIX_TALLIES
from transforms.sources.compressed import DECODED_TOO_LARGE
from transforms.sources.wayback import (
    CAPTURES_LISTED,
    MALFORMED,
    ROWS_READ,
    SKIPPED_ADJACENT_DUPLICATE,
)

INPUT = "input"
CDX = "cdx"
FETCH = "fetch"
PAGES = "pages"
DEDUP = "dedup"
DOCUMENTS = "documents"
QUESTIONS = "questions"
FIRST_WORD, FIRST_TWO_WORDS = (prefix.rstrip(".") for prefix in PREFIX_TALLIES)

# input: page files (sample, html, warc) and fetched Wayback captures
INPUT_PAGES = Counter(INPUT, "pages")
INPUT_SKIPPED = CounterFamily(INPUT, "skipped")  # skipped.no_capture_url
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

# cdx: the Wayback CDX listing (rows_read = listed + adjacent duplicates + malformed)
CDX_ROWS_READ = Counter(CDX, ROWS_READ)
CDX_CAPTURES_LISTED = Counter(CDX, CAPTURES_LISTED)
CDX_ADJACENT_DUPLICATES = Counter(CDX, SKIPPED_ADJACENT_DUPLICATE)
CDX_SKIPPED = CounterFamily(CDX, "skipped")  # skipped.<url kind>, skipped.beyond_max_captures
CDX_MALFORMED = CounterFamily(CDX, MALFORMED)  # malformed.<reason>
CDX_FAILED = CounterFamily(CDX, "failed")  # failed.<kind>
CDX_DUPLICATE_ARTICLE_URLS = Counter(CDX, "duplicate_article_urls")
CDX_HTTP_REQUESTS = Counter(CDX, "http_requests")
CDX_HTTP_RATE_LIMITED = Counter(CDX, "http_rate_limited")
CDX_DEAD_LETTERED = Counter(CDX, DEAD_LETTERED)

# fetch: Wayback captures
FETCHED = Counter(FETCH, "fetched")
CACHE_HITS = Counter(FETCH, "cache_hits")
RETRIES = Counter(FETCH, "retries")
DIGEST_MISMATCH_KEPT = Counter(FETCH, "digest_mismatch_kept")
FETCH_FAILED = CounterFamily(FETCH, "failed")  # failed.<kind>
FETCH_HTTP_REQUESTS = Counter(FETCH, "http_requests")
FETCH_HTTP_RATE_LIMITED = Counter(FETCH, "http_rate_limited")
FETCH_DEAD_LETTERED = Counter(FETCH, DEAD_LETTERED)

# pages: ParsePages
PAGES_READ = Counter(PAGES, "read")
PAGES_PARSED = Counter(PAGES, "parsed")
PAGES_SKIPPED = CounterFamily(PAGES, "skipped")  # skipped.<url kind or parse skip reason>
ENCODING_DETECTED = Counter(PAGES, "encoding_detected")
ENCODING_FALLBACK = Counter(PAGES, "encoding_fallback")
ENCODING_REPLACED = Counter(PAGES, "encoding_replaced")
PARSED_ERA_A = Counter(PAGES, "parsed_era_A")
PARSED_ERA_B = Counter(PAGES, "parsed_era_B")
PARSED_ERA_C = Counter(PAGES, "parsed_era_C")
PARSED_ERA_D = Counter(PAGES, "parsed_era_D")
PAGES_DEAD_LETTERED = Counter(PAGES, DEAD_LETTERED)

#: the decoding methods ``filters.text.html_decoding`` names that a page counts
ENCODING = {"detected": ENCODING_DETECTED, "fallback": ENCODING_FALLBACK,
            "replaced": ENCODING_REPLACED}
#: the layout eras ``filters.bbc.article`` parses
PARSED_ERA = {"A": PARSED_ERA_A, "B": PARSED_ERA_B, "C": PARSED_ERA_C, "D": PARSED_ERA_D}

# dedup: DeduplicateArticles
DUPLICATE_CAPTURE = Counter(DEDUP, "duplicate_capture")
DUPLICATE_CONTENT = Counter(DEDUP, "duplicate_content")

# documents and questions: ExtractQuestionAnswers
DEDUPLICATED = Counter(DOCUMENTS, "deduplicated")
TEMPLATE_PARAGRAPHS_REMOVED = Counter(DOCUMENTS, "template_paragraphs_removed")
REPEATED_PARAGRAPHS_REMOVED = Counter(DOCUMENTS, "repeated_paragraphs_removed")
PROMO_LIST_REMOVED = Counter(DOCUMENTS, "promo_list_removed")
WITHOUT_QUESTIONS = Counter(DOCUMENTS, "without_questions")
DOCUMENTS_KEPT = CounterFamily(DOCUMENTS, "kept")  # kept.<split>
SUBHEADINGS = Counter(QUESTIONS, "subheadings")
NON_INTERROGATIVE_SUBHEADINGS = Counter(QUESTIONS, "non_interrogative_subheadings")
FOUND = Counter(QUESTIONS, "found")
KEPT = Counter(QUESTIONS, "kept")
DROPPED = CounterFamily(QUESTIONS, "dropped")  # dropped.<reason>
QUESTIONS_DEAD_LETTERED = Counter(QUESTIONS, DEAD_LETTERED)

COUNTERS = CounterSet.from_module(globals())
