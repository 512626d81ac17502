"""JNQ long-answer extraction scored as paragraph-level multi-label classification.

In JNQ (Uematsu, Wang, Kawahara, Shibata: "A Benchmark Suite of Japanese Natural Questions",
§3.3, §5) a question's long answer is chosen among the document's candidate paragraphs, and a
question may have several gold paragraphs, or none (NONE). A system predicts a set of paragraph
ids per question (the empty set, ``None`` or ``"NONE"`` predict NONE).

* **micro**: true positives, false positives and false negatives are summed over all
  (question, paragraph) pairs; P = TP / (TP + FP), R = TP / (TP + FN), F1 their harmonic mean.
  A NONE-gold question thus only adds its predicted paragraphs as false positives, and a
  correctly predicted NONE adds nothing.
* **macro**: per question P, R and F1, then averaged. Precision is averaged over the questions
  with a non-empty prediction, recall over those with non-empty gold, and F1 over those where
  either is non-empty (a NONE-gold question with predictions has F1 0: its false positives);
  questions with NONE on both sides are left out, as in micro.

Paragraph and question ids are compared as strings (``3`` and ``"3"`` are the same paragraph).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

NONE = "NONE"


def paragraph_set(value: Any) -> set[str]:
    """The paragraph ids of a gold or predicted value (``None``/``"NONE"``/``[]``: empty)."""
    if value is None or value == NONE:
        return set()
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return {str(value)}
    if not isinstance(value, Collection):
        raise ValueError(f"paragraph ids must be a list, not {value!r}")
    return {str(item) for item in value if item is not None and item != NONE}


def _divide(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def _f1(precision: float, recall: float) -> float:
    return _divide(2 * precision * recall, precision + recall)


def jnq_metrics(gold: Mapping[Any, Any], predictions: Mapping[Any, Any]
                ) -> dict[str, float | int]:
    """Micro and macro paragraph P/R/F1 over the gold questions (no prediction: NONE).

    Keys: ``micro_precision``, ``micro_recall``, ``micro_f1``, ``macro_precision``,
    ``macro_recall``, ``macro_f1``, ``tp``, ``fp``, ``fn``, ``n_questions``, ``n_gold_none``,
    ``n_predicted_none``, ``n_missing_predictions``, ``n_unknown_prediction_ids``.
    """
    preds = {str(qid): value for qid, value in predictions.items()}
    tp = fp = fn = gold_none = predicted_none = missing = 0
    precisions: list[float] = []
    recalls: list[float] = []
    f1s: list[float] = []
    for qid, value in gold.items():
        qid = str(qid)
        gold_ids = paragraph_set(value)
        if qid not in preds:
            missing += 1
        predicted = paragraph_set(preds.get(qid))
        hits = len(gold_ids & predicted)
        tp += hits
        fp += len(predicted) - hits
        fn += len(gold_ids) - hits
        gold_none += not gold_ids
        predicted_none += not predicted
        precision = _divide(hits, len(predicted))
        recall = _divide(hits, len(gold_ids))
        if predicted:
            precisions.append(precision)
        if gold_ids:
            recalls.append(recall)
        if predicted or gold_ids:
            f1s.append(_f1(precision, recall))
    micro_p, micro_r = _divide(tp, tp + fp), _divide(tp, tp + fn)
    return {
        "micro_precision": micro_p, "micro_recall": micro_r, "micro_f1": _f1(micro_p, micro_r),
        "macro_precision": _divide(sum(precisions), len(precisions)),
        "macro_recall": _divide(sum(recalls), len(recalls)),
        "macro_f1": _divide(sum(f1s), len(f1s)),
        "tp": tp, "fp": fp, "fn": fn, "n_questions": len(gold), "n_gold_none": gold_none,
        "n_predicted_none": predicted_none, "n_missing_predictions": missing,
        "n_unknown_prediction_ids": len(set(preds) - {str(q) for q in gold}),
    }
