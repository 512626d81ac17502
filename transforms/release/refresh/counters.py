"""The counters of a refresh (``--previous``), in rows of the release.

They are tallied like every stage's counters, then taken out of ``counts`` when the release
is published: ``stats.json`` has them under ``refresh`` with the previous release's lineage,
and the summary and the card print them from there.
"""

from __future__ import annotations

from transforms.core.counters import Counter, CounterSet

STAGE = "refresh"
CARRIED = Counter(STAGE, "carried")  # rows of unchanged inputs, copied from the previous release
RECOMPUTED = Counter(STAGE, "recomputed")  # rows rebuilt from inputs the previous one also had
NEW = Counter(STAGE, "new")  # rows from inputs the previous release did not have
REMOVED = Counter(STAGE, "removed")  # previous rows whose input is gone (or no longer kept)
INPUTS_CARRIED = Counter(STAGE, "inputs_carried")  # inputs not processed: their rows carried

COUNTERS = CounterSet.of(CARRIED, RECOMPUTED, NEW, REMOVED, INPUTS_CARRIED)
ROW_COUNTERS = (CARRIED, RECOMPUTED, NEW, REMOVED)
