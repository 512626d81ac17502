"""Options every pipeline shares: release location and version, flags, split ratios.

Flex Templates pass every parameter as ``--name=value`` with underscores, so flags take a
value and every ``--dash-name`` also answers to ``--dash_name``. Every pipeline's
``build_parser`` ends with ``add_underscore_aliases``, which also makes the parser raise
``UsageError`` instead of exiting (``pipelines.cli.parsers``).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from pipelines.cli.parsers import raise_usage_errors, readable_help
from transforms.core.options import (
    OptionInfo,
    ReleaseOptions,
    dash_name,
    fraction,
    non_negative_float,
    non_negative_int,
    option_fields,
    parse_bool,
    positive_float,
    positive_int,
    resolve_version,
    split_ratios_option,
)

__all__ = ["PROGRESS_AUTO", "RUN_OPTIONS", "add_flag", "add_option", "add_release_arguments",
           "add_run_arguments", "add_underscore_aliases", "apply_progress_choice", "fraction",
           "non_negative_float", "non_negative_int", "parse_bool", "parse_progress",
           "positive_float", "positive_int", "resolve_version", "split_ratios_option"]


def add_flag(parser, name: str, help: str,  # noqa: A002 - argparse's name
             dest: str | None = None) -> None:
    """A boolean option usable as ``--name`` or ``--name=true|false``."""
    extra = {"dest": dest} if dest else {}
    parser.add_argument(name, nargs="?", const=True, default=False, type=parse_bool,
                        metavar="BOOL", help=help, **extra)


def add_option(parser, name: str, info: OptionInfo, default: Any, help: str,  # noqa: A002
               dest: str | None = None) -> None:
    """One declared option (``transforms.core.options.option``) on an argparse parser or
    group: a flag, a repeatable option or a value, with its parser and choices."""
    if info.flag:
        add_flag(parser, name, help, dest)
        return
    kwargs: dict[str, Any] = {"default": default, "help": help}
    if dest:
        kwargs["dest"] = dest
    if info.parse is not None:
        kwargs["type"] = info.parse
    if info.choices:
        kwargs["choices"] = info.choices
    if info.metavar:
        kwargs["metavar"] = info.metavar
    if info.repeat:
        kwargs["action"] = "append"
    parser.add_argument(name, **kwargs)


def add_underscore_aliases(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Accept ``--split_ratios`` for ``--split-ratios`` (Beam and Flex Template style) without
    listing it in ``--help`` (one spelling per option), show defaults in ``--help``
    (``parsers.HelpFormatter``), and raise ``UsageError`` on a bad command line instead of
    exiting."""
    for action in list(parser._actions):
        for option in list(action.option_strings):
            if option.startswith("--") and "-" in option[2:]:
                alias = "--" + option[2:].replace("-", "_")
                parser._option_string_actions.setdefault(alias, action)
    return raise_usage_errors(readable_help(parser))


def add_release_arguments(parser: argparse.ArgumentParser, dataset: str, version: str) -> None:
    """``--output``, ``--version``, ``--overwrite``, ``--skip-existing`` and ``--allow-empty``
    on a hand-built parser (``annotate import``), from ``ReleaseOptions`` (the fields every
    spec's options derive from), so the two cannot drift."""
    for field, info in option_fields(ReleaseOptions):
        text = info.help.replace("{dataset}", dataset).replace("{version}", version)
        add_option(parser, dash_name(field.name), info, help=text,
                   default=version if field.name == "version" else field.default)



PROGRESS_AUTO = "auto"
RUN_OPTIONS = ("progress", "verbose")  # how a run is shown, never recorded in the manifest


def parse_progress(value: str) -> str | float:
    """``--progress``: ``auto`` (a line every 2 s on a terminal, every 30 s otherwise),
    ``off`` (no lines; the counters still count) or a number of seconds between lines."""
    lowered = (value or PROGRESS_AUTO).strip().lower()
    if lowered == PROGRESS_AUTO:
        return PROGRESS_AUTO
    if lowered in ("off", "none", "no", "false", "never"):
        return 0.0
    try:
        seconds = float(lowered)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--progress must be auto, off or a number of seconds, got {value!r}") from None
    if seconds < 0:
        raise argparse.ArgumentTypeError(f"--progress must not be negative, got {value!r}")
    return seconds


def apply_progress_choice(choice: str | float) -> None:
    """Make ``--progress`` the interval of every progress line of this run: the launching
    process resolves it (``auto`` asks whether stderr is a terminal) into
    ``QA_DATASETS_PROGRESS_EVERY``, which worker processes it starts inherit."""
    from transforms.core.progress_interval import ENV_EVERY, QUIET_EVERY_S, TTY_EVERY_S

    if choice == PROGRESS_AUTO:
        try:
            interactive = sys.stderr.isatty()
        except (AttributeError, ValueError):
            interactive = False
        choice = TTY_EVERY_S if interactive else QUIET_EVERY_S
    os.environ[ENV_EVERY] = f"{float(choice):g}"


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """``--progress`` and ``--verbose``, which every pipeline accepts (added by
    ``parse_pipeline_args``); they change what is shown, never the release."""
    if any("--progress" in action.option_strings for action in parser._actions):
        return
    parser.add_argument("--progress", type=parse_progress, default=None, metavar="WHEN",
                        help="progress lines on stderr while the job runs (records done, "
                             "rate, ETA when the total is known): auto (default: every 2 s "
                             "on a terminal, every 30 s otherwise, e.g. in CI), off, or "
                             "seconds between lines. The same counts are Beam counters in "
                             "the qa_datasets.progress namespace")
    add_flag(parser, "--verbose", "also show INFO logs of third-party libraries (Apache "
                                  "Beam, bm25s, urllib3, ...), which are otherwise kept at "
                                  "WARNING")
