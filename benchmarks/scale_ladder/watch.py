"""Run one rung in a child process and watch it: a job-wide progress bar with ETA, and the
memory of the whole process tree (the child and the runner's worker processes).

Progress: every pipeline logs ``progress: <what>: <count>[ of <total> (p%)], <rate>/s ...
[worker PID.N]`` per worker (``transforms.core.progress``); the bar adds up each worker's
latest count and rate for the rung's stage, so with several workers its count, percentage
and ETA are the job's, not one worker's share. The ETA is ``(total - count) / rate``; once
the stage has seen every item the bar says so and the rung finishes its other stages.

Memory: ``/proc`` of every process in the tree, sampled every ``SAMPLE_S`` seconds. The
figure is the peak of ``sum(RssAnon + RssShmem) + max(RssFile)``: each process's own pages
once, and file pages (the mapped search index, shared by every worker through the kernel's
page cache) once, not once per process; ``sum(VmRSS)``'s peak, which counts shared pages
per process, is kept too.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from transforms.core.interrupt import descendants
from transforms.core.progress import format_duration

SAMPLE_S = 0.5
RESULT = "RESULT "
LINE = re.compile(r"progress: (?P<what>[^:]+): (?P<count>[\d,]+)(?: of [\d,]+ \(\d+%\))?, "
                  r"(?P<rate>[\d,.]+)/s.*\[worker (?P<worker>[^\]]+)\]")
BAR_WIDTH = 30


@dataclass
class JobProgress:
    """The latest (count, rate) of each worker for one stage, and the job's sum."""

    what: str
    total: int
    workers: dict[str, tuple[int, float]] = field(default_factory=dict)
    done: bool = False

    def update(self, line: str) -> bool:
        """Take one log line; True when it was a line of this stage."""
        match = LINE.search(line)
        if not match or match["what"] != self.what:
            return False
        self.workers[match["worker"]] = (int(match["count"].replace(",", "")),
                                         float(match["rate"].replace(",", "")))
        return True

    def finish(self) -> None:
        """The job ended well: every item was seen (lines are rate-limited, so the last one
        may be older than the stage's end)."""
        self.done = True

    @property
    def count(self) -> int:
        return sum(count for count, _ in self.workers.values())

    @property
    def rate(self) -> float:
        return sum(rate for _, rate in self.workers.values())

    def bar(self, elapsed: float, rss_gb: float) -> str:
        """``[#####-----] 42% 4,210/10,000 pages parsed, 421/s, ETA 13 s (2 workers)``."""
        count = min(self.count, self.total)
        share = 1.0 if self.done else count / self.total if self.total else 0.0
        filled = int(round(BAR_WIDTH * share))
        text = f"[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {100 * share:3.0f}% "
        if self.done:
            return text + f"done, elapsed {format_duration(elapsed)}, RSS {rss_gb:.2f} GB"
        text += f"{count:,}/{self.total:,} {self.what}"
        if not self.workers:
            text += ", starting"
        elif count >= self.total:
            text += ", all seen; finishing the other stages"
        else:
            rate = self.rate
            eta = format_duration((self.total - count) / rate) if rate > 0 else "?"
            text += f", {rate:,.0f}/s, ETA {eta}"
        workers = len(self.workers)
        return (text + f" ({workers} worker{'s' * (workers != 1)}), elapsed "
                f"{format_duration(elapsed)}, RSS {rss_gb:.2f} GB")


def _status_kb(pid: int) -> dict[str, int]:
    out = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith(("VmRSS:", "RssAnon:", "RssFile:", "RssShmem:")):
                    out[line.split(":")[0]] = int(line.split()[1])
    except OSError:
        pass
    return out


def tree_memory_gb(root: int) -> tuple[float, float]:
    """(own pages once + shared file pages once, plain sum of VmRSS) of ``root``'s tree, GB."""
    status = [_status_kb(pid) for pid in [root, *descendants(root)]]
    own = sum(s.get("RssAnon", 0) + s.get("RssShmem", 0) for s in status)
    files = max((s.get("RssFile", 0) for s in status), default=0)
    return (own + files) / 2**20, sum(s.get("VmRSS", 0) for s in status) / 2**20


@dataclass
class RungResult:
    """What a rung's child reported, with the watcher's figures."""

    returncode: int
    wall_seconds: float
    peak_gb: float
    peak_sum_gb: float
    report: dict | None
    tail: list[str]

    @property
    def killed(self) -> bool:
        """Ended by SIGKILL: what the kernel's out-of-memory killer sends."""
        return self.returncode in (-9, 137)


def run_rung(command: list[str], stage: str, total: int, out: TextIO,
             bar_every_s: float, cwd: Path) -> RungResult:
    """Run ``command``; draw the bar on ``out`` (redrawn in place on a terminal, else a line
    every ``bar_every_s``); return the child's ``RESULT`` line and the memory peaks."""
    progress = JobProgress(stage, total)
    tail: list[str] = []
    started = time.monotonic()
    child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, errors="replace")
    report: list[dict] = []

    def read_stderr() -> None:
        for line in child.stderr:
            if not progress.update(line):
                tail.append(line.rstrip("\n"))
                del tail[:-40]

    def read_stdout() -> None:
        for line in child.stdout:
            if line.startswith(RESULT):
                report.append(json.loads(line[len(RESULT):]))

    readers = [threading.Thread(target=fn, daemon=True) for fn in (read_stderr, read_stdout)]
    for reader in readers:
        reader.start()
    tty = out.isatty()
    peak = peak_sum = now_gb = 0.0
    last_bar = 0.0
    while child.poll() is None:
        now_gb, plain = tree_memory_gb(child.pid)
        peak, peak_sum = max(peak, now_gb), max(peak_sum, plain)
        elapsed = time.monotonic() - started
        if tty or elapsed - last_bar >= bar_every_s:
            last_bar = elapsed
            out.write(("\r" if tty else "  ") + progress.bar(elapsed, now_gb)
                      + ("" if tty else "\n"))
            out.flush()
        time.sleep(SAMPLE_S)
    for reader in readers:
        reader.join(timeout=10)
    wall = time.monotonic() - started
    if child.returncode == 0:
        progress.finish()
    out.write(("\r" if tty else "  ") + progress.bar(wall, now_gb) + "\n")
    out.flush()
    return RungResult(child.returncode, wall, peak, peak_sum, report[0] if report else None,
                      tail)


def child_command(script: Path, dataset: str, argv: list[str]) -> list[str]:
    """``python <script> --child <dataset> --argv <json>``."""
    return [sys.executable, str(script), "--child", dataset, "--argv", json.dumps(argv)]
