"""JNQ paragraph-level multi-label precision, recall and F1."""

from __future__ import annotations

import pytest

from transforms.metrics.jnq import jnq_metrics, paragraph_set


def test_paragraph_sets():
    assert paragraph_set(None) == set() == paragraph_set("NONE") == paragraph_set([])
    assert paragraph_set([3, "4", None, "NONE"]) == {"3", "4"}
    assert paragraph_set(7) == {"7"}
    with pytest.raises(ValueError):
        paragraph_set(3.5)


def test_micro_and_macro_by_hand():
    gold = {"q1": [1, 2], "q2": [5], "q3": [], "q4": None, "q5": [9]}
    predictions = {
        "q1": [1, 3],  # tp 1, fp 1, fn 1
        "q2": ["5"],  # tp 1 (ids compared as strings)
        "q3": [4, 6],  # NONE gold: 2 false positives only
        "q4": [],  # NONE predicted for NONE gold: nothing
        # q5 missing: fn 1
    }
    result = jnq_metrics(gold, predictions)
    assert (result["tp"], result["fp"], result["fn"]) == (2, 3, 2)
    assert result["micro_precision"] == pytest.approx(2 / 5)
    assert result["micro_recall"] == pytest.approx(2 / 4)
    assert result["micro_f1"] == pytest.approx(2 * 0.4 * 0.5 / 0.9)
    # precision over q1, q2, q3; recall over q1, q2, q5; F1 over q1, q2, q3, q5
    assert result["macro_precision"] == pytest.approx((0.5 + 1 + 0) / 3)
    assert result["macro_recall"] == pytest.approx((0.5 + 1 + 0) / 3)
    assert result["macro_f1"] == pytest.approx((0.5 + 1 + 0 + 0) / 4)
    assert result["n_questions"] == 5 and result["n_gold_none"] == 2
    assert result["n_predicted_none"] == 2 and result["n_missing_predictions"] == 1
    assert result["n_unknown_prediction_ids"] == 0


def test_none_gold_only_adds_false_positives():
    base = jnq_metrics({"a": [1]}, {"a": [1]})
    with_none = jnq_metrics({"a": [1], "b": []}, {"a": [1], "b": [2]})
    assert base["micro_recall"] == with_none["micro_recall"] == 1.0
    assert with_none["micro_precision"] == 0.5 and with_none["fn"] == 0
    abstained = jnq_metrics({"a": [1], "b": []}, {"a": [1], "b": "NONE"})
    assert abstained["micro_f1"] == abstained["macro_f1"] == 1.0


def test_unknown_ids_and_empty_input():
    result = jnq_metrics({1: [1]}, {"1": [1], "x": [2]})
    assert result["micro_f1"] == 1.0 and result["n_unknown_prediction_ids"] == 1
    empty = jnq_metrics({}, {})
    assert empty["micro_f1"] == 0.0 and empty["macro_f1"] == 0.0
