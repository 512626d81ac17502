"""The counters of the category lexicon: what its stages tally and its card and summary read."""

from __future__ import annotations

from transforms.core.counters import Counter, CounterFamily, CounterSet

CORPUS = "corpus"
HEARST = "hearst"

FILES = Counter(CORPUS, "files")
PARAGRAPHS = Counter(CORPUS, "paragraphs")
UNREADABLE_FILES = Counter(CORPUS, "unreadable_files")
UNREADABLE = CounterFamily(CORPUS, "unreadable")  # unreadable.<reason>
MALFORMED_LINES = Counter(CORPUS, "malformed_lines")
MALFORMED = CounterFamily(CORPUS, "malformed")  # malformed.<reason>
CORPUS_DEAD_LETTERED = Counter(CORPUS, "dead_lettered")
PATTERN = CounterFamily(HEARST, "pattern")  # pattern.<Hearst pattern>

COUNTERS = CounterSet.from_module(globals())
