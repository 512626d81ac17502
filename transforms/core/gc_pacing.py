"""Full garbage collections ten times rarer while a job runs in this process.

CPython's cyclic garbage collector walks every container object it tracks at each full
(generation 2) collection. When a DirectRunner job runs in the launching process, that is
every object of the imported modules (Beam, pyarrow, lxml, spaCy, our own), of the pipeline
graph and of the job's side inputs and caches, and the job's own allocations trigger a full
collection every few seconds, each walking them all again: 0.23-1.7 s of a 10,000-page NLQuAD
build or refresh, measured on 2 cores (2026-11-29).

``rare_full_collections`` multiplies the oldest generation's threshold by
``FULL_COLLECTION_FACTOR`` while the job runs, and restores the thresholds when it ends, also
when it fails. In that refresh no full collection ran any more, with the same peak RSS
(622-629 MB); younger generations are collected as before, so short-lived cycles still go.
Nothing a job computes depends on it: only the time the collector takes.

Freezing the objects that exist once the pipeline is built (``gc.freeze``) saved as much in
one job, but in a process that runs many jobs (the tests, a notebook) every ``gc.unfreeze``
handed the whole heap back to a collector whose count of long-lived objects was the job's
alone, so the next full collection came at once and walked gigabytes; it was not kept.

A runner that runs the job in other processes (Dataflow, the DirectRunner's
``multi_processing`` mode) collects there; the launcher's setting is then harmless and
useless.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

FULL_COLLECTION_FACTOR = 10  # full collections this many times rarer while a job runs


@contextmanager
def rare_full_collections() -> Iterator[None]:
    """Within the context, full collections are ``FULL_COLLECTION_FACTOR`` times rarer."""
    thresholds = gc.get_threshold()
    young, middle, old = thresholds
    gc.set_threshold(young, middle, old * FULL_COLLECTION_FACTOR)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
