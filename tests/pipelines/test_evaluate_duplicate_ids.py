"""``evaluate`` refuses predictions that give an id twice (exit 2, the repeats named): JSON
keeps one of a repeated key's values, and an NQ example predicted twice kept the last, so
either was scored silently on one answer."""

from __future__ import annotations

import json

import pytest

from tests.pipelines.test_evaluate_cli import (
    CONTEXT,
    LONG,
    NQ_GOLD,
    NQ_PREDICTIONS,
    nlquad_row,
    nq_prediction,
    run,
    write_json,
    write_jsonl_gz,
    write_parquet,
)
from transforms.nlquad.schema import NLQUAD_SCHEMA


def write_text(path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def gold_of(task: str, tmp_path) -> str:
    """A small gold set of ``task``."""
    if task == "nq":
        return write_jsonl_gz(tmp_path / "gold" / "dev-00.jsonl.gz", NQ_GOLD)
    if task == "nlquad":
        release = tmp_path / "nlquad" / "1.0.0"
        write_parquet(release / "dev" / "dev.parquet",
                      [nlquad_row("d1", "the storm hit the coast"),
                       nlquad_row("d2", "then the storm moved inland")], NLQUAD_SCHEMA)
        return str(release)
    if task == "reqa":
        release = tmp_path / "reqa" / "1.0.0"
        write_parquet(release / "questions" / "q.parquet", [
            {"qid": "q1", "question": "who?", "correct_candidate_ids": ["c1"]},
            {"qid": "q2", "question": "what?", "correct_candidate_ids": ["c2"]}])
        write_parquet(release / "candidates" / "c.parquet", [
            {"candidate_id": c, "sentence": c, "context": "ctx", "paragraph_id": i,
             "document": "A"} for i, c in enumerate(["c1", "c2"])])
        return str(release)
    return write_json(tmp_path / "jnq_gold.json", {"q1": [1], "q2": [4]})


#: each task's predictions, as JSON text, with its first id given twice (its wrong answer
#: first, so keeping the last would score it right)
REPEATED_KEY = {
    "nlquad": '{"d1": "nothing at all", "d2": "then the storm moved inland", '
              '"d1": "the storm hit the coast"}',
    "reqa": '{"q1": ["c2"], "q2": ["c2"], "q1": ["c1"]}',
    "jnq": '{"q1": [7], "q2": [4], "q1": [1]}',
}


@pytest.mark.parametrize("task", sorted(REPEATED_KEY))
def test_an_id_given_twice_in_a_predictions_object_is_refused(capsys, tmp_path, task):
    gold = gold_of(task, tmp_path)
    predictions = write_text(tmp_path / "p.json", REPEATED_KEY[task])
    code, result, err = run(capsys, task, "--gold", gold, "--predictions", predictions)
    first = "d1" if task == "nlquad" else "q1"
    assert (code, result) == (2, None)
    assert f"1 {'id' if task == 'nlquad' else 'question id'}(s) given more than once" in err
    assert f"{first} (2 times)" in err
    # the same predictions, each id once, are scored
    once = write_json(tmp_path / "once.json", json.loads(REPEATED_KEY[task]))
    code, result, _ = run(capsys, task, "--gold", gold, "--predictions", once)
    assert code == 0 and result is not None


def test_an_nq_example_predicted_twice_is_refused(capsys, tmp_path):
    gold = gold_of("nq", tmp_path)
    records = NQ_PREDICTIONS["predictions"]
    # 11 predicted twice (once as the string "11": the same example), -13 three times
    twice = {"predictions": [nq_prediction(11), *records, nq_prediction("-13"),
                             nq_prediction(-13, LONG)]}
    predictions = write_json(tmp_path / "p.json", twice)
    code, result, err = run(capsys, "nq", "--gold", gold, "--predictions", predictions)
    assert (code, result) == (2, None)
    assert "2 example_id(s) given more than once in the NQ predictions" in err
    assert ": -13 (3 times), 11 (2 times); give each example_id once" in err
    code, _, _ = run(capsys, "nq", "--gold", gold,
                     "--predictions", write_json(tmp_path / "ok.json", NQ_PREDICTIONS))
    assert code == 0


def test_many_repeats_name_the_first_few_and_the_count(capsys, tmp_path):
    gold = gold_of("jnq", tmp_path)
    pairs = ", ".join(f'"r{i}": [], "r{i}": [1]' for i in range(8))
    predictions = write_text(tmp_path / "p.json", "{" + pairs + ', "q1": [1]}')
    code, _, err = run(capsys, "jnq", "--gold", gold, "--predictions", predictions)
    assert code == 2
    assert "8 question id(s) given more than once in the JNQ predictions" in err
    assert ": r0 (2 times), r1 (2 times), r2 (2 times), r3 (2 times), r4 (2 times) and 3 " \
           "more;" in err


def test_a_key_repeated_inside_a_prediction_is_refused(capsys, tmp_path):
    gold = gold_of("nlquad", tmp_path)
    start = CONTEXT.index("then")
    predictions = write_text(tmp_path / "p.json", '{"d1": {"answer_start": 0, "answer_end": '
                             f'3, "answer_end": 23}}, "d2": {{"answer_start": {start}, '
                             f'"answer_end": {len(CONTEXT)}}}}}')
    code, _, err = run(capsys, "nlquad", "--gold", gold, "--predictions", predictions)
    assert code == 2 and "1 key(s) given more than once in an object of the NLQuAD " \
                         "predictions" in err and ": answer_end (2 times)" in err
