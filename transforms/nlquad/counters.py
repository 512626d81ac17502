"""The counters of NLQuAD: what its stages and page sources tally and its card and summary read.

The ``input``, ``cdx`` and ``fetch`` stages are the page sources' (``transforms.sources.
page_files``, ``transforms.sources.wayback``): their counters are declared in
``transforms.sources.counters`` and re-exported here. The question prefix
tallies (``question_prefix_1.<first word>``) are not counts: ``stats.json`` ranks them under
``question_prefixes`` (``transforms.release.stats``), so they are stage names only.
"""

from __future__ import annotations

from transforms.core.counters import Counter, CounterFamily, CounterSet
from transforms.core.summary import DEAD_LETTERED
from transforms.release.stats import PREFIX_TALLIES
from transforms.sources.compressed import DECODED_TOO_LARGE  # noqa: F401 - re-exported
from transforms.sources.counters import (  # noqa: F401 - re-exported
    CACHE_HITS,
    CAPTURES_LISTED,
    CDX,
    CDX_ADJACENT_DUPLICATES,
    CDX_CAPTURES_LISTED,
    CDX_DEAD_LETTERED,
    CDX_DUPLICATE_ARTICLE_URLS,
    CDX_FAILED,
    CDX_HTTP_RATE_LIMITED,
    CDX_HTTP_REQUESTS,
    CDX_MALFORMED,
    CDX_RETRY_WAIT_SECONDS,
    CDX_RETRY_WAITS,
    CDX_REVISITS_LISTED,
    CDX_ROWS_READ,
    CDX_SKIPPED,
    CDX_THROTTLE_WAIT_SECONDS,
    DECODED_TOO_LARGE_FILES,
    DIGEST_MISMATCH_KEPT,
    FETCH,
    FETCH_DEAD_LETTERED,
    FETCH_FAILED,
    FETCH_HTTP_RATE_LIMITED,
    FETCH_HTTP_REQUESTS,
    FETCH_RETRY_WAIT_SECONDS,
    FETCH_RETRY_WAITS,
    FETCH_THROTTLE_WAIT_SECONDS,
    FETCHED,
    INPUT,
    INPUT_DEAD_LETTERED,
    INPUT_PAGES,
    INPUT_SKIPPED,
    MALFORMED,
    REDIRECTED_CAPTURES_KEPT,
    RETRIES,
    ROWS_READ,
    SKIPPED_ADJACENT_DUPLICATE,
    SOURCE_COUNTERS,
    TRUNCATED_OR_CORRUPT_FILES,
    UNREADABLE_FILES,
    UNSUPPORTED_COMPRESSION_FILES,
    WARC_DECODED_TOO_LARGE_RECORDS,
    WARC_EMPTY_FILES,
    WARC_NOT_ARCHIVE_FILES,
    WARC_SKIPPED,
    WARC_TRUNCATED_OR_CORRUPT_FILES,
    WARC_TRUNCATED_RECORDS,
)

PAGES = "pages"
DEDUP = "dedup"
CARRIED = "carried"
DOCUMENTS = "documents"
QUESTIONS = "questions"
FIRST_WORD, FIRST_TWO_WORDS = (prefix.rstrip(".") for prefix in PREFIX_TALLIES)

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
# --layout generic (or auto, for a page of another site): parsed by the generic extractor
PARSED_GENERIC = Counter(PAGES, "parsed_generic")
PAGES_DEAD_LETTERED = Counter(PAGES, DEAD_LETTERED)

#: the decoding methods ``filters.text.html_decoding`` names that a page counts
ENCODING = {"detected": ENCODING_DETECTED, "fallback": ENCODING_FALLBACK,
            "replaced": ENCODING_REPLACED}
#: the layout eras ``filters.bbc.article`` parses, and the generic extractor's
#: (``filters.nlquad.news_article.GENERIC_ERA``): what the card and summary say each used
PARSED_ERA = {"A": PARSED_ERA_A, "B": PARSED_ERA_B, "C": PARSED_ERA_C, "D": PARSED_ERA_D,
              "generic": PARSED_GENERIC}

# dedup: DeduplicateArticles
DUPLICATE_CAPTURE = Counter(DEDUP, "duplicate_capture")
DUPLICATE_CONTENT = Counter(DEDUP, "duplicate_content")
# a refresh (--previous): a new capture of a carried document's article, or a new article with
# a carried document's text, is dropped: published rows stay as they are
DUPLICATE_CAPTURE_OF_CARRIED = Counter(DEDUP, "duplicate_capture_of_carried")
DUPLICATE_CONTENT_OF_CARRIED = Counter(DEDUP, "duplicate_content_of_carried")

# carried: a refresh's documents whose capture is unchanged (transforms.nlquad.refresh); they
# are not read, parsed or extracted again (their rows, if any, are carried as they are)
DOCUMENTS_CARRIED = Counter(CARRIED, "documents")
# captures the parser skipped in the previous release, unchanged: counted and rejected as it
# did, not parsed again (transforms.nlquad.outcomes)
SKIPS_CARRIED = Counter(CARRIED, "skipped_pages")

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

COUNTERS = CounterSet.of(SOURCE_COUNTERS, CounterSet.from_module(globals()))
