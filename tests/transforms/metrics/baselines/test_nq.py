import gzip
import json

import pytest

from transforms.metrics.baselines.nq import first_paragraph_baseline, first_paragraph_predictions


def _example(example_id, long_answer_index):
    tokens = [{"token": t, "html_token": t.startswith("<"), "start_byte": i, "end_byte": i + 1}
              for i, t in enumerate(["<Table>", "x", "</Table>", "<P>", "a", "</P>",
                                     "<P>", "b", "</P>"])]
    candidates = [{"start_token": 0, "end_token": 3, "start_byte": 0, "end_byte": 3,
                   "top_level": True},
                  {"start_token": 3, "end_token": 6, "start_byte": 3, "end_byte": 6,
                   "top_level": True},
                  {"start_token": 6, "end_token": 9, "start_byte": 6, "end_byte": 9,
                   "top_level": True}]
    chosen = candidates[long_answer_index]
    annotation = {"annotation_id": 1, "yes_no_answer": "NONE", "short_answers": [],
                  "long_answer": {**{k: chosen[k] for k in ("start_token", "end_token",
                                                            "start_byte", "end_byte")},
                                  "candidate_index": long_answer_index}}
    return {"example_id": example_id, "document_tokens": tokens,
            "long_answer_candidates": candidates, "annotations": [annotation] * 5}


def test_first_paragraph_is_predicted_not_the_table():
    prediction = first_paragraph_predictions([_example(1, 1)])["predictions"][0]
    assert prediction["long_answer"]["start_token"] == 3


def test_baseline_scores_with_the_official_rule():
    scores = first_paragraph_baseline([_example(1, 1), _example(2, 2)])
    assert scores["n"] == 2
    assert scores["precision"] == pytest.approx(0.5) and scores["recall"] == pytest.approx(0.5)
    assert first_paragraph_baseline([{"annotations": []}]) == {}


@pytest.mark.realdata
def test_on_real_nq_dev_examples(shared_data):
    with gzip.open(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz", "rt") as handle:
        examples = [json.loads(line) for line in handle]
    scores = first_paragraph_baseline(examples)
    assert scores["n"] == 3 and 0 <= scores["f1"] <= 1
