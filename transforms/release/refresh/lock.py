"""One ``--previous auto`` refresh at a time per dataset directory.

Two refreshes launched together would both build on the version ``LATEST`` names and fork
the lineage (both "built on 1"), and the one that finishes last would have moved ``LATEST``.
So a ``--previous auto`` run of a local release root holds ``<output>/<dataset>/
.refresh.lock`` (``transforms.release.locks``) from before it reads ``LATEST`` until its
release is published or the run has failed. A second one is refused before any work
(``RefreshBusy``, exit 2), naming the run that holds the lock: run it again once that one
has published, and it builds on that version.

A lock left by a killed run is stale: the kernel released it with the process, and the next
run takes it over; there is nothing to remove by hand. Object-store roots take no lock: there
``commit.finalize_release`` refuses to publish a ``--previous auto`` build once ``LATEST``
no longer names the version it was built on (``LatestMovedError``), which also covers a run
that publishes without ``--previous auto`` in between.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from transforms.release.locks import LockHeld, describe, holder_record, take_lock
from transforms.release.refresh.previous import RefreshRefused
from transforms.release.resolve import AUTO
from transforms.release.storage import is_local
from transforms.release.target import ReleaseTarget

REFRESH_LOCK = ".refresh.lock"


class RefreshBusy(RefreshRefused):
    """Another ``--previous auto`` refresh of the dataset is running (exit 2, before any
    work)."""


@contextmanager
def refresh_lock(target: ReleaseTarget, previous: str | None) -> Iterator[None]:
    """Hold the dataset directory's refresh lock for the block when ``previous`` is
    ``auto`` and the root is local (see the module docstring); a dataset directory that
    does not exist yet has no ``LATEST`` to build on, and needs none."""
    directory = target.dataset_dir
    if previous != AUTO or not is_local(directory) or not os.path.isdir(directory):
        yield
        return
    target.check_no_links()
    path = os.path.join(directory, REFRESH_LOCK)
    try:
        lock = take_lock(path, holder_record(target.version, target.run_id))
    except LockHeld as held:
        raise RefreshBusy(
            f"--previous auto: another refresh of {target.dataset} is running "
            f"({describe(held.holder)}; lock {path}); both would build on the same version. "
            f"Run again once it has published: this run then builds on its version") from None
    try:
        yield
    finally:
        if lock is not None:
            lock.release()
