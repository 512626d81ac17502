"""transforms.clients.rate_limit.RateLimiter on a fake clock and across threads."""

from __future__ import annotations

import threading

from transforms.clients.rate_limit import RateLimiter


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_rate_limiter_spaces_calls_with_fake_clock() -> None:
    clock = FakeClock()
    limiter = RateLimiter(20, clock=clock.time, sleep=clock.sleep)  # one call every 3 s
    starts = []
    for pause in (0.0, 0.0, 5.0, 1.0):
        clock.now += pause
        limiter.acquire()
        starts.append(clock.now)
    assert clock.sleeps == [3.0, 2.0]  # the 5 s idle gap already covered the third call
    assert starts == [100.0, 103.0, 108.0, 111.0]


def test_rate_limiter_is_thread_safe() -> None:
    clock = FakeClock()
    recorded: list[float] = []
    lock = threading.Lock()

    def sleep(seconds: float) -> None:
        with lock:
            recorded.append(seconds)

    limiter = RateLimiter(60, clock=clock.time, sleep=sleep)
    threads = [threading.Thread(target=limiter.acquire) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(recorded) == [float(i) for i in range(1, 10)]  # every caller got its own slot


def test_unlimited_rate_limiter_never_sleeps() -> None:
    clock = FakeClock()
    limiter = RateLimiter(0, clock=clock.time, sleep=clock.sleep)
    assert [limiter.acquire() for _ in range(5)] == [0.0] * 5 and clock.sleeps == []
