"""The ``main`` of every pipeline module: run, print the summary, map errors to exit codes.

The codes are listed in ``pipelines.cli.errors``: 0 success, 1 job failure, 2 usage error,
3 release already exists, 4 nothing to release, 5 a release read does not match its manifest.
"""

from __future__ import annotations

import importlib
import logging
import sys
import traceback
from collections.abc import Callable
from typing import Any

from pipelines.cli.errors import (
    EXIT_DAMAGED,
    EXIT_EMPTY,
    EXIT_JOB_FAILED,
    EXIT_OK,
    EXIT_RELEASE_EXISTS,
    EXIT_USAGE,
    NoInputError,
    UsageError,
)
from transforms.release import (
    DamagedReleaseError,
    EmptyReleaseError,
    InvalidReleaseName,
    InvalidReleaseRoot,
    ReleaseExistsError,
)

NOISY_LOGGERS = ("apache_beam", "bm25s")
USAGE_ERRORS = (UsageError, InvalidReleaseName, InvalidReleaseRoot)
EMPTY_ERRORS = (NoInputError, EmptyReleaseError)


def exit_code(error: BaseException) -> int:
    """The exit code of an error raised by a pipeline's ``run``."""
    if isinstance(error, ReleaseExistsError):
        return EXIT_RELEASE_EXISTS
    if isinstance(error, DamagedReleaseError):
        return EXIT_DAMAGED
    if isinstance(error, USAGE_ERRORS):
        return EXIT_USAGE
    if isinstance(error, EMPTY_ERRORS):
        return EXIT_EMPTY
    return EXIT_JOB_FAILED


def quiet_loggers(names: tuple[str, ...] = NOISY_LOGGERS) -> None:
    """Log only warnings from these libraries. bm25s sets its own logger to DEBUG when it is
    imported, so it is imported first (when installed) or a later import would undo this."""
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
        logging.getLogger(name).setLevel(logging.WARNING)


def cli_main(run: Callable[[list[str] | None], dict[str, Any]],
             summarize: Callable[[dict[str, Any]], str], argv: list[str] | None = None) -> int:
    """Entry point of a pipeline module: run and print the summary, or report the error in
    one line on stderr (with the traceback for a job failure) and return its exit code."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    quiet_loggers()
    try:
        result = run(argv)
    except Exception as error:  # noqa: BLE001 - every error becomes an exit code
        code = exit_code(error)
        if code == EXIT_JOB_FAILED:
            traceback.print_exc()
            print(f"error: the job failed: {type(error).__name__}: {error}", file=sys.stderr)
        else:
            print(f"error: {error}", file=sys.stderr)
        return code
    print(summarize(result))
    return EXIT_OK
