"""Keep the garbage collector's full passes off the objects a job starts with, and rarer.

CPython's cyclic garbage collector walks every container object it tracks at each full
(generation 2) collection. When a DirectRunner job runs in the launching process, that is
every object of the imported modules (Beam, pyarrow, lxml, our own) and of the pipeline
graph, about 140,000 for an NLQuAD job, none of which becomes garbage while the job runs:
the job's own allocations trigger several full collections, and each walks them all again.

``FrozenHeap`` freezes what exists once the pipeline is built (``gc.freeze``: those objects
move to a permanent generation the collector skips) and makes full collections rarer while
the job runs (the oldest generation's threshold ``FULL_COLLECTION_FACTOR`` times Python's:
a job's own long-lived objects, its side inputs, caches and loaded models, are walked too).
When the job is over, also when it fails, the heap is unfrozen and the thresholds restored,
so a process that runs many jobs (the tests, a notebook) collects their garbage as before.
Nothing a job computes depends on it: only the time the collector takes. Measured on 2 cores
(2026-11-29), an NLQuAD job of 10,000 pages spent 0.5-1.7 s in full collections, its
refresh 0.5-1.7 s too; with the heap frozen, 0.2-0.5 s; with full collections rarer too,
none ran, and the peak RSS was the same (624-629 MB).

A runner that runs the job in other processes (Dataflow, the DirectRunner's
``multi_processing`` mode) collects there; freezing the launcher's heap is then harmless
and useless.
"""

from __future__ import annotations

import gc
from types import TracebackType

FULL_COLLECTION_FACTOR = 10  # full collections this many times rarer while a job runs


class FrozenHeap:
    """A context that undoes, as it exits, what ``freeze`` did within it."""

    def __init__(self) -> None:
        self.thresholds: tuple[int, int, int] | None = None

    def __enter__(self) -> FrozenHeap:
        return self

    def freeze(self) -> None:
        """Move every object the collector tracks now to the permanent generation, and make
        full collections ``FULL_COLLECTION_FACTOR`` times rarer."""
        if self.thresholds is None:
            self.thresholds = gc.get_threshold()
            young, middle, old = self.thresholds
            gc.set_threshold(young, middle, old * FULL_COLLECTION_FACTOR)
        gc.freeze()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self.thresholds is not None:
            gc.unfreeze()
            gc.set_threshold(*self.thresholds)
            self.thresholds = None
