"""Interrupts (Ctrl-C's SIGINT, a scheduler's SIGTERM): stop at once, never half-publish.

``handling()`` (the command line's entry, ``pipelines.cli.entry``) makes both signals raise
``Interrupted`` in the main thread, so the run unwinds through its clean-up (a build's
staging directory is discarded) and the entry prints one line (``interrupted_line``) and
exits 128 + the signal's number (130, 143). A publish wraps its point of no return (the
rename of a release into place and ``LATEST``, the Hub commit and tag, an annotation
directory's rename) in ``point_of_no_return(what)``: entered only while no interrupt has
arrived (else ``Interrupted``, nothing published); an interrupt that arrives inside it waits
until it is over, so the publish completes and the line names what it published.

The worker processes a Beam runner starts (``multi_processing``) ignore SIGINT
(``worker_startup``'s ``sitecustomize``, on their ``PYTHONPATH``), so a terminal's Ctrl-C,
which reaches every process of the group, does not make them print a ``KeyboardInterrupt``
traceback: the command ends them (SIGTERM) when it stops. The state is a directory named by
``QA_INTERRUPT_DIR`` (inherited by those workers): ``signal`` holds the signal received,
``publishing-*`` marks a point of no return being passed (in any process) and
``published-*`` what one completed. A publish writes its mark before it reads the signal and
the handler writes the signal before it reads the marks: whatever the interleaving, either
the publish sees the interrupt (and does not start) or the handler sees the publish (and
lets it finish).
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

INTERRUPT_DIR_ENV = "QA_INTERRUPT_DIR"
SIGNALS = (signal.SIGINT, signal.SIGTERM)
NOTHING_PUBLISHED = "interrupted ({signal}); nothing was published"
# the commands' modules (the ``pipelines`` package, next to ``transforms``)
COMMANDS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "pipelines")
# the sitecustomize of the Python processes a command starts: they leave SIGINT to it
WORKER_STARTUP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker_startup")
GRACE_S = 30.0  # after an interrupt, how long a command may unwind before it is ended
_SIGNAL_FILE = "signal"
_PUBLISHING, _PUBLISHED = "publishing-", "published-"


class Interrupted(BaseException):  # noqa: N818 - not an error: the user stopped the run
    """The run was stopped by ``signum``; a ``BaseException`` so that no ``except
    Exception`` of a stage takes it for a record's failure."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum


def exit_code(signum: int) -> int:
    """The shell's code of a run stopped by ``signum``: 128 + its number."""
    return 128 + int(signum)


@dataclass
class _State:
    signum: int | None = None  # this process's signal (also without a state directory)
    raised: bool = False  # Interrupted was raised in the main thread
    kept: tuple[str, ...] = ()  # what the last handling() published, once it is over
    command_line: bool = False  # a command's process (``stop_before_the_run`` was called)
    reported: bool = False  # the interrupted line was written (``finish``)


_state = _State()
_marks = itertools.count()


def _directory() -> str | None:
    return os.environ.get(INTERRUPT_DIR_ENV) or None


def received() -> int | None:
    """The signal that interrupted this run (or the process that started this one), or
    None."""
    if _state.signum is not None:
        return _state.signum
    folder = _directory()
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, _SIGNAL_FILE), encoding="ascii") as flag:
            return int(flag.read().strip() or signal.SIGINT)
    except (OSError, ValueError):
        return None


def _names(prefix: str) -> list[str]:
    folder = _directory()
    try:
        return sorted(n for n in os.listdir(folder) if n.startswith(prefix)) if folder else []
    except OSError:
        return []


def published() -> list[str]:
    """What this run published (each point of no return passed whole, in any process)."""
    folder = _directory()
    if folder is None:
        return list(_state.kept)
    found = []
    for name in _names(_PUBLISHED):
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as record:
                found.append(record.read())
        except OSError:
            continue
    return found


def interrupted_line(signum: int) -> str:
    """The one line of an interrupted run: nothing was published, or what a publish already
    past its point of no return completed before the run stopped."""
    name = signal.Signals(signum).name
    done = published()
    if not done:
        return NOTHING_PUBLISHED.format(signal=name)
    return (f"interrupted ({name}) after the publish completed: {'; '.join(done)} "
            "(complete; nothing else was published)")


def _record(signum: int) -> None:
    """Keep the first signal, in this process and in the state directory."""
    if _state.signum is not None:
        return
    _state.signum = signum
    folder = _directory()
    if folder:
        temporary = os.path.join(folder, f".{_SIGNAL_FILE}.{os.getpid()}")
        with open(temporary, "w", encoding="ascii") as flag:
            flag.write(str(signum))
        os.replace(temporary, os.path.join(folder, _SIGNAL_FILE))


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    """In the main thread (Python runs handlers there, waking it from a wait): raise
    ``Interrupted`` once, unless a publish, in any thread or worker process, is past its
    point of no return (it completes; the entry then reports it). Later signals are
    ignored: the clean-up the first one started must finish."""
    _record(signum)
    if _state.raised or _names(_PUBLISHING):
        return
    _state.raised = True
    _stop_workers()
    if _state.command_line:
        _start_watchdog(_state.signum or signum)
    raise Interrupted(_state.signum or signum)


def _start_watchdog(signum: int, grace_s: float = GRACE_S,
                    wait: Any = None) -> threading.Thread:
    """A command's last resort: should the unwinding the interrupt started hang (a runner's
    thread waiting for a stage that will never come), end the process ``grace_s`` after the
    signal with the one line and its code (``_stop_now``), but never while a publish is past
    its point of no return (it completes first; the line then names it). ``wait`` (default
    ``threading.Event().wait``) is the clock, injectable for tests."""
    wait = wait or threading.Event().wait

    def watch() -> None:
        wait(grace_s)
        while _names(_PUBLISHING):
            wait(1.0)
        finish(signum)

    thread = threading.Thread(target=watch, name="interrupt-watchdog", daemon=True)
    thread.start()
    return thread


def finish(signum: int) -> None:
    """End a command's process after an interrupt: the one line (once), then ``os._exit``
    with its code, so that no thread a runner left behind holds the process open."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    if not _state.reported:
        _state.reported = True
        os.write(2, (interrupted_line(signum) + "\n").encode())
    os._exit(exit_code(signum))


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (Linux's ``/proc``; none elsewhere)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _stop_workers() -> None:
    """End the worker processes the run started (Beam's ``multi_processing`` workers, which
    ignore SIGINT): the runner waits for them as it unwinds, and they would wait for work."""
    for pid in descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            continue


def _stop_now(signum: int, _frame: FrameType | None) -> None:
    """Outside the run (before it, or after it returned): nothing under way to clean up;
    say what was published, if anything, and end."""
    os.write(2, (interrupted_line(signum) + "\n").encode())
    os._exit(exit_code(signum))


def _is_a_command() -> bool:
    """Whether this process is one of the commands (``python -m pipelines.<module>`` or a
    ``qa-*`` console script), not a program that called a command's ``main`` (a test, a
    notebook), whose own handling of the signals is left alone."""
    program = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return (os.path.basename(program).startswith("qa-")
            or os.path.dirname(program) == COMMANDS)


def _not_ignored() -> list[int]:
    return [signum for signum in SIGNALS if signal.getsignal(signum) is not signal.SIG_IGN]


def stop_before_the_run() -> None:
    """Until ``handling()`` takes over, SIGINT and SIGTERM end a command's process at once
    with the one line, not a ``KeyboardInterrupt`` traceback from the middle of an import (a
    command's first call; a signal the parent ignores, as a shell's background job's SIGINT,
    stays ignored; a program that calls a command's ``main`` keeps its own handlers)."""
    if threading.current_thread() is threading.main_thread() and _is_a_command():
        _state.command_line = True
        for signum in _not_ignored():
            signal.signal(signum, _stop_now)


def _quiet_threads(previous: Any) -> Any:
    """A ``threading.excepthook`` that says nothing once interrupted: the runner's threads
    that watch stopped workers report them as errors."""

    def hook(args: Any) -> None:
        if received() is None:
            previous(args)

    return hook


REDELIVER_S = 0.01  # after an interrupt Python could not raise, when it is sent again


def _redelivering(previous: Any) -> Any:
    """A ``sys.unraisablehook`` for an ``Interrupted`` that Python could not raise where the
    signal found the main thread (a weakref callback, such as importlib's module-lock one, or
    a ``__del__``: Python prints "Exception ignored in" with its traceback and goes on): the
    signal is sent to this process again a moment later, from another thread, so the handler
    raises it where the main thread then is, and nothing is printed. Anything else goes to
    ``previous``."""

    def hook(args: Any) -> None:
        if not isinstance(args.exc_value, Interrupted):
            previous(args)
            return
        _state.raised = False
        timer = threading.Timer(REDELIVER_S, _send_again, (args.exc_value.signum, hook))
        timer.daemon = True
        timer.start()

    return hook


def _send_again(signum: int, hook: Any) -> None:
    """Send ``signum`` to this process, unless the ``handling()`` that installed ``hook`` is
    over (its handlers are gone: the signal would end a process that runs on)."""
    if sys.unraisablehook is hook:
        os.kill(os.getpid(), signum)


@contextmanager
def handling() -> Iterator[None]:
    """SIGINT and SIGTERM stop the run while inside (main thread only; elsewhere a no-op; a
    signal the parent ignores stays ignored); the previous handlers and state are restored
    after, and what was published stays readable until the next ``handling()``."""
    signums = _not_ignored()
    if threading.current_thread() is not threading.main_thread() or not signums:
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in signums}
    saved_env = {name: os.environ.get(name) for name in (INTERRUPT_DIR_ENV, "PYTHONPATH")}
    saved_hook, saved_unraisable = threading.excepthook, sys.unraisablehook
    os.environ[INTERRUPT_DIR_ENV] = tempfile.mkdtemp(prefix="qa-interrupt-")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [WORKER_STARTUP, *filter(None, [saved_env["PYTHONPATH"]])])
    _state.signum, _state.raised, _state.kept = None, False, ()
    threading.excepthook = _quiet_threads(saved_hook)
    sys.unraisablehook = _redelivering(saved_unraisable)
    try:
        for signum in signums:
            signal.signal(signum, _on_signal)
        yield
    finally:
        sys.unraisablehook = saved_unraisable
        _finish(previous, saved_env, saved_hook)


def _finish(previous: dict[int, Any], saved_env: dict[str, str | None],
            saved_hook: Any) -> None:
    """Undo ``handling()``: the handlers, the hook, the environment, then the state
    directory; what was published is kept in memory for ``interrupted_line``. A command's
    process ignores the signals from here on: its run is over and reported, and a signal
    while Python shuts down (which restores the default action of the signals it handled)
    would end it by the signal instead of with the code it reported. It also keeps the quiet
    thread hook: the runner's threads that watched the workers it ended may report them
    after the run has returned."""
    for signum, handler in previous.items():
        signal.signal(signum, signal.SIG_IGN if _state.command_line else handler)
    folder = _directory()
    done = published()
    if not _state.command_line:  # a command's runner threads may still report its workers
        threading.excepthook = saved_hook
    for name, value in saved_env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    if folder:
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)
    _state.kept = tuple(done)


@contextmanager
def point_of_no_return(what: str) -> Iterator[None]:
    """Publish ``what`` inside: ``Interrupted`` before anything when an interrupt already
    arrived; an interrupt arriving inside lets it complete, and ``what`` is recorded as
    published when the block completes (see the module's note on the order of the marks)."""
    folder = _directory()
    mark = os.path.join(folder, f"{_PUBLISHING}{os.getpid()}-{next(_marks)}") if folder else None
    if mark:
        with open(mark, "w", encoding="utf-8") as handle:
            handle.write(what)
    try:
        signum = received()
        if signum is not None:
            raise Interrupted(signum)
        yield
        if mark:
            done = mark.replace(_PUBLISHING, _PUBLISHED, 1)
            with open(done, "w", encoding="utf-8") as handle:
                handle.write(what)
    finally:
        if mark:
            os.unlink(mark)


def check() -> None:
    """Raise ``Interrupted`` when an interrupt has arrived (a step between others)."""
    signum = received()
    if signum is not None:
        raise Interrupted(signum)


def is_command_process() -> bool:
    """Whether this process is a command's own (not a program that called its ``main``)."""
    return _state.command_line
