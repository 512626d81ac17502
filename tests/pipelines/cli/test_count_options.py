"""positive_int and non_negative_int: counts that would silently misbehave are usage errors."""

import argparse

import pytest

from pipelines.cli.options import non_negative_int, positive_int


@pytest.mark.parametrize("value", ["0", "-5", "x", "1.5", ""])
def test_positive_int_refuses_what_is_not_at_least_one(value):
    with pytest.raises(argparse.ArgumentTypeError):
        positive_int(value)


def test_positive_int_and_non_negative_int_accept_their_range():
    assert positive_int("1") == 1 and positive_int("20000") == 20000
    assert non_negative_int("0") == 0
    with pytest.raises(argparse.ArgumentTypeError, match="0 or more"):
        non_negative_int("-1")
