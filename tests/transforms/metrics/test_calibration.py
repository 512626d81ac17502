import math

import pytest

from transforms.metrics.calibration import (
    bin_index,
    calibration_bins,
    expected_calibration_error,
)


def test_perfectly_calibrated_is_zero():
    # confidence 0.75 on 4 decisions, 3 right; confidence 1.0 on 2, both right
    ece = expected_calibration_error([0.75] * 4 + [1.0] * 2,
                                     [True, True, True, False, True, True])
    assert ece == pytest.approx(0.0)


def test_overconfident_gap_is_weighted_by_bin_size():
    # bin (0.9, 1.0]: 4 decisions at 1.0, half right -> gap 0.5, weight 4/5
    # bin (0.5, 0.6]: 1 decision at 0.6, right -> gap 0.4, weight 1/5
    ece = expected_calibration_error([1.0, 1.0, 1.0, 1.0, 0.6],
                                     [True, False, True, False, True])
    assert ece == pytest.approx(0.8 * 0.5 + 0.2 * 0.4)


def test_bins_are_equal_width_and_right_closed():
    assert bin_index(0.0) == 0
    assert bin_index(0.1) == 0
    assert bin_index(0.1000001) == 1
    assert bin_index(0.95) == 9
    assert bin_index(1.0) == 9
    assert [b["count"] for b in calibration_bins([(0.05, True), (0.55, False), (1.0, True)])
            ] == [1, 0, 0, 0, 0, 1, 0, 0, 0, 1]


def test_no_decisions_and_bad_input():
    assert expected_calibration_error([], []) is None
    with pytest.raises(ValueError):
        expected_calibration_error([1.2], [True])
    with pytest.raises(ValueError):
        expected_calibration_error([math.nan], [True])
    with pytest.raises(ValueError):
        expected_calibration_error([0.5, 0.5], [True])
