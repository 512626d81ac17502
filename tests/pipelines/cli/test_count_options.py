"""Typed numeric options: counts, rates and thresholds that would silently misbehave (a NaN
threshold matches nothing, a zero page size loops, 0 shards loses the stage) are usage errors
(issue 23 §23)."""

import argparse

import pytest

from pipelines import annotate, release
from pipelines.cli.errors import UsageError
from pipelines.cli.linking import add_linking_arguments
from pipelines.cli.options import (
    fraction,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
)


@pytest.mark.parametrize("value", ["0", "-5", "x", "1.5", ""])
def test_positive_int_refuses_what_is_not_at_least_one(value):
    with pytest.raises(argparse.ArgumentTypeError):
        positive_int(value)


def test_positive_int_and_non_negative_int_accept_their_range():
    assert positive_int("1") == 1 and positive_int("20000") == 20000
    assert non_negative_int("0") == 0
    with pytest.raises(argparse.ArgumentTypeError, match="0 or more"):
        non_negative_int("-1")


@pytest.mark.parametrize(("parse", "bad", "good"), [
    (positive_float, ["0", "-1", "nan", "inf", "x"], [("0.5", 0.5)]),
    (non_negative_float, ["-0.1", "nan", "-inf", "x"], [("0", 0.0), ("60", 60.0)]),
    (fraction, ["0", "1.01", "nan", "x"], [("1", 1.0), ("0.8", 0.8)]),
])
def test_float_options_refuse_nan_infinity_and_out_of_range(parse, bad, good):
    for value in bad:
        with pytest.raises(argparse.ArgumentTypeError):
            parse(value)
    for value, number in good:
        assert parse(value) == number


@pytest.mark.parametrize("argv", [
    ["leakage", "r", "--threshold", "nan"], ["leakage", "r", "--threshold", "2"],
    ["leakage", "r", "--num-perm", "0"], ["leakage", "r", "--examples", "-1"],
    ["browse", "r", "--page-size", "0"], ["browse", "r", "--limit", "-1"],
])
def test_release_command_numbers_are_checked_before_any_work(argv, capsys):
    assert release.main(argv) == 2
    assert "error: argument" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["export", "--release", "r", "--out", "o", "--tasks-per-file", "0"],
    ["simulate", "--release", "r", "--out", "o", "--workers", "0"],
    ["import", "--dataset", "jnq", "--input", "r", "--votes", "v", "--exist", "-1"],
])
def test_annotate_numbers_are_checked_before_any_work(argv):
    with pytest.raises(UsageError, match="argument --"):
        annotate.build_parser().parse_args(argv)


@pytest.mark.parametrize("argv", [["--shards", "0"], ["--requests-per-minute", "nan"]])
def test_linking_numbers_are_checked(argv):
    parser = argparse.ArgumentParser()
    add_linking_arguments(parser, "en")
    with pytest.raises(SystemExit):
        parser.parse_args(argv)
