"""The counters of the query-log reader (stage ``log``), shared by NQ and JNQ."""

from __future__ import annotations

from transforms.core.counters import Counter, CounterFamily, CounterSet
from transforms.core.summary import DEAD_LETTERED
from transforms.sources import compressed

LOG = "log"
LOG_ROWS = Counter(LOG, "rows")
LOG_MALFORMED_ROWS = Counter(LOG, "malformed_rows")
LOG_MALFORMED = CounterFamily(LOG, "malformed")  # malformed.<reason>
LINE_TOO_LONG = compressed.LINE_TOO_LONG  # malformed.line_too_long: a line past the line cap
LOG_UNREADABLE_FILES = Counter(LOG, "unreadable_files")
LOG_UNREADABLE = CounterFamily(LOG, "unreadable")  # unreadable.<reason>
LOG_DEAD_LETTERED = Counter(LOG, DEAD_LETTERED)

QUERY_LOG_COUNTERS = CounterSet.from_module(globals())
