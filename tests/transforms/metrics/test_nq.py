"""NQ metrics: our implementation against the official ``natural_questions.nq_eval``."""

from __future__ import annotations

import gzip
import json
import math
import random

import pytest
from absl import flags
from natural_questions import eval_utils, nq_eval

from transforms.metrics import nq as eval_nq
from transforms.metrics.nq import (
    METRIC_KEYS,
    AnswerStat,
    NqLabel,
    Span,
    best_threshold,
    gold_from_examples,
    nq_metrics,
    predictions_from_json,
    score_answers,
    span_sets_equal,
    spans_equal,
)

NULL = {"start_byte": -1, "end_byte": -1, "start_token": -1, "end_token": -1}


def span(start: int, end: int, *, tokens_only: bool = False) -> dict:
    """Token span [start, end); bytes are 10x the tokens unless ``tokens_only``."""
    if tokens_only:
        return {"start_byte": -1, "end_byte": -1, "start_token": start, "end_token": end}
    return {"start_byte": start * 10, "end_byte": end * 10, "start_token": start,
            "end_token": end}


def annotation(long: dict | None = None, short: list[dict] = (), yes_no: str = "NONE") -> dict:
    return {"annotation_id": 1, "long_answer": {**(long or NULL), "candidate_index": -1},
            "short_answers": list(short), "yes_no_answer": yes_no}


def example(example_id: int, annotations: list[dict]) -> dict:
    return {"example_id": example_id, "question_text": f"q{example_id}", "annotations": annotations,
            "long_answer_candidates": [], "document_tokens": []}


L1, L3A, L3B, L5, L6, L8 = span(10, 20), span(50, 60), span(70, 80), span(90, 110), \
    span(120, 130), span(200, 220)
S5A, S5B = span(100, 102), span(104, 106)
L7 = span(140, 150, tokens_only=True)

# 5-way annotations with various null/non-null patterns
SYNTHETIC = [
    # long by all five; short span by three, null by two
    example(1, [annotation(L1, [span(12, 14)])] * 3 + [annotation(L1)] * 2),
    # a single non-null long answer: no gold long at threshold 2, gold long at threshold 1
    example(2, [annotation(span(30, 40), [span(31, 32)])] + [annotation()] * 4),
    # two different long answers (2 + 1 annotators); yes/no short answer by two annotators
    example(3, [annotation(L3A, yes_no="YES")] * 2 + [annotation(L3B)] + [annotation()] * 2),
    # all null
    example(4, [annotation()] * 5),
    # short answer sets of several spans: {A, B} twice, {A} once
    example(5, [annotation(L5, [S5A, S5B])] * 2 + [annotation(L5, [S5A])]
            + [annotation()] * 2),
    # one yes/no ("NO") and one short span: two non-null short answers in total
    example(6, [annotation(L6, yes_no="NO"), annotation(L6, [span(122, 124)])]
            + [annotation()] * 3),
    # token-only gold spans
    example(7, [annotation(L7, [span(141, 143, tokens_only=True)])] * 2 + [annotation()] * 3),
    # three yes/no answers that disagree, with long answers by four annotators
    example(8, [annotation(L8, yes_no="YES"), annotation(L8, yes_no="NO"),
                annotation(L8, yes_no="NO"), annotation(L8), annotation()]),
]

CORRECT = {
    1: (L1, [span(12, 14)], "NONE"), 2: (None, [], "NONE"), 3: (L3B, [], "YES"),
    4: (None, [], "NONE"), 5: (L5, [S5B, S5A], "NONE"), 6: (L6, [span(122, 124)], "NONE"),
    7: ({**L7, "start_byte": 1, "end_byte": 2}, [span(141, 143)], "NONE"), 8: (L8, [], "NO"),
}
WRONG = {i: (span(300 + i, 310 + i), [span(301 + i, 302 + i)], "NONE") for i in range(1, 9)}


def prediction(example_id: int, long: dict | None, short: list[dict], yes_no: str,
               long_score: float = 1.0, short_score: float = 1.0) -> dict:
    return {"example_id": example_id, "long_answer": long or NULL, "long_answer_score": long_score,
            "short_answers": short, "short_answers_score": short_score, "yes_no_answer": yes_no}


def predictions_of(answers: dict[int, tuple], scores: dict[int, tuple[float, float]] | None = None
                   ) -> dict:
    scores = scores or {}
    return {"predictions": [prediction(i, *answer, *scores.get(i, (1.0, 1.0)))
                            for i, answer in answers.items()]}


def write_gold(path, examples: list[dict]) -> str:
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for item in examples:
            handle.write(json.dumps(item) + "\n")
    return str(path)


def write_json(path, data) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def official(gold_path: str | dict, predictions_path: str, threshold: int = 2) -> dict:
    """``nq_eval``'s metrics, as its ``main`` computes them (without multiprocessing)."""
    flag_values = flags.FLAGS
    if not flag_values.is_parsed():
        flag_values.mark_as_parsed()
    saved = flag_values.long_non_null_threshold, flag_values.short_non_null_threshold
    flag_values.long_non_null_threshold = flag_values.short_non_null_threshold = threshold
    try:
        gold = (eval_utils.read_annotation_from_one_split(gold_path)
                if isinstance(gold_path, str) else gold_path)
        predictions = eval_utils.read_prediction_json(predictions_path)
        long_stats, short_stats = nq_eval.score_answers(gold, predictions)
        return nq_eval.get_metrics_with_answer_stats(long_stats, short_stats)
    finally:
        flag_values.long_non_null_threshold, flag_values.short_non_null_threshold = saved


def ours(gold_path: str | dict, predictions_path: str, threshold: int = 2) -> dict:
    gold = eval_nq.read_gold(gold_path) if isinstance(gold_path, str) else gold_path
    return nq_metrics(gold, eval_nq.read_predictions(predictions_path), min_non_null=threshold)


def assert_agree(gold_path: str | tuple[dict, dict], predictions_path: str, threshold: int = 2
                 ) -> dict:
    """Both evaluators on the same files (``gold_path``: a file, or (theirs, ours) loaded)."""
    theirs_gold, our_gold = (gold_path, gold_path) if isinstance(gold_path, str) else gold_path
    theirs = official(theirs_gold, predictions_path, threshold)
    mine = ours(our_gold, predictions_path, threshold)
    assert list(mine) == list(theirs)  # the same keys in the same order
    assert mine == theirs, {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}
    return mine


@pytest.fixture()
def synthetic_gold(tmp_path) -> str:
    return write_gold(tmp_path / "gold.jsonl.gz", SYNTHETIC)


# --- agreement with nq_eval on synthetic gold (always runs) ----------------------------------

MIXED_SCORES = {  # wrong answers scored above and below the correct ones, and ties
    1: (9.0, 9.0), 2: (8.5, 0.5), 3: (2.0, 2.0), 4: (2.0, 2.0), 5: (7.0, 1.0), 6: (0.1, 7.0),
    7: (-3.0, -3.0), 8: (5.0, 5.0)}


@pytest.mark.parametrize("threshold", [1, 2, 3])
@pytest.mark.parametrize("name, answers, scores", [
    ("all correct", CORRECT, None),
    ("all wrong", WRONG, None),
    ("all null", {i: (None, [], "NONE") for i in range(1, 9)}, None),
    ("mixed", {**CORRECT, 2: WRONG[2], 4: WRONG[4], 6: WRONG[6], 7: (None, [], "NONE")},
     MIXED_SCORES),
    ("correct with scores", CORRECT, MIXED_SCORES),
    ("yes/no answers everywhere", {i: (CORRECT[i][0], [], "yes" if i % 2 else "NO")
                                   for i in range(1, 9)}, MIXED_SCORES),
    ("short subsets", {**CORRECT, 5: (L5, [S5A], "NONE"), 1: (L1, [span(12, 14), NULL], "NONE")},
     MIXED_SCORES),
])
def test_agrees_with_official_on_synthetic_gold(tmp_path, synthetic_gold, threshold, name,
                                                answers, scores):
    path = write_json(tmp_path / "predictions.json", predictions_of(answers, scores))
    assert_agree(synthetic_gold, path, threshold)


def test_known_values_on_synthetic_gold(tmp_path, synthetic_gold):
    metrics = assert_agree(synthetic_gold,
                           write_json(tmp_path / "p.json", predictions_of(CORRECT)))
    assert metrics["long-best-threshold-f1"] == 1.0
    assert metrics["short-best-threshold-f1"] == 1.0
    wrong = assert_agree(synthetic_gold, write_json(tmp_path / "w.json", predictions_of(WRONG)))
    assert wrong["long-best-threshold-f1"] == 0.0 and wrong["long-best-threshold"] == 0.0


def test_best_threshold_matters(tmp_path, synthetic_gold):
    # two wrong long answers scored above every correct one, one wrong one below
    answers = {**CORRECT, 2: WRONG[2], 4: WRONG[4], 6: WRONG[6]}
    scores = {i: (1.0, 1.0) for i in answers} | {2: (9.0, 1.0), 4: (8.0, 1.0), 6: (0.5, 1.0)}
    metrics = assert_agree(synthetic_gold,
                           write_json(tmp_path / "p.json", predictions_of(answers, scores)))
    # gold long answers: 1, 3, 5, 6, 7, 8; correct at 1.0: 1, 3, 5, 7, 8 (5 of 7 predicted)
    assert metrics["long-best-threshold"] == 1.0
    assert metrics["long-best-threshold-precision"] == pytest.approx(5 / 7)
    assert metrics["long-best-threshold-recall"] == pytest.approx(5 / 6)


def test_random_prediction_sets_agree(tmp_path, synthetic_gold):
    rng = random.Random(7)
    long_pool = [None, L1, L3A, L3B, L5, L6, L7, L8, span(1, 2), span(140, 150)]
    short_pool = [[], [span(12, 14)], [S5A], [S5A, S5B], [S5B, S5A, NULL], [span(122, 124)],
                  [span(141, 143)], [span(31, 32)]]
    for trial in range(60):
        answers, scores = {}, {}
        for i in range(1, 9):
            yes_no = rng.choice(["NONE", "NONE", "YES", "NO", "none"])
            short = [] if yes_no.lower() != "none" else rng.choice(short_pool)
            answers[i] = (rng.choice(long_pool), short, yes_no)
            scores[i] = (rng.choice([0, 1, 2, 2.5, -1]), rng.choice([0, 1, 2, 3.5]))
        path = write_json(tmp_path / f"p{trial}.json", predictions_of(answers, scores))
        assert_agree(synthetic_gold, path, threshold=rng.choice([1, 2, 3]))


# --- agreement on the 3 real NQ dev examples (../shared/data) ---------------------------------


def _real_examples(shared_data) -> tuple[str, list[dict]]:
    path = shared_data / "nq" / "nq_dev_original_first3.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return str(path), [json.loads(line) for line in handle]


def _first_non_null(item: dict) -> tuple[dict | None, list[dict]]:
    long = next((a["long_answer"] for a in item["annotations"]
                 if a["long_answer"]["start_byte"] >= 0), None)
    short = next((a["short_answers"] for a in item["annotations"] if a["short_answers"]), [])
    return long, short


@pytest.mark.realdata
def test_real_nq_examples_agree(tmp_path, shared_data):
    gold_path, examples = _real_examples(shared_data)
    loaded = (eval_utils.read_annotation_from_one_split(gold_path), eval_nq.read_gold(gold_path))
    correct = {}
    for item in examples:
        long, short = _first_non_null(item)
        correct[item["example_id"]] = (
            {k: long[k] for k in NULL} if long else None,
            [{k: s[k] for k in NULL} for s in short], "NONE")
    rng = random.Random(3)
    sets = {
        "correct": (correct, None),
        "null": ({i: (None, [], "NONE") for i in correct}, None),
        "candidates": ({item["example_id"]: (
            {k: item["long_answer_candidates"][1][k] for k in NULL}, [], "YES")
            for item in examples}, None),
    }
    for trial in range(20):
        answers, scores = {}, {}
        for item in examples:
            candidate = rng.choice(item["long_answer_candidates"][:4])
            long, short = _first_non_null(item)
            pick = rng.random()
            answers[item["example_id"]] = (
                {k: (long if long and pick < 0.5 else candidate)[k] for k in NULL},
                [{k: s[k] for k in NULL} for s in short] if pick < 0.7 else [], "NONE")
            scores[item["example_id"]] = (rng.choice([0, 1, 2]), rng.choice([0, 1, 2]))
        sets[f"random {trial}"] = (answers, scores)
    for name, (answers, scores) in sets.items():
        for threshold in (1, 2, 3):
            path = write_json(tmp_path / "p.json", predictions_of(answers, scores))
            metrics = assert_agree(loaded, path, threshold)
            if name == "correct" and threshold == 2:
                assert metrics["long-best-threshold-f1"] == 1.0


@pytest.mark.realdata
def test_real_simplified_gold_reads_like_the_original(shared_data):
    original = eval_nq.read_gold(str(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz"))
    simplified = eval_nq.read_gold(str(shared_data / "nq" / "nq_dev_simplified_first3.jsonl"))
    assert simplified.keys() == original.keys()
    for example_id, labels in original.items():
        assert [(lab.long_answer.start_token, lab.long_answer.end_token) for lab in labels] == [
            (lab.long_answer.start_token, lab.long_answer.end_token)
            for lab in simplified[example_id]]


# --- our API ------------------------------------------------------------------------------


def test_metric_keys_are_the_official_ones(tmp_path, synthetic_gold):
    theirs = official(synthetic_gold, write_json(tmp_path / "p.json", predictions_of(CORRECT)))
    assert METRIC_KEYS == tuple(theirs)
    assert len(METRIC_KEYS) == 20 and "short-recall-at-precision>=0.75" in METRIC_KEYS


def test_span_equality_rules():
    a = Span.from_dict(span(1, 3))
    same_tokens_other_bytes = Span(start_byte=5, end_byte=6, start_token=1, end_token=3)
    assert spans_equal(a, same_tokens_other_bytes)  # bytes differ, tokens decide
    assert spans_equal(a, Span.from_dict(span(1, 3, tokens_only=True)))
    assert spans_equal(a, Span(start_byte=10, end_byte=30, start_token=7, end_token=9))
    assert not spans_equal(a, Span(start_byte=10, end_byte=31))  # bytes differ, no tokens
    assert not spans_equal(a, Span(start_token=1, end_token=4))
    assert spans_equal(a, Span(start_byte=10, end_byte=30))  # bytes alone decide
    assert span_sets_equal([a, Span()], [a])
    assert not span_sets_equal([a], [a, Span(start_token=5, end_token=6)])
    with pytest.raises(ValueError):
        spans_equal(a, Span())


@pytest.mark.parametrize("bad", [
    {"start_byte": 5, "end_byte": -1}, {"start_token": 4, "end_token": 4},
    {"start_byte": 9, "end_byte": 3}, {"start_token": "1", "end_token": 2}])
def test_invalid_spans_raise(bad):
    with pytest.raises(ValueError):
        Span.from_dict(bad)


def test_prediction_validation():
    with pytest.raises(ValueError, match="cannot coexist"):
        predictions_from_json(predictions_of({1: (L1, [span(12, 14)], "YES")}))
    with pytest.raises(ValueError, match="yes_no_answer"):
        predictions_from_json(predictions_of({1: (L1, [], "maybe")}))
    with pytest.raises(ValueError, match="predictions"):
        predictions_from_json([])
    with pytest.raises(ValueError, match="must be a number"):
        predictions_from_json({"predictions": [{**prediction(1, L1, [], "NONE"),
                                                "long_answer_score": "high"}]})
    unscored = predictions_from_json({"predictions": [{"example_id": 1, "long_answer": L1}]})
    assert unscored["1"].long_score == 0.0 and unscored["1"].yes_no_answer == "none"


def test_missing_and_unknown_predictions():
    gold = gold_from_examples(SYNTHETIC)
    predictions = predictions_from_json(predictions_of({1: CORRECT[1], 99: CORRECT[1]}))
    report = score_answers(gold, predictions)
    assert report.missing_predictions == sorted(str(i) for i in range(2, 9))
    assert report.unknown_prediction_ids == ["99"]
    assert all(s.score == -math.inf for s in report.long[1:])
    metrics = nq_metrics(gold, predictions)
    assert metrics["long-best-threshold-precision"] == 1.0
    assert metrics["long-best-threshold-recall"] == pytest.approx(1 / 6)
    assert metrics["long-best-threshold"] == 1.0
    with pytest.raises(ValueError, match="differ"):
        nq_metrics(gold, predictions, strict=True)


def test_thresholds_are_separate_for_short_answers():
    gold = gold_from_examples(SYNTHETIC)
    predictions = predictions_from_json(predictions_of(CORRECT))
    report = score_answers(gold, predictions, min_non_null=2, short_min_non_null=5)
    assert not any(s.gold_has_answer for s in report.short)
    assert sum(s.gold_has_answer for s in report.long) == 6


def test_best_threshold_by_hand():
    stats = [AnswerStat(True, True, False, 3.0), AnswerStat(True, True, True, 2.0),
             AnswerStat(True, True, True, 2.0), AnswerStat(False, True, False, 1.0),
             AnswerStat(True, False, False, 0.0)]
    result = best_threshold(stats)
    # threshold 2.0 (ties counted together): P = 2/3, R = 2/4
    assert (result.threshold, result.precision, result.recall) == (2.0, 2 / 3, 0.5)
    assert result.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert result.recall_at_precision[0] == (0.5, 0.5, 2 / 3, 2.0)
    assert result.recall_at_precision[2] == (0.9, 0.0, 0.0, None)


def test_yes_no_counts_as_short_answer():
    labels = [NqLabel("1", yes_no_answer="yes"), NqLabel("1", yes_no_answer="yes"),
              NqLabel("1")]
    assert eval_nq.gold_has_short_answer(labels)
    assert not eval_nq.gold_has_long_answer(labels)
    stat = eval_nq.score_short_answer(labels, NqLabel("1", yes_no_answer="yes"))
    assert stat.is_correct and stat.pred_has_answer


def test_read_gold_plain_jsonl_and_glob(tmp_path):
    (tmp_path / "a.jsonl").write_text(json.dumps(SYNTHETIC[0]) + "\n\n", encoding="utf-8")
    write_gold(tmp_path / "b.jsonl.gz", SYNTHETIC[1:3])
    assert sorted(eval_nq.read_gold(str(tmp_path / "*.jsonl*"))) == ["1", "2", "3"]
    assert sorted(eval_nq.read_gold(str(tmp_path))) == ["1", "2", "3"]
    with pytest.raises(FileNotFoundError):
        eval_nq.read_gold(str(tmp_path / "none-*.jsonl"))
    (tmp_path / "bad.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        eval_nq.read_gold(str(tmp_path / "bad.jsonl"))


def test_a_deeply_nested_line_or_file_is_a_value_error(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    lines = tmp_path / "gold.jsonl"
    lines.write_text("{}\n" + deep + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="gold.jsonl:2: not JSON.*nested deeper"):
        list(eval_nq.iter_jsonl(str(lines)))
    whole = tmp_path / "predictions.json"
    whole.write_text(deep, encoding="utf-8")
    with pytest.raises(ValueError, match="nested deeper"):
        eval_nq.read_predictions(str(whole))
