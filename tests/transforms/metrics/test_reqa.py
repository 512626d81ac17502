"""ReQA MRR and R@N at the sentence and paragraph levels."""

from __future__ import annotations

import pytest

from transforms.metrics.reqa import (
    dedupe,
    paragraph_ranking,
    recall_at,
    reciprocal_rank,
    reqa_metrics,
)

# paragraphs: P1 = s1 s2 s3, P2 = s4 s5, P3 = s6
PARAGRAPH_OF = {"s1": "P1", "s2": "P1", "s3": "P1", "s4": "P2", "s5": "P2", "s6": "P3"}


def test_reciprocal_rank_and_recall():
    assert reciprocal_rank({"s3"}, ["s1", "s2", "s3"]) == 1 / 3
    assert reciprocal_rank({"s9"}, ["s1"]) == 0.0
    assert reciprocal_rank({"s1"}, []) == 0.0
    assert recall_at({"s1", "s4"}, ["s1", "s2", "s4"], 1) == 0.5
    assert recall_at({"s1", "s4"}, ["s1", "s2", "s4"], 5) == 1.0
    with pytest.raises(ValueError):
        recall_at(set(), ["s1"], 1)


def test_paragraph_ranking_keeps_first_rank():
    assert paragraph_ranking(["s4", "s1", "s5", "s2", "s6"], PARAGRAPH_OF) == ["P2", "P1", "P3"]
    assert dedupe(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


def test_metrics_by_hand():
    questions = {"q1": {"s2"}, "q2": {"s4", "s6"}, "q3": {"s5"}}
    rankings = {
        "q1": ["s1", "s3", "s2", "s4"],  # sentence rank 3; paragraph P1 at rank 1
        "q2": ["s5", "s1", "s6"] + [f"x{i}" for i in range(8)] + ["s4"],  # s6 at 3, s4 at 12
        "q3": ["s6"],  # never retrieved
    }
    result = reqa_metrics(questions, rankings, PARAGRAPH_OF)
    assert result["sentence_mrr"] == pytest.approx((1 / 3 + 1 / 3 + 0) / 3)
    assert result["sentence_r@1"] == 0.0
    assert result["sentence_r@5"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert result["sentence_r@10"] == pytest.approx((1 + 0.5 + 0) / 3)
    # paragraphs: q1 [P1, P2] gold {P1}; q2 [P2, P1, P3, x0..x7] gold {P2, P3}; q3 [P3] gold {P2}
    assert result["paragraph_mrr"] == pytest.approx((1 + 1 + 0) / 3)
    assert result["paragraph_r@1"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert result["paragraph_r@5"] == pytest.approx((1 + 1 + 0) / 3)
    assert result["n_unknown_candidate_ids"] == 8
    assert result["n_questions"] == 3 and result["n_missing_rankings"] == 0


def test_unknown_ranked_ids_keep_their_rank():
    result = reqa_metrics({"q": {"s4"}}, {"q": ["zz", "s4"]}, PARAGRAPH_OF)
    assert result["sentence_mrr"] == 0.5 and result["paragraph_mrr"] == 0.5


def test_repeated_sentences_count_once():
    result = reqa_metrics({"q": {"s1", "s2"}}, {"q": ["s1", "s1", "s1", "s1", "s1", "s2"]})
    assert result["sentence_r@5"] == 1.0
    assert "paragraph_mrr" not in result  # no paragraph map: sentence level only


def test_bookkeeping():
    questions = {"q1": {"s1"}, "q2": set(), "q3": {"s4"}}
    result = reqa_metrics(questions, {"q1": ["s1"], "q9": ["s2"]}, PARAGRAPH_OF)
    assert result["n_questions"] == 2 and result["n_questions_without_correct"] == 1
    assert result["n_missing_rankings"] == 1 and result["n_unknown_prediction_ids"] == 1
    assert result["sentence_mrr"] == 0.5 and result["paragraph_r@10"] == 0.5
    assert set(result) == {
        "sentence_mrr", "sentence_r@1", "sentence_r@5", "sentence_r@10", "paragraph_mrr",
        "paragraph_r@1", "paragraph_r@5", "paragraph_r@10", "n_unknown_candidate_ids",
        "n_questions", "n_questions_without_correct", "n_missing_rankings",
        "n_unknown_prediction_ids"}


def test_custom_cutoffs_and_empty_input():
    result = reqa_metrics({"q": {"s2"}}, {"q": ["s1", "s2"]}, ks=(2,))
    assert result["sentence_r@2"] == 1.0
    assert reqa_metrics({}, {})["sentence_mrr"] == 0.0
