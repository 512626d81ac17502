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
from pathlib import Path
from typing import NoReturn

from pipelines.cli.errors import UsageError
from transforms.core.samples import sample_path

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


def program(default: str) -> str:
    """The program name ``program_name`` chose, else ``default``: a parser with subcommands
    takes it when it is made, since each subcommand's ``prog`` is made from it then."""
    return _PROGRAM.get() or default


def apply_program_name(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Set the program name ``program_name`` chose, if any, on ``parser``; returns it."""
    name = _PROGRAM.get()
    if name:
        parser.prog = name
    return parser


class HelpFormatter(argparse.HelpFormatter):
    """``--help`` with each option's default: appended as ``(default: X)`` unless the help
    already names its default, or there is none to name (None, an empty list, a flag that
    is off, a required option)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        shown = shown_default(action)
        if shown is None or "default" in text.lower():
            return text
        return f"{text} (default: {shown.replace('%', '%%')})".strip()


def shown_default(action: argparse.Action) -> str | None:
    """The default ``--help`` and the CLI reference show for an option (``default_text``),
    or None when there is none worth showing: a positional or required option, a flag, a
    default of None, an empty text or collection, or False."""
    default = action.default
    if not action.option_strings or action.required or action.nargs == 0:
        return None
    if default is None or default is False or default is argparse.SUPPRESS:
        return None
    if isinstance(default, str | list | tuple | dict) and not default:
        return None
    return default_text(default)


def _bundled(text: str) -> str:
    """A default path inside the bundled samples (``transforms.core.samples``) as
    ``pipelines/samples/...``, so help and the reference do not depend on where the project
    is installed."""
    path, samples = Path(text), Path(sample_path())
    if path.is_absolute() and path.is_relative_to(samples):
        return (Path("pipelines", "samples") / path.relative_to(samples)).as_posix()
    return text


def default_text(value: object) -> str:
    """A default as ``--help`` and the CLI reference show it: text as it would be typed
    (with escapes when it holds spaces or control characters), numbers and lists plainly."""
    if isinstance(value, str):
        value = _bundled(value)
        return value if value.isprintable() and value.strip() == value else repr(value)
    if isinstance(value, list | tuple):
        return ",".join(default_text(item) for item in value)
    if isinstance(value, dict):
        return ",".join(f"{key}={default_text(item)}" for key, item in value.items())
    return str(value)


def readable_help(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give ``parser`` and its subcommands' parsers ``HelpFormatter``; returns ``parser``."""
    parser.formatter_class = HelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                readable_help(sub)
    return parser
