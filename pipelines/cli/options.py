"""Options every pipeline shares: release location and version, flags, split ratios.

Flex Templates pass every parameter as ``--name=value`` with underscores, so flags take a
value and every ``--dash-name`` also answers to ``--dash_name``. Every pipeline's
``build_parser`` ends with ``add_underscore_aliases``, which also makes the parser raise
``UsageError`` instead of exiting (``pipelines.cli.parsers``).
"""

from __future__ import annotations

import argparse
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

