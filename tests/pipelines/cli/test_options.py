"""Shared options: flags with values, underscore aliases, usage errors, the auto version."""

import argparse
from datetime import UTC, datetime

import pytest

from pipelines.cli.errors import UsageError
from pipelines.cli.options import (
    add_flag,
    add_release_arguments,
    add_underscore_aliases,
    parse_bool,
    resolve_version,
)


def _parser():
    parser = argparse.ArgumentParser()
    add_release_arguments(parser, "toy", "1.0.0")
    add_flag(parser, "--keep-rejected", "help")
    parser.add_argument("--split-ratios", default="80/10/10")
    return add_underscore_aliases(parser)


def test_flags_accept_bare_and_valued_forms():
    parser = _parser()
    assert parser.parse_args([]).overwrite is False
    assert parser.parse_args(["--overwrite"]).overwrite is True
    assert parser.parse_args(["--overwrite=false"]).overwrite is False
    assert parser.parse_args(["--keep_rejected=true"]).keep_rejected is True
    with pytest.raises(UsageError, match="^argument --overwrite: expected true or false, "
                                         "got 'maybe'$"):
        parser.parse_args(["--overwrite=maybe"])
    assert parse_bool("Yes") and not parse_bool("0")


def test_underscore_aliases():
    args = _parser().parse_args(["--split_ratios", "90/5/5", "--skip_existing"])
    assert args.split_ratios == "90/5/5" and args.skip_existing is True


def test_bad_command_lines_raise_usage_errors_not_system_exit():
    parser = _parser()
    with pytest.raises(UsageError, match="^unrecognized arguments: --nope$"):
        parser.parse_args(["--nope"])
    with pytest.raises(UsageError, match="^something is wrong$"):
        parser.error("something is wrong")
    with pytest.raises(SystemExit) as stop:  # --help still prints and exits 0
        parser.parse_args(["--help"])
    assert stop.value.code == 0


def test_auto_version_is_the_utc_launch_date():
    moment = datetime(2026, 11, 22, 1, 2, tzinfo=UTC)
    assert resolve_version("auto", moment) == "2026.11.22"
    assert resolve_version("1.2.3", moment) == "1.2.3"

