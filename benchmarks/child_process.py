"""How a benchmark measures in a process of its own (so each peak RSS is that run's alone):
the parent runs ``python <benchmark> --child ...`` and reads the one ``RESULT <json>`` line
the child prints with ``report``; the child measures with ``peak_rss_mb``, ``rss_split_mb``,
``timed`` and ``Timed``."""

from __future__ import annotations

import json
import resource
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

PREFIX = "RESULT "


def report(result: Any) -> None:
    """Print the child's result for ``run_child``."""
    print(PREFIX + json.dumps(result))


def run_child(command: list[str], what: str, cwd: Path) -> Any:
    """Run ``command`` and return the result its ``report`` printed; ``RuntimeError`` with
    the end of its stderr when it printed none."""
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False)
    for line in done.stdout.splitlines():
        if line.startswith(PREFIX):
            return json.loads(line[len(PREFIX):])
    raise RuntimeError(f"{what} failed:\n{done.stderr[-3000:]}")


def peak_rss_mb() -> float:
    """This process's own peak RSS in MB: ``VmHWM`` of /proc/self/status. ``ru_maxrss`` is
    the fallback only: on Linux it keeps the high-water mark across ``fork``/``exec``, so a
    child of ``run_child`` would report at least the RSS its parent had."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_split_mb() -> dict[str, float]:
    """Resident memory now, in MB: ``RssAnon`` (the process's own) and ``RssFile`` (mapped
    files, which the kernel shares between processes and drops under pressure)."""
    out = {}
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(("RssAnon:", "RssFile:")):
                    out[line.split(":")[0]] = int(line.split()[1]) / 1024
    except OSError:
        pass
    return out


def timed(run: Callable[[Any], Any], items: list) -> dict[str, float]:
    """``run`` over ``items``: items/s of wall time (``qps``) and of CPU time
    (``qps_per_cpu``), and both times."""
    started, cpu_started = time.perf_counter(), time.process_time()
    for item in items:
        run(item)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return {"qps": len(items) / seconds, "qps_per_cpu": len(items) / max(cpu, 1e-9),
            "seconds": seconds, "cpu_seconds": cpu}


class Timed:
    """An iterator that adds the wall and CPU time spent producing its items to ``seconds``
    and ``cpu_seconds`` (so generating a corpus can be taken out of a build's time)."""

    def __init__(self, items: Iterable[Any]) -> None:
        self._items = iter(items)
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    def __iter__(self) -> Timed:
        return self

    def __next__(self) -> Any:
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            return next(self._items)
        finally:
            self.seconds += time.perf_counter() - started
            self.cpu_seconds += time.process_time() - cpu_started
