"""``python -m pipelines.evaluate`` on tiny gold and prediction files written here."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines import evaluate
from tests.conftest import PROJECT_ROOT
from transforms.metrics.nq import METRIC_KEYS
from transforms.nlquad.schema import NLQUAD_SCHEMA

NULL = {"start_byte": -1, "end_byte": -1, "start_token": -1, "end_token": -1}
LONG = {"start_byte": 100, "end_byte": 200, "start_token": 10, "end_token": 20}
SHORT = {"start_byte": 120, "end_byte": 140, "start_token": 12, "end_token": 14}


def nq_annotation(long=None, short=(), yes_no="NONE"):
    return {"long_answer": long or NULL, "short_answers": list(short), "yes_no_answer": yes_no}


NQ_GOLD = [
    {"example_id": 11, "annotations": [nq_annotation(LONG, [SHORT])] * 2 + [nq_annotation()] * 3,
     "long_answer_candidates": [], "document_tokens": []},
    {"example_id": 12, "annotations": [nq_annotation(LONG)] + [nq_annotation()] * 4,
     "long_answer_candidates": [], "document_tokens": []},
    {"example_id": -13, "annotations": [nq_annotation(LONG, yes_no="YES")] * 3
     + [nq_annotation()] * 2, "long_answer_candidates": [], "document_tokens": []},
]


def nq_prediction(example_id, long=None, short=(), yes_no="NONE", score=1.0):
    return {"example_id": example_id, "long_answer": long or NULL, "long_answer_score": score,
            "short_answers": list(short), "short_answers_score": score,
            "yes_no_answer": yes_no}


NQ_PREDICTIONS = {"predictions": [nq_prediction(11, LONG, [SHORT], score=3),
                                  nq_prediction(12, LONG, score=2),
                                  nq_prediction(-13, LONG, yes_no="YES", score=1)]}


def write_json(path, data) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def write_jsonl_gz(path, rows) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    return str(path)


def write_parquet(path, rows, schema=None) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return str(path)


def run(capsys, *argv) -> tuple[int, dict | None, str]:
    code = evaluate.main(list(argv))
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else None, captured.err


# --- nq ----------------------------------------------------------------------------------


@pytest.fixture()
def nq_files(tmp_path):
    gold = write_jsonl_gz(tmp_path / "gold" / "dev-00.jsonl.gz", NQ_GOLD)
    return gold, write_json(tmp_path / "predictions.json", NQ_PREDICTIONS)


def test_nq_prints_the_official_keys(capsys, nq_files):
    gold, predictions = nq_files
    code, result, _ = run(capsys, "nq", "--gold", gold, "--predictions", predictions)
    assert code == 0 and set(result) == set(METRIC_KEYS)
    # example 12 has one non-null long answer: no gold at threshold 2, a false positive
    assert result["long-best-threshold"] == 1.0 and result["long-best-threshold-f1"] == 0.8
    assert result["long-best-threshold-precision"] == pytest.approx(2 / 3)
    assert result["long-best-threshold-recall"] == 1.0
    assert result["short-best-threshold-f1"] == 1.0


def test_nq_threshold_option(capsys, nq_files):
    gold, predictions = nq_files
    code, result, _ = run(capsys, "nq", "--gold", gold, "--predictions", predictions,
                          "--threshold", "1")
    assert code == 0 and result["long-best-threshold-recall"] == 1.0
    assert result["long-best-threshold"] == 1.0 and result["long-best-threshold-f1"] == 1.0
    code, result, _ = run(capsys, "nq", "--gold", gold, "--predictions", predictions,
                          "--threshold", "4")
    assert code == 0 and result["long-best-threshold-f1"] == 0.0
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(["nq", "--gold", gold, "--predictions", predictions, "--threshold", "0"])
    assert exit_info.value.code == 2


def test_nq_agrees_with_official(capsys, nq_files):
    from absl import flags
    from natural_questions import eval_utils, nq_eval

    gold, predictions = nq_files
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
    theirs = nq_eval.get_metrics_with_answer_stats(*nq_eval.score_answers(
        eval_utils.read_annotation_from_one_split(gold),
        eval_utils.read_prediction_json(predictions)))
    code, result, _ = run(capsys, "nq", "--gold", gold, "--predictions", predictions)
    assert code == 0 and result == theirs


def test_nq_release_directory_glob_and_split(capsys, tmp_path, nq_files):
    _, predictions = nq_files
    release = tmp_path / "nq" / "1.0.0"
    write_jsonl_gz(release / "nq_original" / "dev" / "nq-dev-00.jsonl.gz", NQ_GOLD[:2])
    write_jsonl_gz(release / "nq_original" / "test" / "nq-test-00.jsonl.gz",
                   NQ_GOLD[2:])
    write_jsonl_gz(release / "rejected" / "unlinked" / "x.jsonl.gz", [{"junk": 1}])
    code, whole, _ = run(capsys, "nq", "--gold", str(release), "--predictions", predictions)
    assert code == 0 and whole["short-best-threshold-recall"] == 1.0
    code, dev, err = run(capsys, "nq", "--gold", str(release), "--split", "dev",
                         "--predictions", predictions)
    assert code == 0 and "1 prediction ids are not in the gold" in err
    code, globbed, _ = run(capsys, "nq", "--gold", str(release / "nq_original" / "*" / "*.gz"),
                           "--predictions", predictions)
    assert code == 0 and globbed == whole


def test_nq_missing_predictions_warn_or_fail_when_strict(capsys, nq_files, tmp_path):
    gold, _ = nq_files
    partial = write_json(tmp_path / "partial.json",
                         {"predictions": NQ_PREDICTIONS["predictions"][:1]})
    code, result, err = run(capsys, "nq", "--gold", gold, "--predictions", partial)
    assert code == 0 and "2 gold ids have no prediction" in err
    assert result["long-best-threshold-recall"] == 0.5
    code, result, err = run(capsys, "nq", "--gold", gold, "--predictions", partial, "--strict")
    assert code == 2 and result is None and "--strict" in err


@pytest.mark.parametrize("predictions, message", [
    ({"predictions": [nq_prediction(11, LONG, [SHORT], yes_no="YES")]}, "cannot coexist"),
    ({"predictions": [nq_prediction(11, {**LONG, "end_byte": 50})]}, "start_byte >= end_byte"),
    ([1, 2], "predictions"),
    ({"predictions": [nq_prediction(999, LONG)]}, "none of the 1 prediction ids"),
])
def test_nq_bad_predictions(capsys, tmp_path, nq_files, predictions, message):
    gold, _ = nq_files
    path = write_json(tmp_path / "bad.json", predictions)
    code, result, err = run(capsys, "nq", "--gold", gold, "--predictions", path)
    assert code == 2 and result is None and message in err and err.startswith("error: ")


def test_nq_bad_gold(capsys, tmp_path, nq_files):
    _, predictions = nq_files
    code, _, err = run(capsys, "nq", "--gold", str(tmp_path / "nothing*.gz"),
                       "--predictions", predictions)
    assert code == 2 and "no gold file" in err
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(b"not gzip at all")
    code, _, err = run(capsys, "nq", "--gold", str(bad), "--predictions", predictions)
    assert code == 2 and "bad NQ gold" in err


# --- nlquad ------------------------------------------------------------------------------

CONTEXT = "the storm hit the coast\nthen the storm moved inland"


def nlquad_row(qid, answer):
    """A row of the release schema (``transforms.nlquad.schema``)."""
    start = CONTEXT.index(answer)
    words_before = len(CONTEXT[:start].split())
    return {"id": qid, "document_id": "bbc-1", "title": "t", "date": "2020-01-01",
            "published": "2020-01-01T00:00:00Z", "url": "u", "capture_url": "c",
            "capture_timestamp": "20200101000000", "layout_era": "C", "question": "Why?",
            "question_index": 1, "context": CONTEXT, "answer_text": answer,
            "answer_start": start, "answer_end": start + len(answer),
            "answer_word_start": words_before,
            "answer_word_end": words_before + len(answer.split()), "answer_paragraphs": 1,
            "answers": {"text": [answer], "answer_start": [start]}}


@pytest.fixture()
def nlquad_release(tmp_path):
    release = tmp_path / "nlquad" / "1.0.0"
    write_parquet(release / "train" / "train-00000-of-00001.parquet",
                  [nlquad_row("t1", "the storm hit the coast")], NLQUAD_SCHEMA)
    write_parquet(release / "dev" / "dev-00000-of-00001.parquet",
                  [nlquad_row("d1", "then the storm moved inland")], NLQUAD_SCHEMA)
    (release / "rejected").mkdir()
    return release


def test_nlquad_release_all_splits_and_one(capsys, tmp_path, nlquad_release):
    predictions = write_json(tmp_path / "p.json", {
        "t1": "the storm hit the coast",
        "d1": {"answer_start": CONTEXT.index("moved"), "answer_end": len(CONTEXT)}})
    code, result, _ = run(capsys, "nlquad", "--gold", str(nlquad_release),
                          "--predictions", predictions)
    assert code == 0 and result["n"] == 2
    assert result["exact_match"] == 0.5
    assert result["iou"] == pytest.approx((1 + 2 / 5) / 2)
    assert list(result) == sorted(result)
    code, dev, _ = run(capsys, "nlquad", "--gold", str(nlquad_release), "--split", "dev",
                       "--predictions", predictions)
    assert code == 0 and dev["n"] == 1 and dev["n_unknown_prediction_ids"] == 1
    assert dev["iou"] == pytest.approx(2 / 5)
    # the dataset root: LATEST names the version to read (an older version is ignored)
    write_parquet(nlquad_release.parent / "0.9.0" / "dev" / "dev.parquet",
                  [nlquad_row("old", "the storm hit the coast")], NLQUAD_SCHEMA)
    (nlquad_release.parent / "LATEST").write_text("1.0.0\n", encoding="utf-8")
    code, latest, _ = run(capsys, "nlquad", "--gold", str(nlquad_release.parent),
                          "--predictions", predictions)
    assert code == 0 and latest == result


def test_nlquad_squad_json_gold(capsys, tmp_path):
    row = nlquad_row("d1", "then the storm moved inland")
    gold = write_json(tmp_path / "dev.json", {"data": [{"title": "t", "paragraphs": [{
        "context": CONTEXT, "qas": [{"id": "d1", "question": "?", "answers": [
            {"text": row["answer_text"], "answer_start": row["answer_start"]}]}]}]}]})
    predictions = write_json(tmp_path / "p.json", {"d1": "the storm"})
    code, result, _ = run(capsys, "nlquad", "--gold", gold, "--predictions", predictions)
    assert code == 0 and result["n_ambiguous_text_predictions"] == 1
    assert result["iou"] == 0.0  # the first "the storm" lies outside the gold
    # legacy: "the storm" spans words [0, 8) (first occurrence to the end of the last one)
    assert result["iou_legacy"] == pytest.approx(3 / 10)


def test_nlquad_errors(capsys, tmp_path, nlquad_release):
    predictions = write_json(tmp_path / "p.json", {"d1": "x"})
    code, _, err = run(capsys, "nlquad", "--gold", str(nlquad_release), "--split", "valid",
                       "--predictions", predictions)
    assert code == 2 and "no split directory" in err
    bad = write_parquet(tmp_path / "bad" / "x.parquet", [{"id": "a", "text": "b"}])
    code, _, err = run(capsys, "nlquad", "--gold", bad, "--predictions", predictions)
    assert code == 2 and "lacks the column(s) context" in err
    offsets = write_json(tmp_path / "o.json", {"d1": {"answer_start": 3, "answer_end": 1}})
    code, _, err = run(capsys, "nlquad", "--gold", str(nlquad_release), "--predictions", offsets)
    assert code == 2 and "prediction d1" in err
    code, _, err = run(capsys, "nlquad", "--gold", str(nlquad_release), "--predictions",
                       predictions, "--threshold", "2")
    assert code == 2 and "--threshold applies to nq only" in err


def test_nlquad_nltk_tokenizer_needs_nltk(capsys, tmp_path, nlquad_release, monkeypatch):
    """Without nltk (the crowd extra brings it, the default install does not) the
    tokenizer that needs it is a usage error."""
    import sys

    monkeypatch.setitem(sys.modules, "nltk", None)  # import nltk raises ImportError
    predictions = write_json(tmp_path / "p.json", {"d1": "the storm"})
    code, _, err = run(capsys, "nlquad", "--gold", str(nlquad_release), "--predictions",
                       predictions, "--legacy-tokenizer", "nltk")
    assert code == 2 and "needs nltk" in err


# --- reqa --------------------------------------------------------------------------------


@pytest.fixture()
def reqa_release(tmp_path):
    release = tmp_path / "reqa" / "1.0.0"
    write_parquet(release / "questions" / "questions-00000-of-00001.parquet", [
        {"qid": "q1", "question": "who?", "correct_candidate_ids": ["c2"]},
        {"qid": "q2", "question": "what?", "correct_candidate_ids": ["c4", "c1"]},
    ])
    write_parquet(release / "candidates" / "candidates-00000-of-00001.parquet", [
        {"candidate_id": f"c{i}", "sentence": f"s{i}", "context": "ctx",
         "paragraph_id": paragraph, "document": document}
        for i, (paragraph, document) in enumerate(
            [(0, "A"), (0, "A"), (1, "A"), (0, "B"), (0, "B")], start=1)])
    return release


def test_reqa_release(capsys, tmp_path, reqa_release):
    rankings = write_json(tmp_path / "r.json", {"q1": ["c1", "c2"], "q2": ["c5", "c3", "c1"]})
    code, result, _ = run(capsys, "reqa", "--gold", str(reqa_release), "--predictions", rankings)
    assert code == 0
    assert result["sentence_mrr"] == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert result["sentence_r@1"] == 0.0 and result["sentence_r@5"] == pytest.approx(0.75)
    # paragraphs are (document, paragraph_id): c1, c2 share (A, 0); c4, c5 share (B, 0)
    assert result["paragraph_mrr"] == 1.0 and result["paragraph_r@1"] == pytest.approx(0.75)
    assert result["n_questions"] == 2


def test_reqa_errors(capsys, tmp_path, reqa_release):
    rankings = write_json(tmp_path / "r.json", {"q1": "c1"})
    code, _, err = run(capsys, "reqa", "--gold", str(reqa_release), "--predictions", rankings)
    assert code == 2 and "must be a list" in err
    code, _, err = run(capsys, "reqa", "--gold", str(tmp_path), "--predictions", rankings)
    assert code == 2 and "questions" in err
    unknown = write_json(tmp_path / "u.json", {"q1": ["c2"], "q7": ["c1"]})
    code, result, err = run(capsys, "reqa", "--gold", str(reqa_release), "--predictions", unknown)
    assert code == 0 and result["n_unknown_prediction_ids"] == 1 and "q7" in err
    code, _, _ = run(capsys, "reqa", "--gold", str(reqa_release), "--predictions", unknown,
                     "--strict")
    assert code == 2


# --- jnq ---------------------------------------------------------------------------------


def test_jnq_json_and_release_gold(capsys, tmp_path):
    predictions = write_json(tmp_path / "p.json", {"a": [1, 2], "b": [], "c": [5]})
    gold_json = write_json(tmp_path / "gold.json", {"a": [1], "b": None, "c": [4]})
    code, from_json, _ = run(capsys, "jnq", "--gold", gold_json, "--predictions", predictions)
    assert code == 0 and (from_json["tp"], from_json["fp"], from_json["fn"]) == (1, 2, 1)
    release = tmp_path / "jnq" / "1.0.0"
    write_parquet(release / "train" / "train-00000-of-00001.parquet",
                  [{"id": "a", "gold_paragraph_ids": [1]}, {"id": "b", "gold_paragraph_ids": []}])
    write_parquet(release / "dev" / "dev-00000-of-00001.parquet",
                  [{"id": "c", "gold_paragraph_ids": [4]}])
    code, from_release, _ = run(capsys, "jnq", "--gold", str(release),
                                "--predictions", predictions)
    assert code == 0 and from_release == from_json
    code, dev, _ = run(capsys, "jnq", "--gold", str(release), "--split", "dev",
                       "--predictions", predictions)
    assert code == 0 and dev["n_questions"] == 1 and dev["n_unknown_prediction_ids"] == 2


# --- common errors -------------------------------------------------------------------------


@pytest.mark.parametrize("task", ["nq", "nlquad", "reqa", "jnq"])
def test_missing_and_malformed_prediction_files(capsys, tmp_path, task, nq_files, nlquad_release,
                                                reqa_release):
    gold = {"nq": nq_files[0], "nlquad": str(nlquad_release), "reqa": str(reqa_release),
            "jnq": write_json(tmp_path / "g.json", {"a": [1]})}[task]
    code, _, err = run(capsys, task, "--gold", gold, "--predictions", str(tmp_path / "no.json"))
    assert code == 2 and "no such file" in err
    broken = tmp_path / "broken.json"
    broken.write_text("{\"a\": [1", encoding="utf-8")
    code, _, err = run(capsys, task, "--gold", gold, "--predictions", str(broken))
    assert code == 2 and "not valid JSON" in err


def test_missing_gold_file(capsys, tmp_path):
    predictions = write_json(tmp_path / "p.json", {"a": [1]})
    code, _, err = run(capsys, "jnq", "--gold", str(tmp_path / "none.json"),
                       "--predictions", predictions)
    assert code == 2 and "no such file" in err


def test_unknown_task_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(["squad", "--gold", "g", "--predictions", "p"])
    assert exit_info.value.code == 2


def test_module_runs_as_a_script(tmp_path, nq_files):
    gold, predictions = nq_files
    done = subprocess.run([sys.executable, "-m", "pipelines.evaluate", "nq", "--gold", gold,
                           "--predictions", predictions], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    result = json.loads(done.stdout)
    assert list(result) == sorted(result) and set(result) == set(METRIC_KEYS)
    done = subprocess.run([sys.executable, "-m", "pipelines.evaluate", "nq", "--gold",
                           str(tmp_path / "missing.jsonl.gz"), "--predictions", predictions],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and "error:" in done.stderr


@pytest.mark.realdata
def test_nq_cli_equals_the_official_cli_on_real_examples(tmp_path, shared_data):
    gold = str(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz")
    with gzip.open(gold, "rt", encoding="utf-8") as handle:
        examples = [json.loads(line) for line in handle]
    keys = ("start_byte", "end_byte", "start_token", "end_token")
    predictions = write_json(tmp_path / "p.json", {"predictions": [
        {"example_id": item["example_id"],
         "long_answer": {k: item["long_answer_candidates"][i % 2][k] for k in keys},
         "long_answer_score": 1.0 + i, "short_answers": [], "short_answers_score": 0.5,
         "yes_no_answer": "YES" if i == 2 else "NONE"}
        for i, item in enumerate(examples)]})
    official = subprocess.run(
        [sys.executable, "-m", "natural_questions.nq_eval", f"--gold_path={gold}",
         f"--predictions_path={predictions}", "--num_threads=1"],
        capture_output=True, text=True, timeout=120)
    ours = subprocess.run([sys.executable, "-m", "pipelines.evaluate", "nq", "--gold", gold,
                           "--predictions", predictions], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=120)
    assert official.returncode == 0 == ours.returncode, (official.stderr, ours.stderr)
    assert json.loads(ours.stdout) == json.loads(official.stdout)


DEEP_JSON = '{"a": ' * 50_000 + "1" + "}" * 50_000


@pytest.mark.parametrize("task", ["nq", "nlquad", "reqa", "jnq"])
def test_deeply_nested_predictions_are_malformed_json(capsys, tmp_path, task, nq_files,
                                                      nlquad_release, reqa_release):
    """A nesting bomb is malformed JSON (exit 2, ``nested deeper``), not a RecursionError."""
    gold = {"nq": nq_files[0], "nlquad": str(nlquad_release), "reqa": str(reqa_release),
            "jnq": write_json(tmp_path / "g.json", {"a": [1]})}[task]
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP_JSON, encoding="utf-8")
    code, _, err = run(capsys, task, "--gold", gold, "--predictions", str(deep))
    assert code == 2 and "not valid JSON" in err and "nested deeper" in err


def test_deeply_nested_gold_is_bad_gold(capsys, tmp_path, nq_files):
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP_JSON, encoding="utf-8")
    code, _, err = run(capsys, "jnq", "--gold", str(deep), "--predictions", nq_files[1])
    assert code == 2 and "nested deeper" in err
    gold = tmp_path / "nq" / "dev.jsonl"
    gold.parent.mkdir()
    gold.write_text(json.dumps(NQ_GOLD[0]) + "\n" + DEEP_JSON + "\n", encoding="utf-8")
    code, _, err = run(capsys, "nq", "--gold", str(gold), "--predictions", nq_files[1])
    assert code == 2 and "dev.jsonl:2: not JSON" in err and "nested deeper" in err
