"""``make test``'s scheduler (``tests/schedule.py``): whole files, ``ONE_WORKER`` directories
as one, the longest first, driven here as xdist's controller drives it, with two fake
workers; and the measurements it reads, written from a run."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from tests.schedule import ONE_WORKER, SecondsRecorder, longest, make_scheduler, merged

STUDIO = ONE_WORKER[0]


class FakeWorker:
    """What the scheduler calls on an xdist worker; what it is sent goes to ``log`` too, as
    (worker, the test files of the hand-out), in the order of the hand-outs."""

    def __init__(self, name: str, collection: list[str],
                 log: list[tuple[str, list[str]]]) -> None:
        self.name, self.collection, self.log = name, collection, log
        self.gateway = SimpleNamespace(id=name)
        self.queue: list[int] = []
        self.run = 0
        self.shutting_down = False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.queue += indexes
        self.log.append((self.name, sorted({self.collection[i].split("::")[0]
                                            for i in indexes})))

    def shutdown(self) -> None:
        self.shutting_down = True


def hand_outs(collection: list[str], seconds: dict[str, float]) -> list[tuple[str, list[str]]]:
    """(worker, the test files of one hand-out) in the order two workers get them from the
    scheduler, as xdist's controller drives it, each test taking the same time."""
    config = SimpleNamespace(getvalue=lambda name: ["2*popen"] if name == "tx" else None,
                             option=SimpleNamespace(loadscopereorder=False))
    quiet = SimpleNamespace(loadscopesched=lambda *args: None,
                            loadfilesched=lambda *args: None)
    scheduler = make_scheduler(config, quiet, seconds)
    log: list[tuple[str, list[str]]] = []
    workers = [FakeWorker(name, collection, log) for name in ("gw0", "gw1")]
    for worker in workers:
        scheduler.add_node(worker)
    for worker in workers:
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    while busy := [worker for worker in workers if worker.run < len(worker.queue)]:
        worker = min(busy, key=lambda w: w.run)
        scheduler.mark_test_complete(worker, worker.queue[worker.run])
        worker.run += 1
    assert not scheduler.workqueue and all(worker.shutting_down for worker in workers)
    return log


COLLECTION = [
    "tests/a/test_short.py::test_one",
    "tests/a/test_long.py::test_one",
    f"{STUDIO}test_exports.py::test_one",
    f"{STUDIO}test_exports.py::test_two",
    "tests/b/test_medium.py::test_one",
    "tests/b/test_medium.py::test_two",
    "tests/b/test_medium.py::test_three",
    f"{STUDIO}test_pages.py::test_one",
]
SECONDS = {"tests/a/test_short.py": 1.0, "tests/a/test_long.py": 300.0, STUDIO: 120.0,
           "tests/b/test_medium.py": 40.0}


def test_the_longest_files_are_handed_out_first() -> None:
    assert hand_outs(COLLECTION, SECONDS) == [
        ("gw0", ["tests/a/test_long.py"]),
        ("gw1", [f"{STUDIO}test_exports.py", f"{STUDIO}test_pages.py"]),  # as one file
        ("gw0", ["tests/b/test_medium.py"]),
        ("gw1", ["tests/a/test_short.py"])]


def test_a_file_not_measured_yet_counts_as_the_longest() -> None:
    collection = [*COLLECTION, "tests/c/test_new.py::test_one"]
    assert hand_outs(collection, SECONDS)[0] == ("gw0", ["tests/c/test_new.py"])
    assert longest(["x.py", "y.py", "z.py"], {"x.py": 2.0, "y.py": 9.0, "z.py": 9.0}) == "y.py"


def test_the_measurements_merge_into_the_table(tmp_path: Path) -> None:
    for name in ("kept.py", "measured.py"):
        (tmp_path / name).write_text("")
    before = {"kept.py": 5.0, "measured.py": 1.0, "deleted.py": 3.0}
    assert merged({"measured.py": 2.345}, before, tmp_path) == {"kept.py": 5.0,
                                                               "measured.py": 2.3}


def test_a_run_writes_each_unit_s_seconds_from_the_controller_only(tmp_path: Path) -> None:
    table = tmp_path / "test_seconds.json"
    recorder = SecondsRecorder(table, tmp_path)
    (tmp_path / STUDIO).mkdir(parents=True)
    (tmp_path / "tests" / "filters").mkdir()
    (tmp_path / "tests" / "filters" / "test_x.py").touch()
    for nodeid, duration in [("tests/filters/test_x.py::test_a", 1.25),
                             ("tests/filters/test_x.py::test_b", 0.5),
                             (f"{STUDIO}test_exports.py::test_one", 30.0)]:
        recorder.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, duration=duration))
    worker = SimpleNamespace(config=SimpleNamespace(workerinput={"workerid": "gw0"}))
    recorder.pytest_sessionfinish(worker)
    assert not table.exists()
    recorder.pytest_sessionfinish(SimpleNamespace(config=SimpleNamespace()))
    written = json.loads(table.read_text())
    assert written["tests/filters/test_x.py"] == 1.8 and written[STUDIO] == 30.0
