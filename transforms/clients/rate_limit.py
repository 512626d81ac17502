"""A thread-safe minimum-interval rate limiter shared by every polite client.

The Wayback client keeps one limiter per endpoint (CDX and ``id_`` fetches) and
:class:`transforms.clients.http_json.PoliteHttp` one per client; each limiter spaces the calls
of all threads of a worker ``60 / per_minute`` seconds apart. The clock and the sleep function
are injectable so tests run on a fake clock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class RateLimiter:
    """Enforces a minimum interval between calls; thread-safe.

    Each caller reserves the next free slot under a lock and sleeps outside it, so concurrent
    callers are spaced ``60 / per_minute`` seconds apart. ``per_minute <= 0`` disables limiting.
    """

    def __init__(
        self,
        per_minute: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Any] = time.sleep,
    ) -> None:
        self.interval = 60.0 / per_minute if per_minute > 0 else 0.0
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next_slot: float | None = None

    def acquire(self) -> float:
        """Wait for the next slot; returns the number of seconds waited."""
        if self.interval <= 0:
            return 0.0
        with self._lock:
            now = self._clock()
            slot = now if self._next_slot is None else max(now, self._next_slot)
            self._next_slot = slot + self.interval
        wait = slot - now
        if wait > 0:
            self._sleep(wait)
        return wait
