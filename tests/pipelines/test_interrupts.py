"""Interrupts at random points of real commands (issue 37 §4): a build, a refresh
(``--previous auto``), an ``annotate import`` and a ``release publish`` to the fake Hub on
127.0.0.1, each run as a subprocess on the bundled samples and sent SIGINT (to its process
group, as a terminal's Ctrl-C; to the command for the multi-process runner) or SIGTERM (to
the command only, as a scheduler) after a seeded random delay. Every run must either have
published completely (the release verifies and ``LATEST`` names it; the Hub has the tag at a
commit holding exactly the release) or published nothing (no version directory, nothing left
under ``.staging``, ``LATEST`` unchanged; no tag and no commit of the release's files), exit
0 or 128 + the signal, print the one interrupted line last on stderr (and nothing else for
the in-memory runner's builds) and no traceback, and leave no process of its group behind.

Delays are drawn up to a little past each command's expected duration (a share of the
uninterrupted build's, measured on this machine first), so the signals land from start-up to
after the publish whatever the machine's speed; what is checked does not depend on where
they land. They count from the moment the command has taken the signals over (its first
call, ``interrupt.stop_before_the_run``): in the tenth of a second before, Python is still
starting and a signal has Python's own effect (SIGINT a ``KeyboardInterrupt``)."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT, TEST_RUNNER
from tests.fakes.hub_server import FakeHub
from transforms.release.commit import read_latest
from transforms.release.verify import verify_release

pytestmark = pytest.mark.signals
SEED = 37
PLAN = (("build", 11), ("build-multi", 3), ("refresh", 12), ("import", 12), ("publish", 12))
PARALLEL = 3  # runs at a time
# Each command's duration as a share of the uninterrupted build's, measured on an idle
# machine: a signal lands anywhere from start-up to just after the publish.
SHARE = {"build": 1.0, "build-multi": 2.5, "refresh": 1.4, "import": 1.5, "publish": 0.9}
REACH = 1.4  # delays are drawn in [0, REACH * the command's expected duration]
STOP_WITHIN = 60.0  # seconds a signalled command may take to stop (a bound, not a speed)
MULTI = ["--runner=DirectRunner", "--direct_running_mode=multi_processing",
         "--direct_num_workers=2"]
# A Ctrl-C that reaches a Beam worker process while its Python is still starting (before the
# sitecustomize that makes it leave SIGINT to the command runs) makes Python print its own
# fatal KeyboardInterrupt error; the multi-process runs get SIGINT as `kill -INT <pid>`
TO_THE_COMMAND = ("build-multi",)
# Commands whose stderr holds only the interrupted line; Beam's worker processes log there
# themselves, and a publish shows the Hub client's upload progress before it
ONE_LINE = ("build", "refresh", "import")
TOKEN = "hf_interrupt_test_token"
INTERRUPTED = "interrupted ({}); nothing was published"
COMPLETED = "interrupted ({}) after the publish completed: "


@dataclass
class Stage:
    """What the runs start from: ``built/releases`` (nlquad 1.0.0, built uninterrupted),
    ``jnq`` (the JNQ dataset directory) and ``votes.jsonl``, the Hub, and each command's
    expected duration."""

    base: Path
    hub: FakeHub
    env: dict[str, str]
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass
class Run:
    scenario: str
    index: int
    signum: int
    delay: float
    cwd: Path
    rc: int | None = None
    stderr: str = ""
    signalled: bool = False
    stop_seconds: float = 0.0
    leftover_processes: bool = False
    outcome: str = ""


def python(*args: str) -> list[str]:
    return [sys.executable, "-m", *args]


def command(stage: Stage, scenario: str, cwd: Path, index: int) -> list[str]:
    """The command of a run of ``scenario`` in ``cwd`` (its inputs copied there first)."""
    base = stage.base
    if scenario in ("build", "build-multi"):
        runner = MULTI if scenario == "build-multi" else [TEST_RUNNER]
        return python("pipelines.build_nlquad", *runner, "--output", "releases")
    if scenario == "refresh":
        shutil.copytree(base / "built" / "releases", cwd / "releases")
        return python("pipelines.build_nlquad", TEST_RUNNER, "--output", "releases",
                      "--version", "1.0.1", "--previous", "auto")
    if scenario == "import":
        return python("pipelines.annotate", "import", TEST_RUNNER, "--dataset", "jnq",
                      "--input", str(base / "jnq"), "--votes",
                      str(base / "votes.jsonl"), "--output", "releases")
    return python("pipelines.release", "publish", str(base / "built" / "releases" / "nlquad"
                                                      / "1.0.0"),
                  "--to", f"hf://datasets/qa-org/run-{index}")


def launch(argv: list[str], cwd: Path, env: dict[str, str], delay: float | None,
           signum: int, run: Run | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in its own process group; after ``delay`` seconds send ``signum`` (SIGINT
    to the group, SIGTERM to the command; to the command only for the multi-process runner,
    see ``TO_THE_COMMAND``). Records on ``run`` what happened."""
    err_path = cwd / ".stderr"
    with open(err_path, "w+", encoding="utf-8") as err:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                   stderr=err, start_new_session=True)
        signalled = False
        if delay is not None:
            _wait_until_handled(process)
        try:
            process.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            if signum == signal.SIGINT and not (run and run.scenario in TO_THE_COMMAND):
                os.killpg(process.pid, signum)
            else:
                process.send_signal(signum)
            signalled = True
        sent = time.monotonic()
        try:
            rc = process.wait(timeout=STOP_WITHIN if signalled else 600)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        stop_seconds = time.monotonic() - sent
        left = _group_left(process.pid)
    stderr = err_path.read_text(encoding="utf-8")
    err_path.unlink()
    if run is not None:
        run.rc, run.stderr, run.signalled = rc, stderr, signalled
        run.stop_seconds, run.leftover_processes = stop_seconds, left
    return subprocess.CompletedProcess(argv, rc, "", stderr)


def _wait_until_handled(process: subprocess.Popen, bound: float = 120.0) -> None:
    """Until the command has taken SIGTERM over (``/proc/<pid>/status``'s ``SigCgt``), its
    first call: before that, Python itself is still starting (site, the editable install's
    finder), and a signal has Python's own effect, which no program can change."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline and process.poll() is None:
        try:
            status = Path(f"/proc/{process.pid}/status").read_text()
        except OSError:
            return
        caught = re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M)
        if caught and int(caught.group(1), 16) >> (signal.SIGTERM - 1) & 1:
            return
        time.sleep(0.005)


def _group_left(pgid: int, grace: float = 20.0) -> bool:
    """Whether a process of the group is still alive ``grace`` seconds after its leader
    ended (then it is killed)."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.1)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def stage(sample_build, tmp_path_factory: pytest.TempPathFactory):
    """The uninterrupted build (the refresh's previous release and what is published), the
    sample JNQ release (the shared build's copy) and its simulated votes, the fake Hub."""
    from pipelines import annotate
    from tests.sample_releases import copy_release

    base = tmp_path_factory.mktemp("interrupts")
    copy_release(sample_build("jnq")[1], base / "jnq_root")
    (base / "jnq").symlink_to(base / "jnq_root" / "jnq")
    assert annotate.main(["simulate", "--release", str(base / "jnq"), "--out",
                          str(base / "votes.jsonl")]) == 0
    with FakeHub(token=TOKEN) as hub:
        env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "HF_ENDPOINT": hub.base_url,
               "HF_TOKEN": TOKEN, "HF_HOME": str(base / "hf_home"), "HF_HUB_DISABLE_XET": "1",
               "NO_PROXY": "127.0.0.1,localhost"}
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
            env.pop(name, None)
        found = Stage(base, hub, env)
        cwd = base / "built"
        cwd.mkdir()
        started = time.monotonic()
        done = launch(command(found, "build", cwd, 0), cwd, env, None, signal.SIGINT)
        assert done.returncode == 0, done.stderr[-3000:]
        seconds = time.monotonic() - started
        found.seconds = {name: share * seconds for name, share in SHARE.items()}
        yield found


def local_outcome(root: Path, dataset: str, version: str, latest_before: str | None) -> str:
    """``published`` (complete: verifies, ``LATEST`` names it) or ``nothing`` (no version
    directory, no partial file, ``LATEST`` unchanged); any other state fails."""
    folder = root / dataset
    staging = folder / ".staging"
    assert not staging.exists() or list(staging.iterdir()) == [], list(staging.iterdir())
    if folder.exists():
        partial = [p.name for p in folder.iterdir()
                   if any(mark in p.name for mark in (".tmp", ".partial", ".replaced"))]
        assert partial == []
    final = folder / version
    if final.exists():
        report = verify_release(str(final))
        assert report.ok, report.problems
        assert read_latest(str(root), dataset) == version
        return "published"
    assert read_latest(str(root), dataset) == latest_before
    return "nothing"


def hub_outcome(stage: Stage, index: int) -> str:
    """``published``: the tag 1.0.0 at a commit with exactly the release's files;
    ``nothing``: no tag and no commit holding a file of the release."""
    release = stage.base / "built" / "releases" / "nlquad" / "1.0.0"
    files = {str(p.relative_to(release)): p.read_bytes() for p in release.rglob("*")
             if p.is_file()}
    repo = stage.hub.repos.get(f"qa-org/run-{index}")
    if repo is None or not repo.tags:
        committed = [set(c) - {".gitattributes"} for c in (repo.commits.values() if repo else [])]
        assert not any(committed), "a commit of the release's files without its tag"
        return "nothing"
    assert set(repo.tags) == {"1.0.0"}
    held = {k: v for k, v in repo.files("1.0.0").items() if k != ".gitattributes"}
    assert held == files
    return "published"


def outcome(stage: Stage, run: Run) -> str:
    root = run.cwd / "releases"
    if run.scenario in ("build", "build-multi"):
        return local_outcome(root, "nlquad", "1.0.0", None)
    if run.scenario == "refresh":
        return local_outcome(root, "nlquad", "1.0.1", "1.0.0")
    if run.scenario == "import":
        return local_outcome(root, "jnq_annotated", "1.0.0", None)
    return hub_outcome(stage, run.index)


def check(stage: Stage, run: Run) -> None:
    """Every rule of the module's docstring for one run; sets ``run.outcome``."""
    where = f"{run.scenario} #{run.index} ({signal.Signals(run.signum).name} at {run.delay:.2f} s)"
    assert "Traceback" not in run.stderr, f"{where}:\n{run.stderr[-3000:]}"
    assert not run.leftover_processes, f"{where}: a process of its group outlived it"
    run.outcome = outcome(stage, run)
    if run.rc == 0:
        assert run.outcome == "published", where
        return
    assert run.signalled and run.rc == 128 + run.signum, f"{where}: exit {run.rc}"
    name = signal.Signals(run.signum).name
    lines = run.stderr.splitlines()
    assert lines, f"{where}: nothing on stderr"
    if run.scenario in ONE_LINE:
        assert len(lines) == 1, f"{where}:\n{run.stderr[-3000:]}"
    last = lines[-1]
    said = [line for line in lines if line.startswith("interrupted (")]
    assert said == [last], f"{where}:\n{run.stderr[-3000:]}"
    if last == INTERRUPTED.format(name):
        assert run.outcome == "nothing", f"{where}: said nothing was published"
    else:
        assert last.startswith(COMPLETED.format(name)), f"{where}: {last}"
        assert run.outcome == "published", f"{where}: {last}"
    assert run.stop_seconds < STOP_WITHIN


def test_every_interrupted_run_published_completely_or_nothing(stage, tmp_path):
    started = time.monotonic()
    rng = random.Random(SEED)
    runs = []
    for scenario, count in PLAN:
        for _ in range(count):
            index = len(runs) + 1
            cwd = tmp_path / f"{index:02d}-{scenario}"
            cwd.mkdir()
            runs.append(Run(scenario, index, rng.choice((signal.SIGINT, signal.SIGTERM)),
                            rng.uniform(0.0, REACH * stage.seconds[scenario]), cwd))
    rng.shuffle(runs)  # mix the scenarios over the parallel slots

    def one(run: Run) -> Run:
        launch(command(stage, run.scenario, run.cwd, run.index), run.cwd, stage.env,
               run.delay, run.signum, run)
        return run

    with ThreadPoolExecutor(PARALLEL) as pool:
        finished = list(pool.map(one, runs))
    failures = []
    for run in finished:
        try:
            check(stage, run)
        except AssertionError as error:
            failures.append(str(error))
    tally = Counter((run.scenario, run.outcome, run.rc) for run in finished)
    print(f"\n{len(finished)} interrupted runs in {time.monotonic() - started:.1f} s "
          f"(the uninterrupted build took {stage.seconds['build']:.1f} s)")
    for (scenario, result, rc), count in sorted(tally.items()):
        print(f"  {scenario:12s} exit {rc:3d}  {result:9s} x{count}")
    assert failures == [], "\n\n".join(failures)
    assert len(finished) >= 50
    assert {run.outcome for run in finished} == {"published", "nothing"}
    assert any(run.rc != 0 for run in finished) and any(run.signalled for run in finished)
