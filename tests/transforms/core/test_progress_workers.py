"""Progress lines name their worker, so the workers' lines add up to the job's progress: at
100,000 pages split over two workers the sum reaches the total and the ETA is the job's
(issue 39 §2; each worker's own line stays its share, its ETA an upper bound)."""

from __future__ import annotations

import importlib.util
import logging
import re
import sys

import pytest

from tests.conftest import PROJECT_ROOT
from transforms.core import progress as progress_module
from transforms.core.progress import Progress


def watch_module():
    path = PROJECT_ROOT / "benchmarks" / "scale_ladder" / "watch.py"
    spec = importlib.util.spec_from_file_location("scale_ladder_watch", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_lines_name_their_worker(caplog, monkeypatch) -> None:
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    first, second = Progress("pages parsed", 0), Progress("pages parsed", 0)
    first.tick()
    second.tick()
    first.tick()
    tags = [re.search(r"\[worker (\d+)\.(\d+)\]$", r.getMessage()) for r in caplog.records]
    assert all(tags), [r.getMessage() for r in caplog.records]
    assert tags[0].group(0) == tags[2].group(0) != tags[1].group(0)
    assert {t.group(1) for t in tags} == {str(__import__("os").getpid())}


@pytest.mark.parametrize("total", [1_000, 100_000])
def test_two_workers_lines_add_up_to_the_job(caplog, monkeypatch, total: int) -> None:
    clock = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", clock)
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    every = 2.0 * total / 100_000  # a line every 2 s at 100,000 pages (about 40 s of work)
    fast, slow = (Progress("pages parsed", every, total=total) for _ in range(2))
    job = watch_module().JobProgress("pages parsed", total)
    seen = 0
    for step in range(1, total // 2 + 1):  # the fast worker does 3 items while the slow one
        clock.now += 0.001  # does 2: 60% and 40% of the pages, at 3,000/s and 2,000/s
        fast.tick(3) if step % 2 else slow.tick(2)
        for record in caplog.records[seen:]:
            assert job.update(record.getMessage())
        seen = len(caplog.records)
        if fast.count + slow.count >= total:
            break
    assert len(job.workers) == 2
    assert total - (3000 + 2000) * every <= job.count <= total  # the last lines' age
    assert job.rate == pytest.approx(2500, rel=0.01)  # the job's rate: both workers
    eta = re.search(r"ETA (\d+) s", job.bar(10.0, 1.0))
    # the job's ETA: at most one interval's work left at both workers' rate, where the fast
    # worker's own line would say (total - its 60%) / 3,000/s, 13 s at 100,000
    assert eta is None or int(eta.group(1)) <= 2 * every + 1
    job.finish()
    assert "100% done" in job.bar(50.0, 1.0)


def test_the_bar_mid_run() -> None:
    job = watch_module().JobProgress("questions searched", 50_000)
    for worker, count, rate in (("11.1", 10_000, 100.0), ("12.1", 15_000, 150.0)):
        job.update(f"INFO:qa_datasets.progress:progress: questions searched: {count:,}, "
                   f"{rate}/s [worker {worker}]")
    assert not job.update("progress: pages asked: 5, 1.0/s [worker 11.2]")  # another stage
    bar = job.bar(100.0, 1.25)
    assert " 50% 25,000/50,000 questions searched, 250/s, ETA 1 min 40 s (2 workers)" in bar
    assert bar.endswith("RSS 1.25 GB")
