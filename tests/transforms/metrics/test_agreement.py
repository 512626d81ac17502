import pytest

from transforms.metrics.agreement import fleiss_kappa, worker_agreement

# Fleiss (1971) as worked on Wikipedia ("Fleiss' kappa", worked example): 10 items, 14 raters,
# 5 categories; P_bar = 0.378, P_e = 0.213, kappa = 0.210.
COUNTS = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]


def labels(row):
    return [category for category, count in enumerate(row, start=1) for _ in range(count)]


def test_fleiss_textbook_example():
    assert fleiss_kappa([labels(row) for row in COUNTS]) == pytest.approx(0.20993, abs=1e-4)


def test_perfect_agreement_and_chance():
    assert fleiss_kappa([["a"] * 3, ["b"] * 3, ["a"] * 3]) == pytest.approx(1.0)
    assert fleiss_kappa([["a", "b"], ["a", "b"]]) == pytest.approx(-1.0)


def test_unequal_raters_and_undefined_cases():
    assert fleiss_kappa([["a", "a", "a", "a", "a"], ["b", "b"], ["x"]]) == pytest.approx(1.0)
    # the single-rater item is left out: equal to the two-item computation
    assert fleiss_kappa([["a", "a", "b"], ["b", "b"], ["c"]]) == pytest.approx(
        fleiss_kappa([["a", "a", "b"], ["b", "b"]]))
    # P_bar = (1/3 + 1) / 2 = 2/3; p_a = 2/5, p_b = 3/5, P_e = 13/25 -> (2/3-13/25)/(12/25)
    assert fleiss_kappa([["a", "a", "b"], ["b", "b"]]) == pytest.approx(
        (2 / 3 - 13 / 25) / (12 / 25))
    assert fleiss_kappa([]) is None
    assert fleiss_kappa([["a"], ["b"]]) is None
    assert fleiss_kappa([["a", "a"], ["a", "a", "a"]]) is None


def test_worker_agreement_singles_out_a_spammer():
    aggregate = {"i1": True, "i2": False, "i3": True}
    judgments = [("good", "i1", True), ("good", "i2", False), ("good", "i3", True),
                 ("spam", "i1", False), ("spam", "i2", True), ("spam", "i3", True),
                 ("spam", "i4", True), ("away", "i4", False)]
    result = worker_agreement(judgments, aggregate)
    assert list(result) == ["away", "good", "spam"]
    assert result["good"] == {"judgments": 3, "compared": 3, "agreement": 1.0}
    assert result["spam"] == {"judgments": 4, "compared": 3, "agreement": pytest.approx(1 / 3)}
    assert result["away"] == {"judgments": 1, "compared": 0, "agreement": None}
