"""Keep the objects a job starts with out of the garbage collector's full passes.

CPython's cyclic garbage collector walks every container object it tracks at each full
(generation 2) collection. When a DirectRunner job runs in the launching process, that is
every object of the imported modules (Beam, pyarrow, lxml, our own) and of the pipeline
graph, about 140,000 for an NLQuAD job, none of which becomes garbage while the job runs:
the job's own allocations trigger several full collections, and each walks them all again.

``FrozenHeap`` freezes what exists once the pipeline is built (``gc.freeze``: those objects
move to a permanent generation the collector skips) and unfreezes it when the job is over
(``gc.unfreeze``), also when it fails, so a process that runs many jobs (the tests, a
notebook) collects their garbage as before. Nothing a job computes depends on it: only the
time the collector takes. Measured on 2 cores, an NLQuAD job of 10,000 pages spent 1.1-1.7
s in full collections (a refresh of it, 1.1-1.7 s too); with the heap frozen, 0.2-0.3 s.

A runner that runs the job in other processes (Dataflow, the DirectRunner's
``multi_processing`` mode) collects there; freezing the launcher's heap is then harmless
and useless.
"""

from __future__ import annotations

import gc
from types import TracebackType


class FrozenHeap:
    """A context that unfreezes, as it exits, the objects ``freeze`` froze within it."""

    def __init__(self) -> None:
        self.frozen = False

    def __enter__(self) -> FrozenHeap:
        return self

    def freeze(self) -> None:
        """Move every object the collector tracks now to the permanent generation."""
        gc.freeze()
        self.frozen = True

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
