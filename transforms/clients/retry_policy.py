"""The base of every polite HTTP client (Wayback, Wikipedia, search APIs): one session with a
descriptive User-Agent, and one retry policy.

Errors carry a ``kind``, ``retryable`` and ``retry_after``. Rate limiting (the kinds in
``rate_limit_kinds``) pauses ``max(rate_limit_pause, Retry-After)``; other retryable errors back
off exponentially, ``backoff_base * 2**attempt`` plus up to 10% jitter that is deterministic
per URL, capped at ``backoff_max`` and never shorter than Retry-After. Retry-After is obeyed
up to ``max_retry_after`` seconds (a server asking for an hour gets that cap).
:meth:`PoliteClientBase._plan_retry` also keeps the wait budgets: the seconds one request
may wait between its attempts (``request_wait_budget``) and the seconds the client may wait
in all (``run_wait_budget``; None: no budget); a retry that would overrun one is not made.
Every outcome and every wait (retry pauses and rate-limiter slots) is counted in ``stats``
(thread-safe).
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from email.utils import parsedate_to_datetime

MAX_RETRY_AFTER = 3600.0
REQUEST_BUDGET = "request"
RUN_BUDGET = "run"
WAIT_STAT_KEYS: tuple[str, ...] = ("retry_waits", "retry_wait_seconds", "throttle_wait_seconds")


class PoliteClientBase:
    """Base: the client calls ``_open_session`` and ``_init_retry_policy`` in ``__init__``."""

    def _open_session(self, user_agent: str, accept_encoding: str) -> None:
        import requests

        self._session = requests.Session()
        self._session.headers.update({"User-Agent": user_agent,
                                      "Accept-Encoding": accept_encoding})

    def close(self) -> None:
        """Close the underlying HTTP session."""
        self._session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _init_retry_policy(self, *, max_retries: int, backoff_base: float, backoff_max: float,
                           rate_limit_pause: float, rate_limit_kinds: Iterable[str],
                           stat_keys: Iterable[str], max_retry_after: float = MAX_RETRY_AFTER,
                           request_wait_budget: float | None = None,
                           run_wait_budget: float | None = None) -> None:
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.rate_limit_pause = rate_limit_pause
        self.rate_limit_kinds = frozenset(rate_limit_kinds)
        self.max_retry_after = max_retry_after
        self.request_wait_budget = request_wait_budget
        self.run_wait_budget = run_wait_budget
        self._stats_lock = threading.Lock()
        self.stats: dict[str, int] = dict.fromkeys(stat_keys, 0)
        self._waited = {"retry_wait_seconds": 0.0, "throttle_wait_seconds": 0.0}

    def _should_retry(self, err, attempt: int) -> bool:
        """Record the failure in ``stats`` and decide whether to try again."""
        self._count(f"error_{err.kind}")
        if err.kind in self.rate_limit_kinds:
            self._count("rate_limited")
        if not err.retryable or attempt >= self.max_retries:
            self._count("failures")
            return False
        self._count("retries")
        return True

    def _plan_retry(self, err, attempt: int, url: str, waited: float) -> tuple[float | None, str]:
        """Record the failure of attempt ``attempt`` of a request that has waited ``waited``
        seconds so far, and plan the next: ``(seconds to wait, "")`` to retry; ``(None, "")``
        to give up (a final failure, or the retries are used up); ``(seconds, budget)`` to
        give up because waiting those seconds would overrun ``budget``
        (:data:`REQUEST_BUDGET` or :data:`RUN_BUDGET`). A wait planned is counted
        (``retry_waits``, ``retry_wait_seconds``)."""
        self._count(f"error_{err.kind}")
        if err.kind in self.rate_limit_kinds:
            self._count("rate_limited")
        if not err.retryable or attempt >= self.max_retries:
            self._count("failures")
            return None, ""
        delay = self._retry_delay(err, attempt, url)
        with self._stats_lock:
            budget = self._overrun(delay, waited)
            if not budget:
                self._add_wait("retry_wait_seconds", delay)
                self.stats["retry_waits"] = self.stats.get("retry_waits", 0) + 1
                self.stats["retries"] = self.stats.get("retries", 0) + 1
        if budget:
            self._count("failures")
        return delay, budget

    def _overrun(self, delay: float, waited: float) -> str:
        """The budget waiting ``delay`` more would overrun, "" when none (lock held)."""
        if self.request_wait_budget is not None and waited + delay > self.request_wait_budget:
            return REQUEST_BUDGET
        run_waited = self._waited["retry_wait_seconds"]
        if self.run_wait_budget is not None and run_waited + delay > self.run_wait_budget:
            return RUN_BUDGET
        return ""

    def _throttled(self, seconds: float) -> float:
        """Count ``seconds`` spent waiting for a rate-limiter slot; returns them."""
        if seconds > 0:
            with self._stats_lock:
                self._add_wait("throttle_wait_seconds", seconds)
        return seconds

    def _add_wait(self, key: str, seconds: float) -> None:
        """Add to a wait total; ``stats[key]`` is the total in whole seconds, so the
        differences a stage tallies add up to it (lock held)."""
        self._waited[key] += seconds
        self.stats[key] = round(self._waited[key])

    def _retry_delay(self, err, attempt: int, url: str) -> float:
        """Long pause when rate limited, else exponential backoff (at least Retry-After, up
        to ``max_retry_after``)."""
        retry_after = min(err.retry_after or 0.0, self.max_retry_after)
        if err.kind in self.rate_limit_kinds:
            return max(self.rate_limit_pause, retry_after)
        return max(self._backoff(attempt, url), retry_after)

    def _backoff(self, attempt: int, url: str) -> float:
        """``backoff_base * 2**attempt`` plus up to 10% jitter, capped at ``backoff_max``."""
        delay = self.backoff_base * (2**attempt)
        jitter = (zlib.crc32(f"{url}#{attempt}".encode()) % 1000) / 1000.0 * 0.1 * delay
        return min(self.backoff_max, delay + jitter)

    def _count(self, key: str, amount: int = 1) -> None:
        with self._stats_lock:
            self.stats[key] = self.stats.get(key, 0) + amount


def parse_retry_after(value: str | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date, counted from ``now``:
    wall-clock seconds, injectable for tests), capped at one hour."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - now()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """All exceptions reachable through causes, contexts, urllib3 reasons and args."""
    seen: set[int] = set()
    stack = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        nested = [current.__cause__, current.__context__, getattr(current, "reason", None)]
        nested += list(current.args)
        stack.extend(item for item in nested if isinstance(item, BaseException))
