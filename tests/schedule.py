"""How ``make test``'s workers share the suite (``-n 2 --dist loadfile``, hooked in
``tests/conftest.py``): each test file runs whole on one worker, each ``ONE_WORKER`` directory
as if it were one file, and a worker that needs work gets, of the files not started yet, the
one that took longest in a measured run (``SECONDS_FILE``): the long files start first and the
run ends on short ones, instead of one worker finishing a long file while the other idles. A
file not measured yet counts as the longest (it starts early, where its time cannot stretch
the end of the run). ``--write-test-seconds`` rewrites the measurements from the run it
ends."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SECONDS_FILE = PROJECT_ROOT / "tests" / "fixtures" / "test_seconds.json"
WRITE_OPTION = "--write-test-seconds"
# Directories whose test files share a session fixture that cannot be shared between
# processes: with ``--dist loadfile`` (make test) each runs whole on one worker, as one file.
ONE_WORKER = (
    "tests/transforms/annotation/label_studio/",  # one Label Studio server (minutes to start)
)
UNMEASURED = float("inf")


def scope_of(nodeid: str) -> str:
    """The unit a worker runs whole: the ``ONE_WORKER`` directory holding the test ``nodeid``,
    or its file."""
    return next((directory for directory in ONE_WORKER if nodeid.startswith(directory)),
                nodeid.split("::", 1)[0])


def read_seconds(path: Path = SECONDS_FILE) -> dict[str, float]:
    """The measured seconds of each unit (``{}`` before the first measurement)."""
    return json.loads(path.read_text()) if path.exists() else {}


def longest(scopes: Iterable[str], seconds: Mapping[str, float]) -> str:
    """The first of ``scopes`` (in their order) of the most ``seconds``; one not measured
    counts as the longest."""
    return max(scopes, key=lambda scope: seconds.get(scope, UNMEASURED))


def merged(measured: Mapping[str, float], before: Mapping[str, float],
           root: Path = PROJECT_ROOT) -> dict[str, float]:
    """The seconds of ``before`` updated with those ``measured`` (a run of part of the suite
    keeps the rest), without units that no longer exist under ``root``; sorted, rounded."""
    seconds = {**before, **measured}
    return {scope: round(value, 1) for scope, value in sorted(seconds.items())
            if (root / scope).exists()}


def make_scheduler(config: pytest.Config, log: Any, seconds: Mapping[str, float]) -> Any:
    """xdist's ``--dist loadfile`` scheduler with ``ONE_WORKER`` directories as one file and
    the longest unit first (by ``seconds``)."""
    from xdist.scheduler import LoadFileScheduling

    class LongestFirstScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            self.workqueue.move_to_end(longest(self.workqueue, seconds), last=False)
            super()._assign_work_unit(node)

    return LongestFirstScheduling(config, log)


class SecondsRecorder:
    """A plugin that sums each unit's test durations (setup, call and teardown) over the run
    and merges them into ``path`` at its end: in the process that reports (xdist's
    controller, or pytest's only process), not in the workers."""

    def __init__(self, path: Path = SECONDS_FILE, root: Path = PROJECT_ROOT) -> None:
        self.path, self.root = path, root
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[scope_of(report.nodeid)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput") or not self.seconds:
            return
        table = merged(self.seconds, read_seconds(self.path), self.root)
        self.path.write_text(json.dumps(table, indent=1) + "\n")
