"""Options every pipeline shares: release location and version, flags, split ratios.

Flex Templates pass every parameter as ``--name=value`` with underscores, so flags take a
value and every ``--dash-name`` also answers to ``--dash_name``. Every pipeline's
``build_parser`` ends with ``add_underscore_aliases``, which also makes the parser raise
``UsageError`` instead of exiting (``pipelines.cli.parsers``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from datetime import UTC, datetime

from filters.text.splits import parse_split_ratios
from pipelines.cli.parsers import raise_usage_errors


def parse_bool(value: str | bool) -> bool:
    """``true/false/1/0/yes/no`` (Flex Templates pass every parameter as ``--name=value``)."""
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes", "y", "on"):
        return True
    if lowered in ("false", "0", "no", "n", "off", ""):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {value!r}")


def add_flag(parser, name: str, help: str) -> None:  # noqa: A002 - argparse's name
    """A boolean option usable as ``--name`` or ``--name=true|false``."""
    parser.add_argument(name, nargs="?", const=True, default=False, type=parse_bool,
                        metavar="BOOL", help=help)


def add_underscore_aliases(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Accept ``--split_ratios`` for ``--split-ratios`` (Beam and Flex Template style), and
    raise ``UsageError`` on a bad command line instead of exiting."""
    for action in list(parser._actions):
        for option in list(action.option_strings):
            alias = option.replace("-", "_")
            if option.startswith("--") and "-" in option[2:] and alias != option:
                alias = "--" + option[2:].replace("-", "_")
                action.option_strings.append(alias)
                parser._option_string_actions[alias] = action
    return raise_usage_errors(parser)


def split_ratios_option(spec: str) -> tuple[tuple[str, float], ...]:
    """argparse ``type`` of ``--split-ratios``: names and normalized ratios, or a usage error."""
    try:
        return parse_split_ratios(spec)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def positive_int(value: str) -> int:
    """argparse ``type`` of a count that must be at least 1 (``--max-rows-per-shard``)."""
    return _bounded_int(value, 1, "at least 1")


def non_negative_int(value: str) -> int:
    """argparse ``type`` of a count that may be 0 but never negative."""
    return _bounded_int(value, 0, "0 or more")


def positive_float(value: str) -> float:
    """argparse ``type``: a finite number > 0 (``nan`` and ``inf`` are refused)."""
    return _bounded_float(value, lambda x: x > 0, "a finite number > 0")


def non_negative_float(value: str) -> float:
    """argparse ``type``: a finite number >= 0 (a pause, a wait)."""
    return _bounded_float(value, lambda x: x >= 0, "a finite number >= 0")


def fraction(value: str) -> float:
    """argparse ``type``: a number in (0, 1] (a similarity threshold)."""
    return _bounded_float(value, lambda x: 0 < x <= 1, "a number in (0, 1]")


def _bounded_float(value: str, accept, rule: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected {rule}, got {value!r}") from None
    if not math.isfinite(number) or not accept(number):
        raise argparse.ArgumentTypeError(f"expected {rule}, got {value!r}")
    return number


def _bounded_int(value: str, lowest: int, rule: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected an integer {rule}, got {value!r}") from None
    if number < lowest:
        raise argparse.ArgumentTypeError(f"must be {rule}, got {number}")
    return number


def resolve_version(version: str, now: datetime | None = None) -> str:
    """``auto`` -> the UTC launch date ``YYYY.MM.DD`` (the rule for scheduled releases);
    any other value is used as given."""
    if version != "auto":
        return version
    return (now or datetime.now(UTC)).strftime("%Y.%m.%d")


def add_release_arguments(parser: argparse.ArgumentParser, dataset: str, version: str) -> None:
    """``--output``, ``--version``, ``--overwrite``, ``--skip-existing`` and ``--allow-empty``
    for every pipeline."""
    parser.add_argument("--output", default="releases",
                        help=f"release root (local or gs://...); the release goes to "
                             f"<output>/{dataset}/<version>/")
    parser.add_argument("--version", default=version,
                        help=f"dataset version to write (default {version}); 'auto' names it "
                             "by the UTC launch date, YYYY.MM.DD")
    add_flag(parser, "--overwrite", "replace an existing release of the same version")
    add_flag(parser, "--skip-existing", "when the version is already published, do nothing "
                                        "and exit 0 (for retried scheduled launches)")
    add_flag(parser, "--allow-empty", "publish the release even when the job kept no rows "
                                      "(otherwise an empty result fails with exit code 4 and "
                                      "nothing is published)")



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
    from transforms.core.progress import ENV_EVERY, QUIET_EVERY_S, TTY_EVERY_S

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
