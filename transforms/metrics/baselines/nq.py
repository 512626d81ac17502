"""The NQ "first paragraph" baseline (NQ §5, Table 3: F1 27.8 on the long answers of NQ dev).

The prediction for every example is its first top-level ``<P>`` long-answer candidate (score
1, no short answer); examples without a paragraph candidate predict null. Scored with
``transforms.metrics.nq`` like any model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: ``evaluate baseline nq --method`` names -> the card's row names (``stats.json``).
METHODS: dict[str, str] = {"first-paragraph": "first paragraph"}


def first_paragraph_predictions(examples: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Official NQ predictions JSON of the first-paragraph baseline."""
    predictions = []
    for example in examples:
        tokens = example["document_tokens"]
        long_answer = {"start_token": -1, "end_token": -1, "start_byte": -1, "end_byte": -1}
        for candidate in example["long_answer_candidates"]:
            if candidate["top_level"] and tokens[candidate["start_token"]]["token"] == "<P>":
                long_answer = {k: candidate[k] for k in long_answer}
                break
        predictions.append({"example_id": example["example_id"], "long_answer": long_answer,
                            "long_answer_score": 1.0, "short_answers": [],
                            "short_answers_score": 0.0, "yes_no_answer": "NONE"})
    return {"predictions": predictions}


def first_paragraph_baseline(examples: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Long-answer F1/P/R of the baseline on annotated examples (None when none are)."""
    from transforms.metrics.nq import gold_from_examples, nq_metrics, predictions_from_json

    annotated = [e for e in examples if e.get("annotations")]
    if not annotated:
        return {}
    scores = nq_metrics(gold_from_examples(annotated),
                        predictions_from_json(first_paragraph_predictions(annotated)))
    return {"n": len(annotated), "f1": scores["long-best-threshold-f1"],
            "precision": scores["long-best-threshold-precision"],
            "recall": scores["long-best-threshold-recall"]}
