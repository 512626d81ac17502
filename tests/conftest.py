"""Shared test configuration: the real-data folder, the FnApiRunner for pipelines and the
releases built from the bundled samples, once per test run."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.schedule import WRITE_OPTION, SecondsRecorder, make_scheduler, read_seconds

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
TEST_RUNNER = "--runner=FnApiRunner"
TIMESTAMPED = ("README.md", "croissant.json")  # files that name the build time


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test's requests to 127.0.0.1 (the fake servers) away from any proxy
    configured in the environment: no test touches the internet."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture(autouse=True)
def no_progress_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts without a ``--progress`` choice: a command run in-process by an
    earlier test resolves its choice into ``QA_DATASETS_PROGRESS_EVERY`` (for the worker
    processes it starts), which would otherwise override the interval a later test gives
    its ``Progress`` and silence its lines; monkeypatch restores it after each test."""
    from transforms.core.progress import ENV_EVERY

    monkeypatch.delenv(ENV_EVERY, raising=False)


@pytest.fixture(autouse=True)
def signals_as_pytest_had_them() -> Iterator[None]:
    """Every test starts with SIGINT and SIGTERM handled as before it, and not in a command's
    process state: a command's run leaves its process ignoring both (``interrupt._finish``),
    and a test that changed a handler would keep later tests' ``handling()`` from seeing the
    signal (the interrupt tests failed after others in a full run)."""
    from transforms.core import interrupt

    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    command_line = interrupt._state.command_line
    yield
    interrupt._state.command_line = command_line
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(WRITE_OPTION, action="store_true",
                     help="rewrite tests/fixtures/test_seconds.json (what make test's workers "
                          "start first) with the seconds each test file took in this run")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption(WRITE_OPTION):
        config.pluginmanager.register(SecondsRecorder(), "test_seconds_recorder")


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` with each ``ONE_WORKER`` directory scheduled as one file and the
    longest files first (``tests/schedule.py``)."""
    if config.getvalue("dist") != "loadfile":
        return None
    return make_scheduler(config, log, read_seconds())


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str,
                 build: Callable[[Path], Any]) -> Any:
    """``build(directory)``'s result (JSON data), computed once per test run.

    pytest-xdist's workers (``make test`` starts two) each have a session of their own; they
    share this result through the run's temporary directory, which is their base's parent:
    the first worker that needs it builds it under a lock and the others wait, then read it.
    A build that failed is started again, in a clean directory, by the next one that asks."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # a worker's is <the run's>/popen-gwN
    directory, done = base / name, base / f"{name}.json"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir()
            done.with_suffix(".partial").write_text(json.dumps(build(directory)))
            done.with_suffix(".partial").rename(done)
        return json.loads(done.read_text())


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` of a CI checkout; tests marked ``realdata`` skip without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is absent (fresh clone): real-data test skipped")
    return SHARED_DATA


@pytest.fixture(scope="session")
def sample_releases(tmp_path_factory: pytest.TempPathFactory,
                    sample_build: Callable[..., tuple[dict[str, Any], Path]]
                    ) -> dict[str, Path]:
    """One release of each type from the bundled samples (``tests/sample_releases.py``),
    built once per run: dataset name -> version directory. Tests only read them. Those a
    ``sample_build`` makes (built in memory, once per run too) are copied from it."""
    from tests.sample_releases import build_sample_releases

    def build(directory: Path) -> dict[str, str]:
        return {name: str(path) for name, path in build_sample_releases(
            directory, TEST_RUNNER, lambda name: sample_build(name)[1]).items()}

    releases = once_per_run(tmp_path_factory, "sample_releases", build)
    return {name: Path(path) for name, path in releases.items()}


@pytest.fixture(scope="session")
def sample_build(tmp_path_factory: pytest.TempPathFactory
                 ) -> Callable[..., tuple[dict[str, Any], Path]]:
    """``sample_build(name, runner="in_memory")``: ``(result, version directory)`` of
    ``tests.sample_releases.SHARED_BUILDS[name]`` (a pipeline on its bundled sample) run in
    memory or multi-process, built once per run. Tests only read them (``result`` is a copy
    of the pipeline's result); one that writes next to a release starts from a copy
    (``tests.sample_releases.copy_release``)."""
    from tests.sample_releases import RUNNERS, build_sample

    def get(name: str, runner: str = "in_memory") -> tuple[dict[str, Any], Path]:
        result = once_per_run(tmp_path_factory, f"sample_build-{name}-{runner}",
                              lambda directory: build_sample(name, RUNNERS[runner], directory))
        return result, Path(result["path"])

    return get


# Headless Chromium through chromedriver (Debian's ``chromium`` and ``chromium-driver``), for
# the tests marked ``browser``: they skip when either is missing, unless ``QA_REQUIRE_BROWSER=1``
# (what ``.ci/run`` sets after ``make browser`` installed them): then a missing browser fails.

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _missing(reason: str) -> None:
    if os.environ.get("QA_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason}, and QA_REQUIRE_BROWSER=1 (run: make browser)")
    pytest.skip(f"{reason} (make browser installs chromium and chromium-driver)")


@pytest.fixture(scope="session")
def chrome() -> Iterator[Any]:
    """A headless Chromium session that keeps the JS console log."""
    try:
        from selenium import webdriver
    except ImportError:
        _missing("selenium is not installed")
    browser = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        _missing("no chromium or chromedriver on PATH")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,1600"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(service=webdriver.ChromeService(executable_path=driver),
                               options=options)
    session.set_page_load_timeout(60)
    yield session
    session.quit()
