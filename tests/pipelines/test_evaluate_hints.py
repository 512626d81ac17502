"""``evaluate`` names the likely cause when predictions match no gold id (``hint:`` lines
after the error, exit 2) or score zero (``warning:`` lines, exit 0): the mistakes of a first
attempt, made on the baselines' predictions of the shared sample releases."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import pytest

from pipelines import evaluate

SPAN_KEYS = ("start_token", "end_token", "start_byte", "end_byte")


def run(capsys, *argv) -> tuple[int, dict | None, str]:
    code = evaluate.main(list(argv))
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else None, captured.err


@pytest.fixture()
def baseline(capsys, tmp_path, sample_releases):
    """``baseline(task, release, split)``: the baseline's predictions (parsed)."""
    def write(task: str, release: str, split: str | None = None) -> dict:
        out = tmp_path / f"{task}-{split}.json"
        argv = ["baseline", task, "--gold", str(sample_releases[release]), "--out", str(out)]
        assert evaluate.main(argv + (["--split", split] if split else [])) == 0
        capsys.readouterr()
        return json.loads(out.read_text())
    return write


def score(capsys, tmp_path, task, gold, predictions, *options) -> tuple[int, dict | None, str]:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(predictions))
    return run(capsys, task, "--gold", str(gold), "--predictions", str(path), *options)


def nq_with(predictions: dict, change) -> dict:
    return {"predictions": [change(p) for p in predictions["predictions"]]}


def nq_hitting(predictions: dict, release, split: str) -> dict:
    """The baseline's predictions with each example that has a gold long answer (two of
    its annotations or more agree, NQ §5) predicting that one: what scores above zero on
    the small sample whatever its simulated annotations are."""
    gold = {}
    for path in sorted(release.glob(f"nq_original/{split}/*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                example = json.loads(line)
                spans = Counter(json.dumps({k: a["long_answer"][k] for k in SPAN_KEYS})
                                for a in example["annotations"]
                                if a["long_answer"]["start_token"] >= 0)
                if spans and spans.most_common(1)[0][1] >= 2:
                    gold[str(example["example_id"])] = json.loads(spans.most_common(1)[0][0])
    assert gold, f"the sample's {split} split has no gold long answer"
    return nq_with(predictions, lambda p: {**p, "long_answer": gold.get(
        str(p["example_id"]), p["long_answer"]), "long_answer_score": 1.0})


@pytest.mark.parametrize("change, message", [
    (lambda p: {**p, "example_id": float(p["example_id"])}, "floating-point numbers"),
])
def test_nq_ids_that_match_nothing(capsys, tmp_path, sample_releases, baseline, change,
                                   message):
    predictions = nq_with(baseline("nq", "nq_annotated", "dev"), change)
    code, _, err = score(capsys, tmp_path, "nq", sample_releases["nq_annotated"], predictions,
                         "--split", "dev")
    assert code == 2 and err.startswith("error: none of the") and f"hint: the prediction ids "\
        f"are {message}" in err


def test_nq_predictions_of_another_split(capsys, tmp_path, sample_releases, baseline):
    predictions = baseline("nq", "nq_annotated", "dev")
    code, _, err = score(capsys, tmp_path, "nq", sample_releases["nq_annotated"], predictions,
                         "--split", "test")
    assert code == 2 and "hint: 6 of the prediction ids are ids of split 'dev': pass --split "\
        "dev" in err


@pytest.mark.parametrize("change, message", [
    (lambda p: {**p, "long_answer": {"candidate_index": 3}}, "give only candidate_index"),
    (lambda p: {**p, "long_answer": {"start_byte": p["long_answer"]["start_token"],
                                     "end_byte": p["long_answer"]["end_token"]}},
     "token offsets in start_byte/end_byte"),
    (lambda p: {**p, "long_answer": {"start": 1, "end": 5}}, "keys end, start are not read"),
    (lambda p: {k: v for k, v in p.items() if k != "long_answer"}, "no prediction has a "),
    (lambda p: {**p, "long_answer": {**p["long_answer"], "end_token": p["long_answer"][
        "end_token"] - 1, "end_byte": -1, "start_byte": -1}}, "not a sentence inside one"),
])
def test_nq_zero_scores_name_the_cause(capsys, tmp_path, sample_releases, baseline, change,
                                       message):
    hitting = nq_hitting(baseline("nq", "nq_annotated", "dev"),
                         sample_releases["nq_annotated"], "dev")
    predictions = nq_with(hitting, change)
    code, result, err = score(capsys, tmp_path, "nq", sample_releases["nq_annotated"],
                              predictions, "--split", "dev")
    assert code == 0 and result["long-best-threshold-f1"] == 0
    assert "warning: long-answer F1 is 0: " in err and message in err


def test_nq_train_needs_threshold_one(capsys, tmp_path, sample_releases, baseline):
    predictions = baseline("nq", "nq_annotated", "train")
    code, result, err = score(capsys, tmp_path, "nq", sample_releases["nq_annotated"],
                              predictions, "--split", "train")
    assert code == 0 and result["long-best-threshold-f1"] == 0
    assert "no gold example has a long answer at --threshold 2" in err
    code, result, err = score(capsys, tmp_path, "nq", sample_releases["nq_annotated"],
                              predictions, "--split", "train", "--threshold", "1")
    assert code == 0 and "threshold" not in err


def test_a_working_baseline_prints_no_hint(capsys, tmp_path, sample_releases, baseline):
    for task, release, split in (("nq", "nq_annotated", "dev"), ("nlquad", "nlquad", "dev"),
                                 ("jnq", "jnq_annotated", "test"), ("reqa", "reqa_squad", None)):
        predictions = baseline(task, release, split)
        if task == "nq":  # what the baseline picks may be no annotator's choice on 6 examples
            predictions = nq_hitting(predictions, sample_releases[release], split)
        code, _, err = score(capsys, tmp_path, task, sample_releases[release], predictions,
                             *(["--split", split] if split else []))
        assert code == 0 and err == "", (task, err)


def test_nlquad_hints(capsys, tmp_path, sample_releases, baseline):
    gold = sample_releases["nlquad"]
    windows = baseline("nlquad", "nlquad", "dev")
    as_characters = {k: {"answer_start": v["answer_word_start"],
                         "answer_end": v["answer_word_end"]} for k, v in windows.items()}
    code, result, err = score(capsys, tmp_path, "nlquad", gold, as_characters, "--split", "dev")
    assert code == 0 and result["iou"] == 0
    assert "name them answer_word_start/answer_word_end" in err
    code, _, err = score(capsys, tmp_path, "nlquad", gold, {"predictions": windows},
                         "--split", "dev")
    assert code == 2 and "hint: the file wraps everything in 'predictions'" in err
    code, _, err = score(capsys, tmp_path, "nlquad", gold, windows, "--split", "train")
    assert code == 2 and "ids of split 'dev': pass --split dev" in err
    code, _, err = score(capsys, tmp_path, "nlquad", gold, {k: "" for k in windows},
                         "--split", "dev")
    assert code == 0 and "every prediction is the empty answer" in err
    code, _, err = score(capsys, tmp_path, "nlquad", gold,
                         {k: "words found nowhere zqx" for k in windows}, "--split", "dev")
    assert code == 0 and "none of the answer texts occurs in its context" in err
    code, _, err = score(capsys, tmp_path, "nlquad", gold,
                         {k: {"answer_word_start": 0, "answer_word_end": 10 ** 6}
                          for k in windows}, "--split", "dev")
    assert code == 2 and "hint: answer_word_start/answer_word_end index the words" in err


def test_reqa_hints(capsys, tmp_path, sample_releases, baseline):
    import pyarrow.parquet as pq

    gold = sample_releases["reqa_squad"]
    rankings = baseline("reqa", "reqa_squad")
    questions = {r["qid"]: r["question"]
                 for r in pq.read_table(gold / "questions").to_pylist()}
    code, _, err = score(capsys, tmp_path, "reqa", gold,
                         {questions[q]: r for q, r in rankings.items()})
    assert code == 2 and "hint: the keys are question texts" in err
    paragraph = {r["candidate_id"]: r["paragraph_id"]
                 for r in pq.read_table(gold / "candidates").to_pylist()}
    code, _, err = score(capsys, tmp_path, "reqa", gold,
                         {q: [paragraph[c] for c in r] for q, r in rankings.items()})
    assert code == 0 and "the rankings hold paragraph ids" in err
    code, _, err = score(capsys, tmp_path, "reqa", gold,
                         {q: [str(i) for i in range(5)] for q in rankings})
    assert code == 0 and "the ranked ids are numbers" in err


def test_jnq_hints(capsys, tmp_path, sample_releases, baseline):
    gold = sample_releases["jnq_annotated"]
    predictions = baseline("jnq", "jnq_annotated", "test")
    code, _, err = score(capsys, tmp_path, "jnq", gold, {q: [] for q in predictions},
                         "--split", "test")
    assert code == 0 and "warning: micro F1 is 0: every prediction is NONE" in err
    code, _, err = score(capsys, tmp_path, "jnq", gold, {q: [99] for q in predictions},
                         "--split", "test")
    assert code == 0 and "not candidate ranks or list positions" in err
    code, _, err = score(capsys, tmp_path, "jnq", gold, {"q-unknown": [1]}, "--split", "test")
    assert code == 2 and "hint: gold ids look like" in err
