"""``--help`` of the commands whose parsers import Apache Beam, printed without importing it.

A builder's options are declared next to its Beam stages (``transforms/<dataset>/spec.py``),
so making its parser imports Beam, which took most of ``--help``'s 1.5-3.5 s. The help of
those commands (the builders, ``annotate``, ``release``, ``evaluate`` and their subcommands,
``qa-build``) is stored in ``help.json``, written from the live parsers at ``WIDTH`` columns
by ``python -m pipelines.cli.reference --write`` with the CLI reference, and checked by
``--check`` (and the tests), so it cannot go stale unnoticed. This module imports only the
standard library (and ``transforms.core.interrupt``, which does too).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from transforms.core.interrupt import stop_before_the_run

HELP_FILE = Path(__file__).resolve().with_name("help.json")
HELP_FLAGS = ("-h", "--help")


def asks_for_help(argv: list[str]) -> bool:
    """Whether argparse would print help for ``argv`` (``-h``/``--help`` before ``--``)."""
    for word in argv:
        if word == "--":
            return False
        if word in HELP_FLAGS:
            return True
    return False


def stored_help(program: str, argv: list[str]) -> str | None:
    """The stored help ``program argv`` asks for (a subcommand's when ``argv`` names one),
    or None when ``argv`` asks for none or none is stored."""
    if not asks_for_help(argv):
        return None
    try:
        stored = json.loads(HELP_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    first = next((word for word in argv if not word.startswith("-")), None)
    if first is not None and f"{program} {first}" in stored:
        return stored[f"{program} {first}"]
    if first is not None and any(key.startswith(f"{program} ") for key in stored):
        return None  # an unknown subcommand: the parser reports it
    return stored.get(program)


def exit_with_stored_help(program: str, argv: list[str] | None = None) -> None:
    """Print the stored help and exit 0 when ``argv`` asks for it; else return. The first
    call of every command, so it also makes SIGINT and SIGTERM end the command with one line
    until its run takes them over (``interrupt.stop_before_the_run``)."""
    stop_before_the_run()
    text = stored_help(program, sys.argv[1:] if argv is None else argv)
    if text is not None:
        sys.stdout.write(text)
        sys.exit(0)
