"""Parsers that raise ``UsageError`` instead of exiting, and the program name they show.

argparse's ``parser.error`` prints the usage and calls ``sys.exit(2)``: a notebook calling a
pipeline with a bad value would see ``SystemExit``. ``raise_usage_errors`` makes a parser
(and its subcommands' parsers) raise ``UsageError`` with argparse's one-line message instead;
``cli_main`` prints it as ``error: <message>`` and exits 2, as before. ``--help`` still
prints and exits 0. ``program_name`` lets ``qa-build nlquad`` show itself as the program in
``--help`` and messages instead of ``python -m pipelines.build_nlquad``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import NoReturn

from pipelines.cli.errors import UsageError

_PROGRAM: ContextVar[str | None] = ContextVar("program", default=None)


def _raise_usage_error(message: str) -> NoReturn:
    raise UsageError(message)


def raise_usage_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Make ``parser.error`` (and each subcommand parser's) raise ``UsageError``; returns
    the parser."""
    parser.error = _raise_usage_error  # type: ignore[method-assign]
    for action in parser._actions:  # argparse keeps the subcommands' parsers only here
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                raise_usage_errors(sub)
    return parser


@contextmanager
def program_name(name: str) -> Iterator[None]:
    """Within the block, pipelines parse their arguments as program ``name``."""
    token = _PROGRAM.set(name)
    try:
        yield
    finally:
        _PROGRAM.reset(token)


def apply_program_name(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Set the program name ``program_name`` chose, if any, on ``parser``; returns it."""
    name = _PROGRAM.get()
    if name:
        parser.prog = name
    return parser
