"""Progress of long runs: Beam counters, and a rate-limited log line per worker on stderr.

Every count goes to a Beam counter in the ``qa_datasets.progress`` namespace, named after
what is counted with underscores for spaces (``pages_parsed``, ``cdx_items``,
``fetch_items``, ...); with a known total, the distribution ``<name>.total`` holds it (its
max). The runner sums counters over workers: on
Dataflow they are the job's custom counters (job page, "Job metrics" tab, "Custom
counters"); locally ``PipelineResult.metrics()``.

The log line is per worker (a ``DoFn`` instance: nothing is shared between processes or
workers) and at most one every ``every_s`` seconds, never per record::

    progress: pages parsed: 4,210 of 15,000 (28%), 421.0/s, ETA 26 s [worker 5120.1]

The interval is the stage's own default unless the run chose one:
``QA_DATASETS_PROGRESS_EVERY`` (seconds, ``0`` = no lines), which ``--progress`` sets in the
launching process; worker processes started by it inherit it. Without it, a line every
``TTY_EVERY_S`` seconds when stderr is a terminal and every ``QUIET_EVERY_S`` otherwise (CI,
log files, Dataflow workers). With several workers each reports its own share: counts and
rates are per worker and the ETA assumes this worker does the rest, so it is an upper bound;
``[worker PID.N]`` names the counter (process id, instance in it), so a reader can add the
workers' latest counts up into the job's (``benchmarks/scale_ladder/watch.py`` does).
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import sys
import time

import apache_beam as beam
from apache_beam.metrics import Metrics

from transforms.core.progress_interval import ENV_EVERY, QUIET_EVERY_S, TTY_EVERY_S

NAMESPACE = "qa_datasets.progress"
LOG = logging.getLogger("qa_datasets.progress")
_INSTANCES = itertools.count(1)


def chosen_every_s() -> float | None:
    """The interval the run chose with ``--progress`` (``QA_DATASETS_PROGRESS_EVERY``; ``0``
    means no lines: infinity), or None. An unreadable value counts as not chosen."""
    value = os.environ.get(ENV_EVERY, "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds > 0 else math.inf


def default_every_s(stream=None) -> float:
    """Seconds between lines: the run's choice, else short on a terminal, long elsewhere."""
    chosen = chosen_every_s()
    if chosen is not None:
        return chosen
    stream = sys.stderr if stream is None else stream
    try:
        interactive = stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        interactive = False
    return TTY_EVERY_S if interactive else QUIET_EVERY_S


def counter_name(what: str) -> str:
    """``pages parsed`` -> ``pages_parsed``: the Beam counter's name."""
    return "_".join(what.split())


def format_duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``2 h 07 min``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def progress_line(what: str, count: int, seconds: float, total: int | None = None) -> str:
    """``<what>: <count>[ of <total> (p%)], <rate>/s[, ETA <duration>]``."""
    rate = count / max(seconds, 1e-9)
    text = f"{what}: {count:,}"
    if total:
        text += f" of {total:,} ({100 * count / total:.0f}%)"
    text += f", {rate:,.1f}/s"
    if total and count < total and rate > 0:
        text += f", ETA {format_duration((total - count) / rate)}"
    return text


class Progress:
    """Count items on one worker: a Beam counter, and a log line (count, rate and, with a
    known ``total``, percentage and ETA) at most every ``every_s`` seconds.

    ``every_s`` is the stage's default (``0``: a line per item, ``math.inf``: none); a run's
    ``--progress`` choice overrides it, and ``None`` means ``default_every_s()``. The clock
    starts at the first item (or at ``start()``), so time spent in earlier stages does not
    dilute the rate.
    Create it in ``DoFn.setup`` (or lazily): it is per worker by design.
    """

    def __init__(self, what: str, every_s: float | None = 10.0, total: int | None = None):
        self.what = what
        chosen = chosen_every_s()
        self.every_s = chosen if chosen is not None else (
            default_every_s() if every_s is None else every_s)
        self.total = total or None
        self.count = 0
        self._counter = Metrics.counter(NAMESPACE, counter_name(what))
        self._started: float | None = None
        self._last = 0.0
        self._worker: str | None = None

    def start(self) -> None:
        """Start the clock now, if it has not started: a stage whose items are slow (a
        network request each) calls it before the first one, so that the line after the
        first item is due ``every_s`` after its start, not after its end."""
        if self._started is None:
            self._started = self._last = time.monotonic()

    def tick(self, n: int = 1) -> None:
        now = time.monotonic()
        if self._started is None:
            self._started = self._last = now
        self.count += n
        self._counter.inc(n)
        if now - self._last >= self.every_s:
            self._last = now
            LOG.info("progress: %s [worker %s]", self.line(now), self.worker())

    def worker(self) -> str:
        """Which counter the lines are: ``PID.N``, the process counting and this instance in
        it (a process may hold several); set at the first line, in the process that counts."""
        if self._worker is None:
            self._worker = f"{os.getpid()}.{next(_INSTANCES)}"
        return self._worker

    def line(self, now: float | None = None) -> str:
        """The current progress line (without the ``progress:`` prefix)."""
        now = time.monotonic() if now is None else now
        seconds = now - self._started if self._started is not None else 0.0
        return progress_line(self.what, self.count, seconds, self.total)


class CountProgressFn(beam.DoFn):
    """Pass every element through unchanged, counting it in ``Progress``."""

    def __init__(self, what: str, total: int | None = None, every_s: float | None = None):
        self.what = what
        self.total = total
        # Resolved in the launching process, where --progress and the terminal are known;
        # a worker with QA_DATASETS_PROGRESS_EVERY set (inherited) still follows it.
        self.every_s = default_every_s() if every_s is None else every_s

    def setup(self):
        self._progress = Progress(self.what, self.every_s, self.total)

    def start_bundle(self):
        # The total is reported once per bundle at most, as a distribution's max, so the
        # runner's sum over workers does not multiply it.
        if self.total:
            Metrics.distribution(NAMESPACE, f"{counter_name(self.what)}.total").update(
                self.total)

    def process(self, element):
        self._progress.tick()
        yield element


class ShowProgress(beam.PTransform):
    """``pcoll | ShowProgress("pages", total=n)``: the same PCollection, its elements
    counted in the ``qa_datasets.progress`` counter ``what`` and logged per worker."""

    def __init__(self, what: str, total: int | None = None, every_s: float | None = None):
        super().__init__()
        self.what, self.total, self.every_s = what, total, every_s

    def expand(self, pcoll):
        return pcoll | beam.ParDo(CountProgressFn(self.what, self.total, self.every_s))
