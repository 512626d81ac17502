import logging
import math

import apache_beam as beam
import pytest
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.testing.util import assert_that, equal_to

from transforms.core import progress as progress_module
from transforms.core.progress import (
    ENV_EVERY,
    NAMESPACE,
    Progress,
    ShowProgress,
    default_every_s,
    format_duration,
    progress_line,
)


@pytest.fixture(autouse=True)
def no_run_choice(monkeypatch):
    monkeypatch.delenv(ENV_EVERY, raising=False)


def test_progress_logs_count_and_rate(caplog):
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    progress = Progress("pages parsed", every_s=0.0)
    progress.tick()
    progress.tick(4)
    assert progress.count == 5
    assert [r.getMessage().split(", ")[0] for r in caplog.records] == [
        "progress: pages parsed: 1", "progress: pages parsed: 5"]


def test_progress_is_quiet_between_intervals(caplog):
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    progress = Progress("pages parsed", every_s=3600)
    for _ in range(100):
        progress.tick()
    assert not caplog.records


def test_the_runs_choice_overrides_the_stage_default(caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    monkeypatch.setenv(ENV_EVERY, "0")
    progress = Progress("pages parsed", every_s=0.001)
    assert progress.every_s == math.inf
    for _ in range(10):
        progress.tick()
    assert not caplog.records  # 0 = no lines; the counter still counts
    monkeypatch.setenv(ENV_EVERY, "3")
    assert Progress("x", every_s=10).every_s == 3


def test_default_interval_is_short_on_a_terminal_and_long_elsewhere(monkeypatch):
    class Tty:
        def isatty(self):
            return True

    class File:
        def isatty(self):
            return False

    assert default_every_s(Tty()) == progress_module.TTY_EVERY_S
    assert default_every_s(File()) == progress_module.QUIET_EVERY_S
    monkeypatch.setenv(ENV_EVERY, "7")
    assert default_every_s(Tty()) == 7


def test_line_gives_percentage_and_eta_when_the_total_is_known():
    assert progress_line("pages", 250, 10.0, total=1000) == (
        "pages: 250 of 1,000 (25%), 25.0/s, ETA 30 s")
    assert progress_line("pages", 1000, 10.0, total=1000) == "pages: 1,000 of 1,000 (100%), 100.0/s"
    assert progress_line("queries", 12_345, 2.0) == "queries: 12,345, 6,172.5/s"
    assert format_duration(185) == "3 min 05 s"
    assert format_duration(7_620) == "2 h 07 min"


def test_clock_starts_at_the_first_item(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: now[0])
    progress = Progress("pages", every_s=3600, total=40)
    now[0] = 200.0  # earlier stages took 100 s: not counted
    progress.tick()
    now[0] = 204.0
    for _ in range(9):
        progress.tick()
    assert progress.line() == "pages: 10 of 40 (25%), 2.5/s, ETA 12 s"


def test_show_progress_passes_elements_through_and_counts_them_in_process(caplog):
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    pipeline = beam.Pipeline(runner="FnApiRunner")
    out = (pipeline | beam.Create(list(range(25)))
           | ShowProgress("items read", total=25, every_s=0.0))
    assert_that(out, equal_to(list(range(25))))
    result = pipeline.run()
    result.wait_until_finish()
    counters = result.metrics().query(MetricsFilter().with_namespace(NAMESPACE))["counters"]
    assert {c.key.metric.name: c.committed for c in counters} == {"items_read": 25}
    totals = result.metrics().query(MetricsFilter().with_namespace(NAMESPACE))["distributions"]
    assert {d.key.metric.name: d.committed.max for d in totals} == {"items_read.total": 25}
    lines = [r.getMessage() for r in caplog.records]
    assert "progress: items read: 25 of 25 (100%)" in lines[-1]
    assert any("ETA" in line for line in lines)
