"""The ``main`` of every pipeline module: run, print the summary, map errors to exit codes.

The codes are listed in ``pipelines.cli.errors``: 0 success, 1 job failure, 2 usage error,
3 release already exists, 4 nothing to release (an input or a network endpoint that is not
there, or no row kept), 5 a release read does not match its manifest, 6 published but
``LATEST`` not updated, 130 / 143 interrupted by SIGINT / SIGTERM (``interruptible``: one
line, no traceback, and a publish either completes or does not start).
"""

from __future__ import annotations

import logging
import re
import signal
import sys
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pipelines.cli.errors import (
    EXIT_DAMAGED,
    EXIT_EMPTY,
    EXIT_JOB_FAILED,
    EXIT_LATEST_NOT_UPDATED,
    EXIT_OK,
    EXIT_RELEASE_EXISTS,
    EXIT_USAGE,
    NoInputError,
    UsageError,
)
from transforms.core import interrupt

# Third-party loggers kept at WARNING unless --verbose. bm25s sets its own logger to DEBUG
# when imported: filters.text.bm25.import_bm25s, through which it is imported, puts back the
# level set here (importing it here would cost every command 0.3 s of CPU, scipy included).
NOISY_LOGGERS = ("apache_beam", "bm25s", "urllib3", "requests", "httpx", "httpcore",
                 "filelock", "fsspec", "gcsfs", "google", "grpc", "spacy", "numba", "jax",
                 "datasets", "huggingface_hub", "pyarrow")
LOG_FORMAT = "%(asctime)s %(levelname)s %(message)s"
# The errors of transforms.release (and of the endpoint preflight), by the module that defines
# each: such a module is imported only when a command uses it (several import Beam), so
# cli_main never imports one to classify an error; an error of a module that was never
# imported cannot have been raised.
# LatestMovedError: a --previous auto build refused at publish, another run published first.
RELEASE_EXISTS = (("transforms.release.target", "ReleaseExistsError"),)
RELEASE_DAMAGED = (("transforms.release.verify", "DamagedReleaseError"),)
RELEASE_LATEST_NOT_UPDATED = (("transforms.release.commit", "LatestNotUpdatedError"),)
RELEASE_USAGE = (("transforms.release.target", "InvalidReleaseName"),
                 ("transforms.release.target", "InvalidReleaseRoot"),
                 ("transforms.release.resolve", "NotAReleaseError"),
                 ("transforms.release.commit", "LatestMovedError"))
RELEASE_EMPTY = (("transforms.release.run", "EmptyReleaseError"),
                 ("transforms.clients.preflight", "EndpointUnavailable"))  # requests: 0.1 s
USAGE_ERRORS = (UsageError,)
EMPTY_ERRORS = (NoInputError,)
RUN_MODULE = "transforms.release.run"  # defines SKIPPED, the key of a --skip-existing result


def loaded_classes(names: tuple[tuple[str, str], ...]) -> tuple[type, ...]:
    """The classes ``(module, name)`` of the modules already imported (none imported here)."""
    found = (getattr(sys.modules.get(module), name, None) for module, name in names)
    return tuple(cls for cls in found if cls is not None)


def _skipped(result: dict[str, Any]) -> bool:
    """Whether ``--skip-existing`` stopped the run (``result[SKIPPED]``; only a run of
    ``transforms.release.run`` can say so)."""
    run = sys.modules.get(RUN_MODULE)
    return run is not None and bool(result.get(run.SKIPPED))


def exit_code(error: BaseException) -> int:
    """The exit code of an error raised by a pipeline's ``run``."""
    if isinstance(error, loaded_classes(RELEASE_EXISTS)):
        return EXIT_RELEASE_EXISTS
    if isinstance(error, loaded_classes(RELEASE_DAMAGED)):
        return EXIT_DAMAGED
    if isinstance(error, loaded_classes(RELEASE_LATEST_NOT_UPDATED)):
        return EXIT_LATEST_NOT_UPDATED
    if isinstance(error, USAGE_ERRORS + loaded_classes(RELEASE_USAGE)):
        return EXIT_USAGE
    if isinstance(error, EMPTY_ERRORS + loaded_classes(RELEASE_EMPTY)):
        return EXIT_EMPTY
    return EXIT_JOB_FAILED


def quiet_loggers(names: tuple[str, ...] = NOISY_LOGGERS, level: int = logging.WARNING) -> None:
    """Log only warnings from these libraries (``level``), imported or not yet."""
    for name in names:
        logging.getLogger(name).setLevel(level)


class _HideReportedErrors(logging.Filter):
    """Drop a runner's ERROR log of an error ``cli_main`` reports in one line (usage, empty,
    release exists, damaged): its traceback would bury that line. Job failures stay."""

    def filter(self, record: logging.LogRecord) -> bool:
        if interrupt.received() is not None:
            return False  # interrupted: the entry's one line is the last word
        error = record.exc_info[1] if record.exc_info else None
        return error is None or exit_code(error) == EXIT_JOB_FAILED


def _flag_value(argv: list[str], name: str) -> str | None:
    """The last value of ``--name`` / ``--name=value`` in ``argv`` (``""`` for a bare flag),
    or None; ``--a-b`` also matches ``--a_b``. Only a pre-scan: the parser validates."""
    found = None
    spellings = {name, name.replace("-", "_")}
    for index, arg in enumerate(argv):
        option, sep, value = arg.partition("=")
        if option in spellings:
            if sep:
                found = value
            elif index + 1 < len(argv) and not argv[index + 1].startswith("--"):
                found = argv[index + 1]
            else:
                found = ""
    return found


def _follow_stderr(names: tuple[str, ...]) -> None:
    """Point the plain stderr handlers that libraries install on their own loggers
    (``huggingface_hub`` does at import) at today's ``sys.stderr``: they keep the stream of
    the moment they were made, which a caller that redirects stderr (a notebook, a test) may
    have closed since."""
    for name in names:
        for handler in logging.getLogger(name).handlers:
            if type(handler) is logging.StreamHandler and handler.stream is not sys.stderr \
                    and getattr(handler.stream, "name", None) != "<stdout>":
                with handler.lock:  # not setStream: it flushes the old stream, maybe closed
                    handler.stream = sys.stderr


def configure_logging(argv: list[str] | None) -> bool:
    """Our INFO lines (progress included) on stderr, third-party loggers at WARNING unless
    ``--verbose``, and the ``--progress`` interval for every worker. Returns verbose.

    Importing Beam already logs a warning through the root logger, which installs a default
    WARNING handler: a plain ``basicConfig`` afterwards does nothing, which is why no INFO
    line (no progress line) ever appeared. So the root's plain stream handlers are replaced
    (test harness handlers, which are subclasses, are kept)."""
    from pipelines import _HideBeamGcpImportNotice
    from pipelines.cli.options import apply_progress_choice, parse_bool, parse_progress

    argv = sys.argv[1:] if argv is None else argv
    verbose_value = _flag_value(argv, "--verbose")
    try:
        verbose = verbose_value is not None and parse_bool(verbose_value or True)
    except Exception:  # noqa: BLE001 - the parser reports a bad value later
        verbose = False
    root = logging.getLogger()
    for handler in list(root.handlers):
        if type(handler) is logging.StreamHandler:
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    handler.addFilter(_HideBeamGcpImportNotice())
    handler.addFilter(_HideReportedErrors())
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    quiet_loggers(level=logging.INFO if verbose else logging.WARNING)
    _follow_stderr(NOISY_LOGGERS)
    progress = _flag_value(argv, "--progress")
    try:
        apply_progress_choice(parse_progress(progress if progress else "auto"))
    except Exception:  # noqa: BLE001 - the parser reports a bad value later
        apply_progress_choice(parse_progress("auto"))
    return verbose


def records_of(result: dict[str, Any]) -> tuple[int, str] | None:
    """The count a run's throughput is measured in: ``result["records"]`` (named by
    ``result["records_unit"]``, default ``records``) when the run gives one, else the rows
    it released."""
    if isinstance(result.get("records"), int):
        return result["records"], str(result.get("records_unit") or "records")
    rows = (result.get("manifest") or {}).get("rows_per_split")
    if isinstance(rows, dict):
        return sum(rows.values()), "rows"
    if isinstance(result.get("rows"), int):
        return result["rows"], "rows"
    return None


def _published_before(result: dict[str, Any], started_at: datetime) -> bool:
    """True when the release was already published before this run started (for example
    ``--skip-existing``): there is no throughput to report."""
    created = (result.get("manifest") or {}).get("created")
    try:
        return datetime.fromisoformat(str(created).replace("Z", "+00:00")) < started_at
    except ValueError:
        return False


def elapsed_line(seconds: float, result: dict[str, Any],
                 started_at: datetime | None = None) -> str:
    """``  elapsed: 48.7 s (364.0 rows/s)``."""
    line = f"  elapsed: {seconds:.1f} s"
    if not isinstance(result, dict):
        return line
    if _skipped(result) or (started_at is not None and _published_before(result, started_at)):
        return line + " (the release was already published: nothing was built)"
    counted = records_of(result)
    if counted is not None:
        count, unit = counted
        line += f" ({count / max(seconds, 1e-9):,.1f} {unit}/s)"
    return line


def skipped_summary(summary: str, result: dict[str, Any]) -> str:
    """The summary of a run that ``--skip-existing`` stopped (``result[SKIPPED]``): its first
    line, which says where a run wrote its release, becomes one saying that the version was
    already there and left as it is; the counts that follow are the published release's."""
    if not isinstance(result, dict) or not _skipped(result):
        return summary
    manifest = result.get("manifest") or {}
    lines = summary.splitlines()
    if lines and " written to " in lines[0]:
        lines = lines[1:]
    head = (f"{manifest.get('dataset', 'the release')} {manifest.get('version', '')} already "
            f"exists at {result.get('path')}: left as it is, nothing was written "
            "(--skip-existing); what it holds:")
    return "\n".join([head, *lines])


_BEAM_CONTEXT = re.compile(r" \[while running '[^'\]]*'\]")


def _without_beam_context(message: str) -> str:
    """A reported error's message without the ``[while running 'Step/Name']`` the runner
    appends: the step names Beam's graph, not anything the user gave."""
    return _BEAM_CONTEXT.sub("", message)


# Beam filesystems of optional extras, and what installs each (the GCP one is ours).
EXTRA_FILESYSTEMS = {"gs": "pip install '.[gcp]'", "s3": "pip install 'apache-beam[aws]'",
                     "azfs": "pip install 'apache-beam[azure]'",
                     "hdfs": "pip install 'apache-beam[hadoop]'"}
NOT_PATHS = ("--to",)  # release publish's Hub repository (hf://datasets/ORG/NAME), checked there
_EXTRA_PATH = re.compile(rf"^(?:--[\w-]+=)?(({'|'.join(EXTRA_FILESYSTEMS)})://\S*)")


def missing_filesystem(argv: list[str]) -> str | None:
    """The one-line error for the first argument naming a path of a filesystem this install
    cannot read (``gs://...`` without the GCP extra: Beam would fail in the middle of the
    job, or of an option's check, with a traceback), or None."""
    for index, arg in enumerate(argv):
        match = _EXTRA_PATH.match(arg)
        if match is None:
            continue
        from apache_beam.io.filesystems import FileSystems  # only for such a path


        path, scheme = match.group(1), match.group(2)
        option = arg.split("=", 1)[0] if arg.startswith("--") else (
            argv[index - 1] if index and argv[index - 1].startswith("--") else "")
        if option in NOT_PATHS:
            continue
        try:
            FileSystems.get_filesystem(path)
        except ValueError:
            named = f"{option} {path}" if option else path
            return (f"{named}: this install cannot read {scheme}:// paths; install the "
                    f"extra that can: {EXTRA_FILESYSTEMS[scheme]}")
    return None


def interruptible(main: Callable[[], int], argv: list[str] | None = None) -> int:
    """Run a command's ``main`` with SIGINT and SIGTERM handled (``transforms.core.interrupt``):
    an interrupt prints ``interrupted_line`` on stderr, no traceback, and returns 130 / 143.
    An error raised while the run unwinds from an interrupt (a runner reporting its stopped
    worker) is the interrupt too. First, a path of a filesystem this install lacks (among
    ``argv``, default the command's arguments) is exit 2 before any work
    (``missing_filesystem``)."""
    try:
        with interrupt.handling():
            missing = missing_filesystem(sys.argv[1:] if argv is None else argv)
            if missing is not None:
                print(f"error: {missing}", file=sys.stderr)
                return EXIT_USAGE
            return main()
    except (interrupt.Interrupted, KeyboardInterrupt, Exception) as error:
        signum = interrupt.received()
        if signum is None and isinstance(error, interrupt.Interrupted):
            signum = error.signum
        if signum is None and isinstance(error, KeyboardInterrupt):
            signum = signal.SIGINT
        if signum is None:
            raise
        if interrupt.is_command_process():
            interrupt.finish(signum)  # no runner thread left behind may hold the exit
        sys.stdout.flush()
        print(interrupt.interrupted_line(signum), file=sys.stderr, flush=True)
        return interrupt.exit_code(signum)


def cli_main(run: Callable[[list[str] | None], dict[str, Any]],
             summarize: Callable[[dict[str, Any]], str], argv: list[str] | None = None) -> int:
    """Entry point of a pipeline module: run and print the summary, ending with the elapsed
    time and throughput, or report the error in one line on stderr (with the traceback for a
    job failure) and return its exit code. Logging, ``--verbose`` and ``--progress`` are set
    up first (``configure_logging``). SIGINT and SIGTERM stop it with one line and exit 130 /
    143 (``interruptible``)."""
    return interruptible(lambda: _cli_main(run, summarize, argv), argv)


def _cli_main(run: Callable[[list[str] | None], dict[str, Any]],
              summarize: Callable[[dict[str, Any]], str], argv: list[str] | None) -> int:
    configure_logging(argv)
    started, started_at = time.perf_counter(), datetime.now(UTC).replace(microsecond=0)
    try:
        result = run(argv)
    except Exception as error:  # noqa: BLE001 - every error becomes an exit code
        if interrupt.received() is not None:
            raise  # the run stopped because of the interrupt: interruptible reports it
        code = exit_code(error)
        if code == EXIT_JOB_FAILED:
            traceback.print_exc()
            print(f"error: the job failed: {type(error).__name__}: {error}", file=sys.stderr)
        else:
            print(f"error: {_without_beam_context(str(error))}", file=sys.stderr)
        return code
    interrupt.check()  # a publish completed under an interrupt: say so, not the summary
    elapsed = elapsed_line(time.perf_counter() - started, result, started_at)
    print(skipped_summary(summarize(result), result) + "\n" + elapsed)
    return EXIT_OK
