"""Warnings about empty or nearly empty splits, for every builder (issue 37 §3)."""

from transforms.core.split_warnings import (
    FEW_ROWS,
    small_splits,
    split_card_note,
    split_warning_lines,
)
from transforms.core.summary import empty_release_warning

NQ_DEFAULT = {"rows_per_split": {"train": 30, "dev": 0, "test": 1},
              "options": {"split_ratios": {"train": 0.95, "dev": 0.025, "test": 0.025}}}


def test_empty_and_tiny_splits_are_named_with_how_to_choose_ratios():
    assert small_splits(NQ_DEFAULT) == [("dev", 0), ("test", 1)]
    (line,) = split_warning_lines(NQ_DEFAULT)
    assert "WARNING: small splits: dev 0 rows, test 1 row" in line
    assert "--split-ratios train=0.8,dev=0.1,test=0.1" in line and "31 x r rows" in line
    note = split_card_note(NQ_DEFAULT)
    assert "`dev` (0 rows)" in note and "load_release" in note


def test_every_builders_summary_gets_the_warning_through_the_shared_line():
    assert empty_release_warning(NQ_DEFAULT) == split_warning_lines(NQ_DEFAULT)
    whole = {"rows_per_split": {"train": 40, "dev": FEW_ROWS, "test": FEW_ROWS}}
    assert empty_release_warning(whole) == [] and split_card_note(whole) == ""


def test_an_empty_release_gets_only_the_empty_release_warning():
    empty = {"rows_per_split": {"train": 0, "dev": 0}}
    (line,) = empty_release_warning(empty)
    assert "EMPTY" in line and small_splits(empty) == []


def test_too_few_rows_for_the_splits_asks_for_more_input_or_fewer_splits():
    tiny = {"rows_per_split": {"train": 2, "dev": 1, "test": 1},
            "options": {"split_ratios": {}}}
    assert "4 rows cannot give 3 splits" in split_warning_lines(tiny)[0]
    fixed = {"rows_per_split": {"train": 50, "test": 1}}
    assert "splits come from its source" in split_warning_lines(fixed)[0]
