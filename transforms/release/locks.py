"""Exclusive lock files in a local dataset directory: who may move ``LATEST`` now.

A lock is a regular file (``<root>/<dataset>/.<name>.lock``, opened without following a
link) on which its holder keeps an exclusive ``flock``; the holder writes who it is in it
(host, pid, version, run id, since when) for the message of whoever finds it taken, and
removes the file when it releases the lock. ``flock`` belongs to the open file, so:

* two runs in one process exclude each other as two processes do;
* a run that is killed holds nothing any more: the kernel dropped its ``flock``, and the
  file it left is *stale*. The next run takes it over (it locks the file, checks that the
  path still names that file, and writes itself in): nothing to remove by hand, no age to
  wait for. A file removed or replaced while a run waited for it is opened again.

``take_lock`` waits up to ``wait`` seconds (polling; ``0``: not at all), then raises
``LockHeld`` naming the holder. Object stores have no such locks: callers take none there.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

try:  # POSIX: the toolkit runs on Linux and macOS
    import fcntl
except ImportError:  # pragma: no cover - no flock: locks are not taken
    fcntl = None  # type: ignore[assignment]

POLL_SECONDS = 0.05
MAX_HOLDER_BYTES = 4096
MAX_REOPENS = 100  # a path replaced this many times in a row is reported as held


class LockHeld(OSError):
    """Another run holds the lock: ``holder`` is what it wrote in the file ({} if nothing)."""

    def __init__(self, path: str, holder: dict[str, Any]):
        super().__init__(f"{path} is held by {describe(holder)}")
        self.path, self.holder = path, holder


def describe(holder: dict[str, Any]) -> str:
    """``version 3, pid 123 on host h, since 2026-11-29T03:00:00Z`` (what is known)."""
    parts = [f"version {holder['version']}" if holder.get("version") else "",
             f"pid {holder['pid']} on host {holder.get('host', '?')}" if holder.get("pid")
             else "", f"since {holder['since']}" if holder.get("since") else ""]
    return ", ".join(part for part in parts if part) or "a run that has not said who it is"


@dataclass
class HeldLock:
    """A lock this run holds; ``release`` removes the file and drops the ``flock``."""

    path: str
    descriptor: int

    def release(self) -> None:
        """Remove the lock file (when it is still this lock's) and drop the ``flock``."""
        if self.descriptor < 0:
            return
        try:
            if _same_file(self.path, self.descriptor):
                os.unlink(self.path)
        except OSError:
            pass
        finally:
            os.close(self.descriptor)
            self.descriptor = -1


def holder_record(version: str, run_id: str) -> dict[str, Any]:
    """What a run writes in a lock it takes."""
    return {"host": os.uname().nodename, "pid": os.getpid(), "version": version,
            "run_id": run_id,
            "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def take_lock(path: str, holder: dict[str, Any], *, wait: float = 0.0,
              clock: Callable[[], float] = time.monotonic,
              sleep: Callable[[float], None] = time.sleep) -> HeldLock | None:
    """Take the lock at ``path`` (see the module docstring); ``None`` where ``flock`` does not
    exist. ``LockHeld`` when another run holds it after ``wait`` seconds; an ``OSError`` when
    the path is a link or not a regular file."""
    if fcntl is None:
        return None
    deadline = clock() + wait
    for _ in range(MAX_REOPENS):
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                             0o644)
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise OSError(f"{path} is not a regular file: it cannot be a lock")
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                found = _holder(descriptor)
                if clock() >= deadline:
                    raise LockHeld(path, found) from None
                os.close(descriptor)
                descriptor = -1
                sleep(POLL_SECONDS)
                continue
            if not _same_file(path, descriptor):  # released and removed while we waited
                continue
            os.ftruncate(descriptor, 0)
            os.pwrite(descriptor, json.dumps(holder, sort_keys=True).encode("utf-8"), 0)
            held, descriptor = HeldLock(path, descriptor), -1
            return held
        finally:
            if descriptor >= 0:
                os.close(descriptor)
    raise LockHeld(path, {})


def _same_file(path: str, descriptor: int) -> bool:
    try:
        named = os.lstat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(descriptor)
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _holder(descriptor: int) -> dict[str, Any]:
    try:
        found = json.loads(os.pread(descriptor, MAX_HOLDER_BYTES, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
