"""Per-worker progress lines for long runs (a log line every few seconds, never per record)."""

from __future__ import annotations

import logging
import time

LOG = logging.getLogger("qa_datasets.progress")


class Progress:
    """Count items on one worker and log the count and rate at most every ``every_s`` s."""

    def __init__(self, what: str, every_s: float = 10.0):
        self.what = what
        self.every_s = every_s
        self.count = 0
        self._started = self._last = time.monotonic()

    def tick(self, n: int = 1) -> None:
        self.count += n
        now = time.monotonic()
        if now - self._last >= self.every_s:
            rate = self.count / max(now - self._started, 1e-9)
            LOG.info("%s: %d on this worker (%.1f/s)", self.what, self.count, rate)
            self._last = now
