"""The counters of NQ: what its stages tally and its card, stats and summary read.

The query-log reader's counters (stage ``log``) are ``transforms.sources.query_log_counters``,
re-exported here for NQ and JNQ. The users/window
stage and the linking stages (search, pages, examples) are JNQ's too (``LINKING_COUNTERS``).
"""

from __future__ import annotations

from transforms.core.counters import (
    Counter,
    CounterFamily,
    CounterSet,
)
from transforms.sources.query_log_counters import (  # noqa: F401 - re-exported
    LOG,
    LOG_DEAD_LETTERED,
    LOG_MALFORMED,
    LOG_MALFORMED_ROWS,
    LOG_ROWS,
    LOG_UNREADABLE,
    LOG_UNREADABLE_FILES,
    QUERY_LOG_COUNTERS,
)

QUERIES = "queries"
HEURISTICS = "heuristics"
LINKING = "linking"
PAGES = "pages"
EXAMPLES = "examples"
CANDIDATES = "candidates"
FIRST_WORD = "question_prefix_1"  # names are the first words (``top_prefixes`` reads them)
FIRST_TWO_WORDS = "question_prefix_2"
DEAD_LETTERED = "dead_lettered"

# question selection: users within a window (NQ and JNQ), then NQ's heuristics
DISTINCT = Counter(QUERIES, "distinct")
ACCEPTED = Counter(QUERIES, "accepted")
REJECTED = CounterFamily(QUERIES, "rejected")  # rejected.<reason>
# refresh: queries whose recorded outcome stood for tagging them (transforms.nq.query_outcomes)
OUTCOMES_CARRIED = Counter(QUERIES, "outcomes_carried")
HEURISTIC_FIRED = {number: Counter(HEURISTICS, f"h{number}") for number in range(1, 9)}

# stage 2: search, pages, examples (NQ and JNQ)
TOP_K = 5  # NQ §3.1: a Wikipedia page among the top 5 hits
SEARCHED = Counter(LINKING, "questions")
WIKIPEDIA_RANK = {rank: Counter(LINKING, f"wikipedia_rank_{rank}")
                  for rank in range(1, TOP_K + 1)}
SEARCH_FAILED = CounterFamily(LINKING, "search_failed")  # search_failed.<kind>
LINKING_DROPPED = CounterFamily(LINKING, "dropped")  # dropped.<reason>
NO_WIKIPEDIA = "no_wikipedia_in_top5"  # drop reasons (rejected/unlinked_questions ``reason``)
PAGE_MISSING = "page_missing"
PAGE_REDIRECTED = "page_redirected"
NO_CANDIDATES = "no_long_answer_candidates"
BELOW_FLOOR = "below_floor"  # the top Wikipedia page scored under --min-score / --min-margin
NO_WIKIPEDIA_IN_TOP5 = LINKING_DROPPED.member(NO_WIKIPEDIA)
LINKING_BELOW_FLOOR = LINKING_DROPPED.member(BELOW_FLOOR)  # linking.dropped.below_floor
LINKING_DEAD_LETTERED = Counter(LINKING, DEAD_LETTERED)
# refresh: questions the previous release dropped for a lasting reason, not searched again
PREVIOUSLY_DROPPED = Counter(LINKING, "previously_dropped")
FETCHED = Counter(PAGES, "fetched")
PAGE_FAILED = CounterFamily(PAGES, "failed")  # failed.<kind>
PAGES_DROPPED = CounterFamily(PAGES, "dropped")  # dropped.<kind>, one per question
PAGES_DEAD_LETTERED = Counter(PAGES, DEAD_LETTERED)
BUILT = Counter(EXAMPLES, "built")
EXAMPLES_DROPPED = CounterFamily(EXAMPLES, "dropped")  # dropped.<reason>
EXAMPLES_DEAD_LETTERED = Counter(EXAMPLES, DEAD_LETTERED)
LINKING_COUNTERS = CounterSet.of(SEARCHED, *WIKIPEDIA_RANK.values(), SEARCH_FAILED,
                                 LINKING_DROPPED, LINKING_DEAD_LETTERED, PREVIOUSLY_DROPPED,
                                 FETCHED, PAGE_FAILED,
                                 PAGES_DROPPED, PAGES_DEAD_LETTERED, BUILT, EXAMPLES_DROPPED,
                                 EXAMPLES_DEAD_LETTERED)

# drops a refresh keeps (the question is not linked again): what the search or the page said,
# not a failure to ask (search_failed, HTTP errors are retried)
LASTING_DROPS = frozenset({NO_WIKIPEDIA, BELOW_FLOOR, PAGE_MISSING, PAGE_REDIRECTED,
                           NO_CANDIDATES})

CANDIDATE_TAG = CounterFamily(CANDIDATES, "tag")  # tag.<HTML tag> of long-answer candidates

COUNTERS = CounterSet.of(CounterSet.from_module(globals()), *HEURISTIC_FIRED.values(),
                         *WIKIPEDIA_RANK.values())


def wikipedia_rank(rank: int) -> Counter:
    """The counter of the top Wikipedia page found at ``rank`` (1 to ``TOP_K``)."""
    return WIKIPEDIA_RANK.get(rank) or Counter(LINKING, f"wikipedia_rank_{rank}")


def prefix_counters(first_word: str, first_two_words: str) -> tuple[Counter, Counter]:
    """The question-prefix tallies of an accepted question (``top_prefixes`` reads them into
    ``stats.json``; ``group_tallies`` leaves them out of the counts, so they are not
    declared: their names are the words themselves)."""
    return Counter(FIRST_WORD, first_word), Counter(FIRST_TWO_WORDS, first_two_words)
