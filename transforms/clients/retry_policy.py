"""The base of every polite HTTP client (Wayback, Wikipedia, search APIs): one session with a
descriptive User-Agent, and one retry policy.

Errors carry a ``kind``, ``retryable`` and ``retry_after``. Rate limiting (the kinds in
``rate_limit_kinds``) pauses ``max(rate_limit_pause, Retry-After)``; other retryable errors back
off exponentially, ``backoff_base * 2**attempt`` plus up to 10% jitter that is deterministic
per URL, capped at ``backoff_max`` and never shorter than Retry-After. Every outcome is
counted in ``stats`` (thread-safe).
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Iterable, Iterator
from email.utils import parsedate_to_datetime

MAX_RETRY_AFTER = 3600.0


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
                           stat_keys: Iterable[str]) -> None:
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.rate_limit_pause = rate_limit_pause
        self.rate_limit_kinds = frozenset(rate_limit_kinds)
        self._stats_lock = threading.Lock()
        self.stats: dict[str, int] = dict.fromkeys(stat_keys, 0)

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

    def _retry_delay(self, err, attempt: int, url: str) -> float:
        """Long pause when rate limited, else exponential backoff (at least Retry-After)."""
        retry_after = err.retry_after or 0.0
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


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date), capped at one hour."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
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
