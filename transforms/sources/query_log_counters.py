"""The counters of the query-log reader (stage ``log``), shared by NQ and JNQ."""

from __future__ import annotations

from transforms.core.counters import Counter, CounterFamily, CounterSet
from transforms.core.summary import DEAD_LETTERED

LOG = "log"
LOG_ROWS = Counter(LOG, "rows")
LOG_MALFORMED_ROWS = Counter(LOG, "malformed_rows")
LOG_MALFORMED = CounterFamily(LOG, "malformed")  # malformed.<reason>
LOG_UNREADABLE_FILES = Counter(LOG, "unreadable_files")
LOG_UNREADABLE = CounterFamily(LOG, "unreadable")  # unreadable.<reason>
LOG_DEAD_LETTERED = Counter(LOG, DEAD_LETTERED)

QUERY_LOG_COUNTERS = CounterSet.from_module(globals())
