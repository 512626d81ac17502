"""The interrupt rules in one process: a signal stops the main thread at once, except while
a publish is past its point of no return, which then completes and is reported; a publish
never starts after a signal. Signals are sent to this process (``os.kill``) inside
``handling()``, which restores pytest's own handlers after."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from pipelines.cli.entry import interruptible
from transforms.core import interrupt

WAIT = 10.0  # seconds: a bound, never reached when the rule holds


@pytest.fixture(autouse=True)
def own_state(monkeypatch):
    """Each test gets the module's state fresh, and the next test of this process (in another
    file) finds it as it was: the signal a test sends stays recorded after ``handling()``
    (what ``interrupted_line`` reports), and a later publish would be refused for it."""
    monkeypatch.setattr(interrupt, "_state", interrupt._State())


@pytest.fixture(autouse=True)
def sigint_not_ignored():
    """A suite started in the background (``nohup``, ``&``) inherits SIGINT ignored, which
    ``interrupt.handling`` rightly leaves alone: these tests need it handled."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _spin(seconds: float = WAIT) -> None:
    """Python work in the main thread, where ``Interrupted`` is raised."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.005)


def test_a_signal_outside_a_publish_stops_the_main_thread():
    started = time.monotonic()
    with interrupt.handling(), pytest.raises(interrupt.Interrupted) as stopped:
        os.kill(os.getpid(), signal.SIGTERM)
        _spin()
    assert stopped.value.signum == signal.SIGTERM
    assert time.monotonic() - started < WAIT
    assert interrupt.exit_code(signal.SIGTERM) == 143


def test_no_publish_starts_after_a_signal():
    body = []
    with interrupt.handling():
        with pytest.raises(interrupt.Interrupted):
            os.kill(os.getpid(), signal.SIGINT)
            _spin()
        with pytest.raises(interrupt.Interrupted), interrupt.point_of_no_return("x 1.0.0"):
            body.append("published")
        assert interrupt.published() == []
        assert interrupt.interrupted_line(signal.SIGINT) == (
            "interrupted (SIGINT); nothing was published")
    assert body == []


def test_a_signal_inside_a_publish_lets_it_complete_and_says_so():
    with interrupt.handling():
        with interrupt.point_of_no_return("x 1.0.0 at releases/x/1.0.0"):
            os.kill(os.getpid(), signal.SIGINT)
            _spin(0.5)  # not interrupted: the publish goes on
            finished = True
        assert finished and interrupt.received() == signal.SIGINT
        with pytest.raises(interrupt.Interrupted):
            interrupt.check()
        line = interrupt.interrupted_line(signal.SIGINT)
    assert line == ("interrupted (SIGINT) after the publish completed: x 1.0.0 at "
                    "releases/x/1.0.0 (complete; nothing else was published)")


def test_a_publish_in_another_thread_is_waited_for(capsys):
    """The signal arrives while a worker thread is past its point of no return: the main
    thread is not interrupted; the entry reports the completed publish with exit 130."""
    inside, release = threading.Event(), threading.Event()

    def publish() -> None:
        with interrupt.point_of_no_return("y 2"):
            inside.set()
            release.wait(WAIT)

    def main() -> int:
        worker = threading.Thread(target=publish)
        worker.start()
        assert inside.wait(WAIT)
        os.kill(os.getpid(), signal.SIGINT)
        _spin(0.5)  # the watcher saw the publish under way: no interrupt here
        release.set()
        worker.join(WAIT)
        interrupt.check()
        return 0

    assert interruptible(main) == 130
    assert capsys.readouterr().err == ("interrupted (SIGINT) after the publish completed: y 2 "
                                       "(complete; nothing else was published)\n")


def test_the_entry_prints_one_line_and_exits_128_plus_the_signal(capsys):
    def main() -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        _spin()
        return 0

    assert interruptible(main) == 143
    assert capsys.readouterr().err == "interrupted (SIGTERM); nothing was published\n"


def test_an_error_raised_while_unwinding_from_an_interrupt_is_the_interrupt(capsys):
    """A runner reports its stopped workers as an error: still the one line."""
    def main() -> int:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            _spin()
        finally:
            raise RuntimeError("Worker subprocess exited with return code -2")

    assert interruptible(main) == 130
    assert capsys.readouterr().err == "interrupted (SIGINT); nothing was published\n"


def test_handling_restores_the_handlers_mask_and_environment():
    before = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM),
              signal.pthread_sigmask(signal.SIG_BLOCK, []), os.environ.get("PYTHONPATH"))
    with interrupt.handling():
        assert os.environ[interrupt.INTERRUPT_DIR_ENV]
        assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == interrupt.WORKER_STARTUP
    after = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM),
             signal.pthread_sigmask(signal.SIG_BLOCK, []), os.environ.get("PYTHONPATH"))
    assert after == before and interrupt.INTERRUPT_DIR_ENV not in os.environ


HUNG_COMMAND = """
import os, signal, sys, threading
from transforms.core import interrupt
interrupt._state.command_line = True  # as a command's process
folder = sys.argv[1]
os.environ[interrupt.INTERRUPT_DIR_ENV] = folder
if sys.argv[2] == "publishing":  # a publish past its point of no return, in another worker
    open(os.path.join(folder, "publishing-1-0"), "w").write("nq 1.0.0")
    waits = []
    def wait(seconds):
        waits.append(seconds)
        if len(waits) == 3:  # the publish completes while the watchdog waits for it
            os.rename(os.path.join(folder, "publishing-1-0"),
                      os.path.join(folder, "published-1-0"))
else:
    wait = None
interrupt._state.signum = signal.SIGTERM
interrupt._start_watchdog(signal.SIGTERM, grace_s=0.0, wait=wait)
threading.Event().wait()  # the unwinding hangs: a runner's thread that never returns
"""


@pytest.mark.parametrize("state", ["idle", "publishing"])
def test_a_command_whose_unwinding_hangs_is_ended_with_its_line(tmp_path, state):
    """The watchdog ends a command that an interrupt could not unwind (exit 143, one line),
    and waits for a publish past its point of no return, then names it."""
    import subprocess
    import sys

    from tests.conftest import PROJECT_ROOT

    done = subprocess.run([sys.executable, "-c", HUNG_COMMAND, str(tmp_path), state],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 143
    lines = done.stderr.splitlines()
    if state == "idle":
        assert lines == ["interrupted (SIGTERM); nothing was published"]
    else:
        assert lines == ["interrupted (SIGTERM) after the publish completed: nq 1.0.0 "
                         "(complete; nothing else was published)"]


def test_an_interrupt_python_could_not_raise_is_raised_again_not_printed(capsys):
    """A signal handled while a weakref callback runs (importlib's module-lock one, in a
    stress run): Python prints the callback's exception as "Exception ignored" and goes on.
    The interrupt is sent again and raised where the main thread then is."""
    import weakref

    class Owner:
        pass

    def callback(_):
        os.kill(os.getpid(), signal.SIGTERM)
        _spin(0.5)  # the handler runs here, inside the callback: its Interrupted is ignored

    started = time.monotonic()
    with interrupt.handling(), pytest.raises(interrupt.Interrupted) as stopped:
        owner = Owner()
        reference = weakref.ref(owner, callback)
        del owner  # the callback runs now
        assert reference() is None
        _spin()
    assert stopped.value.signum == signal.SIGTERM
    assert time.monotonic() - started < WAIT
    assert "Exception ignored" not in capsys.readouterr().err
