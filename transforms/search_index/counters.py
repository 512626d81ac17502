"""The counters of the search index: what its stages tally and its card and summary read.

``transforms.sources.search_corpus`` tallies nothing itself: it yields ``UnreadablePage``,
exceptions and ``Skipped`` records, which the stages here count under these names.
"""

from __future__ import annotations

from transforms.core.counters import Counter, CounterFamily, CounterSet

PAGES = "pages"

READ = Counter(PAGES, "read")
UNREADABLE_FILES = Counter(PAGES, "unreadable_files")  # a page file of a corpus directory
UNREADABLE_INDEX = Counter(PAGES, "unreadable_index")  # a corpus directory's index.tsv
MALFORMED_LINES = Counter(PAGES, "malformed_lines")  # an Enterprise dump line
UNREADABLE_DUMPS = Counter(PAGES, "unreadable_dumps")  # an Enterprise dump file
SKIPPED = CounterFamily(PAGES, "skipped")  # skipped.<reason>: dump lines read, not indexed
PAGES_DEAD_LETTERED = Counter(PAGES, "dead_lettered")

COUNTERS = CounterSet.from_module(globals())
