"""Golden end-to-end test of the annotation round trip on the bundled samples.

Sample NQ, JNQ and JBoolQ releases -> ``annotate simulate`` -> ``annotate import`` ->
annotated releases that the official NQ tools, ``evaluate``, and ``build_reqa`` accept.
"""

from __future__ import annotations

import copy
import gzip
import json
import os
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from natural_questions import eval_utils
from natural_questions.text_utils import simplify_nq_example

from pipelines import annotate, build_reqa, evaluate
from tests.conftest import TEST_RUNNER
from tests.sample_releases import copy_release
from transforms.annotation.counters import COUNTERS, EXAMPLES_READ, OUTCOME
from transforms.core.counters import Counts
from transforms.jnq.labels import as_names

SPLITS = ("train", "dev", "test")


def _nq_examples(path: Path, split: str | None = None) -> list[dict]:
    examples = []
    for split_name in ([split] if split else SPLITS):
        for file in sorted((path / "nq_original" / split_name).glob("*.jsonl.gz")):
            with gzip.open(file, "rt", encoding="utf-8") as handle:
                examples += [json.loads(line) for line in handle]
    return examples


def _votes_accounted(counts: dict) -> bool:
    """Every vote read is used, superseded, pending or refused with a reason."""
    votes = counts["votes"]
    refused = sum(v for k, v in votes.items() if k.startswith("refused."))
    return votes["read"] == sum(votes.get(k, 0) for k in (
        "used", "superseded", "duplicate", "pending", "not_needed")) + refused


def _rows(path: Path) -> list[dict]:
    return [r for split in SPLITS if (path / split).is_dir()
            for r in pq.read_table(path / split).to_pylist()]


def _jnq_rows(path: Path) -> list[dict]:
    """The rows of a JNQ release, class labels as names (the release stores indexes)."""
    return [as_names(row) for row in _rows(path)]


@pytest.fixture(scope="module")
def nq_release(sample_build, tmp_path_factory) -> Path:
    return copy_release(sample_build("nq_to_annotate")[1], tmp_path_factory.mktemp("nq_rel"))


@pytest.fixture(scope="module")
def nq_annotated(nq_release, tmp_path_factory):
    work = tmp_path_factory.mktemp("nq_annotation")
    votes = work / "votes.jsonl"
    assert annotate.main(["simulate", "--release", str(nq_release), "--out", str(votes),
                          "--seed", "7"]) == 0
    result = annotate.run(["import", "--dataset", "nq", "--input", str(nq_release),
                           "--votes", str(votes), "--output", str(work / "out"), TEST_RUNNER])
    return result, Path(result["path"]), votes, work


def test_every_example_gets_its_split_ways_of_annotations(nq_release, nq_annotated):
    result, path, _, _ = nq_annotated
    examples = {split: _nq_examples(nq_release, split) for split in SPLITS}
    annotated = {split: _nq_examples(path, split) for split in SPLITS}
    for split, ways in (("train", 1), ("dev", 5), ("test", 5)):
        assert len(annotated[split]) == len(examples[split])
        assert all(len(e["annotations"]) == ways for e in annotated[split])
    counts = result["stats"]["counts"]
    total = sum(len(v) for v in examples.values())
    assert counts["examples"]["annotated"] == total
    assert "pending" not in counts["examples"]
    assert counts["votes"]["used"] == counts["votes"]["read"] == counts["votes"]["simulated"]
    assert result["manifest"]["source"]["annotates"]["fingerprint"] != "-"


def test_annotations_are_nq_format_that_the_official_tools_accept(nq_annotated):
    _, path, _, _ = nq_annotated
    for example in _nq_examples(path):
        simple = simplify_nq_example(copy.deepcopy(example))
        assert [a["long_answer"]["candidate_index"] for a in simple["annotations"]] == [
            a["long_answer"]["candidate_index"] for a in example["annotations"]]
        for annotation in example["annotations"]:
            long_answer = annotation["long_answer"]
            if long_answer["candidate_index"] >= 0:
                candidate = example["long_answer_candidates"][long_answer["candidate_index"]]
                assert long_answer["start_byte"] == candidate["start_byte"]
                for short in annotation["short_answers"]:
                    assert long_answer["start_token"] <= short["start_token"]
                    assert short["end_token"] <= long_answer["end_token"]
    gold = eval_utils.read_annotation(str(path / "nq_original" / "dev" / "*.jsonl.gz"),
                                      n_threads=1)
    assert gold and all(len(labels) == 5 for labels in gold.values())


def test_parquet_carries_the_same_annotations(nq_annotated):
    _, path, _, _ = nq_annotated
    original = {str(e["example_id"]): e for e in _nq_examples(path)}
    for row in _rows(path):
        annotations = original[row["id"]]["annotations"]
        assert row["annotations"]["id"] == [str(a["annotation_id"]) for a in annotations]
        assert row["annotations"]["yes_no_answer"] == [
            {"NONE": -1, "NO": 0, "YES": 1}[a["yes_no_answer"]] for a in annotations]


def test_card_says_simulated_and_gives_the_papers_figures(nq_annotated):
    result, path, _, _ = nq_annotated
    card = (path / "README.md").read_text(encoding="utf-8")
    assert "Simulated annotations" in card
    stats = result["stats"]
    assert stats["simulated_votes"] > 0
    assert 0 <= stats["quality"]["long_answer_share"] <= 1
    assert set(stats["fleiss_kappa"]) >= {"long_answer", "question_good"}
    assert stats["worker_agreement"]
    assert stats["baselines"]["rows"], "the first-paragraph baseline is scored on dev"


def test_reimporting_the_same_votes_is_idempotent(nq_release, nq_annotated):
    _, path, votes, work = nq_annotated
    again = annotate.run(["import", "--dataset", "nq", "--input", str(nq_release),
                          "--votes", str(votes), "--votes", str(votes),
                          "--output", str(work / "again"), TEST_RUNNER])
    for name in ("nq_original/dev/nq-dev-00.jsonl.gz",
                 "dev/dev-00000-of-00001.parquet", "train/train-00000-of-00001.parquet"):
        assert (path / name).read_bytes() == (Path(again["path"]) / name).read_bytes()
    votes_again = again["stats"]["counts"]["votes"]
    assert votes_again["duplicate"] == votes_again["used"] and "superseded" not in votes_again


def test_partial_votes_leave_examples_pending_and_foreign_votes_dead_lettered(
        nq_release, nq_annotated):
    _, _, votes, work = nq_annotated
    lines = votes.read_text(encoding="utf-8").splitlines()
    dev_ids = {str(e["example_id"]) for e in _nq_examples(nq_release, "dev")}
    first_dev = sorted(dev_ids)[0]
    kept, dropped = [], 0
    for line in lines:
        vote = json.loads(line)
        if vote["example_id"] == first_dev and dropped < 2:
            dropped += 1
            continue
        kept.append(line)
    foreign = {**json.loads(lines[0]), "release": "0123456789abcdef"}
    unknown = {**json.loads(lines[0]), "example_id": "12345"}
    partial = work / "partial.jsonl"
    partial.write_text("\n".join([*kept, json.dumps(foreign), json.dumps(unknown),
                                  "{not json"]) + "\n", encoding="utf-8")
    result = annotate.run(["import", "--dataset", "nq", "--input", str(nq_release),
                           "--votes", str(partial), "--output", str(work / "partial"),
                           TEST_RUNNER])
    counts = result["stats"]["counts"]
    assert counts["examples"]["pending"] == 1
    assert counts["votes"]["refused.other_release"] == 1
    assert counts["votes"]["refused.unknown_example"] == 1
    assert counts["votes"]["refused.malformed_json"] == 1
    assert counts["votes"]["dead_lettered"] == 3
    assert _votes_accounted(counts)
    assert counts["votes"]["read"] == len(kept) + 3
    assert counts["examples"]["read"] == counts["examples"]["annotated"] + 1
    path = Path(result["path"])
    pending = [json.loads(line) for f in (path / "rejected" / "pending_examples").glob("*")
               for line in f.read_text(encoding="utf-8").splitlines()]
    assert [(p["example_id"], p["annotators"], p["required"]) for p in pending] == [
        (first_dev, 3, 5)]
    assert first_dev not in {str(e["example_id"]) for e in _nq_examples(path, "dev")}


def test_evaluate_refuses_unannotated_gold_and_scores_annotated(nq_release, nq_annotated,
                                                                tmp_path, capsys):
    _, path, _, _ = nq_annotated
    predictions = tmp_path / "predictions.json"
    examples = _nq_examples(path, "dev")
    predictions.write_text(json.dumps({"predictions": [{
        "example_id": e["example_id"], "long_answer": {
            "start_token": -1, "end_token": -1, "start_byte": -1, "end_byte": -1},
        "long_answer_score": 0.0, "short_answers": [], "short_answers_score": 0.0,
        "yes_no_answer": "NONE"} for e in examples]}), encoding="utf-8")
    code = evaluate.main(["nq", "--gold", str(nq_release), "--split", "dev",
                          "--predictions", str(predictions)])
    assert code == 2
    assert "not annotated" in capsys.readouterr().err
    assert evaluate.main(["nq", "--gold", str(path), "--split", "dev",
                          "--predictions", str(predictions)]) == 0


def test_build_reqa_on_an_annotated_release_is_not_empty(nq_annotated, tmp_path):
    _, path, _, _ = nq_annotated
    result = build_reqa.run(["--source", "nq", "--input", str(path), "--output",
                             str(tmp_path / "reqa"), TEST_RUNNER])
    assert sum(result["manifest"]["rows_per_split"].values()) > 0


def _make_yes_no(votes_path: Path, row: dict) -> None:
    """Replace a question's simulated votes by ten workers who find it a good yes/no
    question answered YES by its first candidate paragraph (JNQ's order)."""
    kept = [line for line in votes_path.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["question_id"] != row["id"]]
    first, *others = row["candidate_paragraph_ids"]
    for worker in range(10):
        base = {"question_id": row["id"], "annotator_id": f"x{worker}"}
        kept += [json.dumps({**base, "stage": "good_question", "value": True}),
                 json.dumps({**base, "stage": "yes_no_question", "value": True}),
                 json.dumps({**base, "stage": "long_answer", "paragraph": first,
                             "value": True}),
                 json.dumps({**base, "stage": "yes_no_answer", "paragraph": first,
                             "value": "YES"})]
        kept += [json.dumps({**base, "stage": "long_answer", "paragraph": p, "value": False})
                 for p in others]
    votes_path.write_text("\n".join(kept) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def jnq_releases(sample_build):
    _, jnq = sample_build("jnq")  # the sample in memory, shared with test_build_jnq
    return jnq, sample_build("jboolq")[1]


def _jsonl_records(path: Path, kind: str) -> list[dict]:
    return [json.loads(line) for f in sorted((path / "rejected" / kind).glob("*"))
            for line in f.read_text(encoding="utf-8").splitlines()]


def _table2_exist_row(card: str) -> list[str]:
    """The cells of the EXIST row of the card's Table 2 (span, yes/no, none, total)."""
    lines = card.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| Paragraphs (Table 2)"))
    row = next(line for line in lines[start:] if line.startswith("| EXIST |"))
    return [cell.strip() for cell in row.strip("|").split("|")][1:]


def test_jnq_and_jboolq_round_trip(jnq_releases, tmp_path):
    jnq, jboolq = jnq_releases
    jnq_votes, jboolq_votes = tmp_path / "jnq.jsonl", tmp_path / "jboolq.jsonl"
    assert annotate.main(["simulate", "--release", str(jnq), "--out", str(jnq_votes)]) == 0
    assert annotate.main(["simulate", "--release", str(jboolq), "--out",
                          str(jboolq_votes)]) == 0
    only_jnq = sorted({r["id"] for r in _jnq_rows(jnq)} - {r["id"] for r in _jnq_rows(jboolq)})[0]
    _make_yes_no(jnq_votes, next(r for r in _jnq_rows(jnq) if r["id"] == only_jnq))
    result = annotate.run(["import", "--dataset", "jnq", "--input", str(jnq), "--votes",
                           str(jnq_votes), "--output", str(tmp_path / "out"), TEST_RUNNER])
    path = Path(result["path"])
    counts = result["stats"]["counts"]
    read = Counts(counts, COUNTERS)
    rows = _jnq_rows(path)
    assert read[OUTCOME["kept"]] == len(rows) > 0
    assert COUNTERS.undeclared(counts) == []
    assert read[EXAMPLES_READ] == read.total(OUTCOME.values()) == len(_jnq_rows(jnq))
    dropped = _jsonl_records(path, "dropped_questions")
    assert Counter(d["reason"] for d in dropped) == {
        outcome: read[counter] for outcome, counter in OUTCOME.items()
        if outcome not in ("kept", "pending") and read[counter]}
    assert len(_jsonl_records(path, "pending_examples")) == read[OUTCOME["pending"]]
    for row in rows:
        assert len(row["annotations"]) == len(row["candidate_paragraph_ids"])
        assert row["gold_paragraph_ids"] == [a["paragraph_id"] for a in row["annotations"]
                                             if a["label"] == "EXIST"]
        for a in row["annotations"]:
            if a["short_answer_type"] == "span":
                assert not row["is_yes_no_question"]
                text = {p["id"]: p["text"] for p in row["paragraphs"]}[a["paragraph_id"]]
                assert text[a["span_start"]:a["span_end"]] == a["span_text"] != ""
            elif a["short_answer_type"] == "yes_no":
                assert row["is_yes_no_question"] and a["label"] == "EXIST"
                assert a["yes_no_answer"] in ("YES", "NO")
            else:
                assert a["yes_no_answer"] == "NONE"
    # JNQ keeps its yes/no questions with their YES/NO short answers (JNQ §3.5, Table 2)
    yes_no_rows = {r["id"]: r for r in rows if r["is_yes_no_question"]}
    assert only_jnq in yes_no_rows
    assert [(a["label"], a["short_answer_type"], a["yes_no_answer"])
            for a in yes_no_rows[only_jnq]["annotations"]][0] == ("EXIST", "yes_no", "YES")
    yes_no_paragraphs = sum(a["short_answer_type"] == "yes_no" for r in rows
                            for a in r["annotations"])
    assert yes_no_paragraphs > 0
    quality = result["stats"]["quality"]
    assert quality["table2"]["EXIST"]["yes_no"] == yes_no_paragraphs
    assert quality["yes_no_questions"] == len(yes_no_rows)
    card = (path / "README.md").read_text("utf-8")
    assert "Simulated annotations" in card
    assert _table2_exist_row(card)[1] == str(yes_no_paragraphs)

    merged = annotate.run(["import", "--dataset", "jboolq", "--input", str(jboolq),
                           "--input", str(jnq), "--votes", str(jboolq_votes), "--votes",
                           str(jnq_votes), "--output", str(tmp_path / "out"), TEST_RUNNER])
    merged_rows = _jnq_rows(Path(merged["path"]))
    assert _votes_accounted(result["stats"]["counts"])
    assert _votes_accounted(merged["stats"]["counts"])
    assert merged_rows and all(r["is_yes_no_question"] for r in merged_rows)
    # ... and JBoolQ still merges them (§4): exactly JNQ's yes/no questions it does not hold
    jboolq_ids = {r["id"] for r in _jnq_rows(jboolq)}
    from_jnq = {r["id"]: r for r in merged_rows if r["variant"] == "jnq"}
    assert set(from_jnq) == set(yes_no_rows) - jboolq_ids
    for question_id, row in from_jnq.items():
        assert row["annotations"] == yes_no_rows[question_id]["annotations"]
    assert from_jnq[only_jnq]["annotations"][0]["yes_no_answer"] == "YES"
    merged_counts = merged["stats"]["counts"]
    assert merged_counts["examples"].get("duplicate_question", 0) == len(
        jboolq_ids & {r["id"] for r in _jnq_rows(jnq)})


def test_evaluate_jnq_refuses_an_unannotated_release(jnq_releases, tmp_path, capsys):
    jnq, _ = jnq_releases
    predictions = tmp_path / "p.json"
    predictions.write_text(json.dumps({r["id"]: [0] for r in _jnq_rows(jnq)}), encoding="utf-8")
    assert evaluate.main(["jnq", "--gold", str(jnq), "--predictions", str(predictions)]) == 2
    assert "unannotated" in capsys.readouterr().err


def test_export_refuses_bad_options_before_any_work(nq_release, tmp_path, capsys):
    assert annotate.main(["export", "--release", str(nq_release), "--out",
                          str(tmp_path / "x"), "--stage", "span"]) == 2
    assert "unknown stage" in capsys.readouterr().err
    assert annotate.main(["export", "--release", str(tmp_path), "--out",
                          str(tmp_path / "y")]) == 2
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_export_writes_tasks_config_and_manifest(nq_release, tmp_path):
    out = tmp_path / "tasks"
    assert annotate.main(["export", "--release", str(nq_release), "--out", str(out),
                          "--split", "dev", "--tasks-per-file", "2"]) == 0
    manifest = json.loads((out / "annotation_export.json").read_text(encoding="utf-8"))
    dev = _nq_examples(nq_release, "dev")
    assert manifest["tasks"] == {"nq": len(dev)} and manifest["ways"] == {"dev": 5}
    assert (out / "nq" / "config.xml").read_text(encoding="utf-8").startswith("<View")
    project = json.loads((out / "nq" / "project.json").read_text(encoding="utf-8"))
    assert project["maximum_annotations"] == 5
    assert project["show_instruction"] is True and "earliest" in project["expert_instruction"]
    tasks = [t for f in sorted((out / "nq").glob("tasks-*.json"))
             for t in json.loads(f.read_text(encoding="utf-8"))]
    assert len(list((out / "nq").glob("tasks-*.json"))) == -(-len(dev) // 2)
    assert {t["data"]["example_id"] for t in tasks} == {str(e["example_id"]) for e in dev}
    assert {t["data"]["release"] for t in tasks} == {manifest["release"]["fingerprint"]}
    assert annotate.main(["export", "--release", str(nq_release), "--out", str(out)]) == 2


def test_later_jnq_stages_ask_only_about_what_passed(jnq_releases, tmp_path):
    jnq, _ = jnq_releases
    votes = tmp_path / "votes.jsonl"
    assert annotate.main(["simulate", "--release", str(jnq), "--out", str(votes)]) == 0
    everything, limited = tmp_path / "all", tmp_path / "limited"
    assert annotate.main(["export", "--release", str(jnq), "--tool", "votes", "--out",
                          str(everything)]) == 0
    assert annotate.main(["export", "--release", str(jnq), "--tool", "votes", "--out",
                          str(limited), "--votes", str(votes)]) == 0
    counts = [json.loads((d / "annotation_export.json").read_text("utf-8"))["tasks"]
              for d in (everything, limited)]
    assert counts[0]["good_question"] == counts[1]["good_question"] == len(_jnq_rows(jnq))
    assert counts[1]["long_answer"] < counts[0]["long_answer"]
    assert counts[1]["span"] < counts[0]["span"]
    line = (limited / "span" / "tasks-00000.jsonl").read_text("utf-8").splitlines()[0]
    assert {"question_id", "paragraph", "paragraph_text", "release"} <= set(json.loads(line))


def test_same_bytes_in_memory_and_multi_process(nq_release, nq_annotated, tmp_path):
    from tests.pipelines.test_determinism import _fingerprint
    from tests.sample_releases import MULTI_PROCESS

    _, path, votes, _ = nq_annotated
    result = annotate.run(["import", "--dataset", "nq", "--input", str(nq_release), "--votes",
                           str(votes), "--output", str(tmp_path), *MULTI_PROCESS])
    assert _fingerprint(Path(result["path"])) == _fingerprint(path)


def test_import_checks_the_export_and_takes_its_ways(nq_release, nq_annotated, jnq_releases,
                                                      tmp_path, capsys):
    _, _, votes, _ = nq_annotated
    jnq, _ = jnq_releases
    other = tmp_path / "other_export"
    assert annotate.main(["export", "--release", str(jnq), "--tool", "votes", "--out",
                          str(other), "--stage", "good_question"]) == 0
    code = annotate.main(["import", "--dataset", "nq", "--input", str(nq_release), "--votes",
                          str(votes), "--export", str(other), "--output",
                          str(tmp_path / "out"), TEST_RUNNER])
    assert code == 2 and "was exported from release" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    ours = tmp_path / "export"
    assert annotate.main(["export", "--release", str(nq_release), "--tool", "votes", "--out",
                          str(ours), "--ways", "train=1,dev=3,test=5"]) == 0
    result = annotate.run(["import", "--dataset", "nq", "--input", str(nq_release), "--votes",
                           str(votes), "--export", str(ours), "--output", str(tmp_path / "out"),
                           TEST_RUNNER])
    assert result["manifest"]["options"]["ways"] == {"train": 1, "dev": 3, "test": 5}


def test_file_inputs_of_the_wrong_kind_are_refused_before_any_work(jnq_releases, tmp_path,
                                                                   capsys):
    jnq, _ = jnq_releases
    code = annotate.main(["import", "--dataset", "nq", "--input", str(jnq / "train" / "*"),
                          "--votes", str(jnq / "dataset_info.json"), "--output",
                          str(tmp_path / "out")])
    assert code == 2 and "reads NQ original-format" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "annotation_sample_expected.json"


def _outcomes(nq_path: Path, jnq_result: dict) -> dict:
    """What the sample's simulated annotation aggregates to, per item (for the golden file)."""
    nq = {str(e["example_id"]): [a["long_answer"]["candidate_index"] for a in e["annotations"]]
          for e in _nq_examples(nq_path)}
    jnq = {r["id"]: {"gold": r["gold_paragraph_ids"],
                     "short": [[a["short_answer_type"], a["span_text"], a["yes_no_answer"]]
                               for a in r["annotations"] if a["label"] == "EXIST"]}
           for r in _jnq_rows(Path(jnq_result["path"]))}
    return {"nq_long_answers": dict(sorted(nq.items())), "jnq": dict(sorted(jnq.items())),
            "jnq_examples": jnq_result["stats"]["counts"]["examples"]}


def test_the_sample_aggregates_to_the_golden_outcomes(nq_annotated, jnq_releases, tmp_path):
    """Simulated votes (seeded) through the paper's rules give exactly the stored outcomes.
    After an intended change, rewrite the file with UPDATE_GOLDEN=1 and review its diff."""
    _, nq_path, _, _ = nq_annotated
    jnq, _ = jnq_releases
    votes = tmp_path / "jnq.jsonl"
    assert annotate.main(["simulate", "--release", str(jnq), "--out", str(votes)]) == 0
    result = annotate.run(["import", "--dataset", "jnq", "--input", str(jnq), "--votes",
                           str(votes), "--output", str(tmp_path / "out"), TEST_RUNNER])
    outcomes = _outcomes(nq_path, result)
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(outcomes, ensure_ascii=False, indent=1) + "\n",
                          encoding="utf-8")
    assert outcomes == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_a_damaged_release_is_refused_before_any_work(nq_release, nq_annotated, tmp_path,
                                                      capsys):
    import shutil

    _, _, votes, _ = nq_annotated
    copy = tmp_path / "nq" / nq_release.name
    shutil.copytree(nq_release, copy)
    target = next((copy / "dev").glob("*.parquet"))
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x10
    target.write_bytes(bytes(data))
    code = annotate.main(["import", "--dataset", "nq", "--input", str(copy), "--votes",
                          str(votes), "--output", str(tmp_path / "out")])
    assert code == 5 and target.name in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("option", "message"), [
    (["--workers", "0"], "thresholds"), (["--exist", "3"], "thresholds"),
    (["--yes-no-answer", "11"], "thresholds"), (["--good-question", "-1"], "0 or more")])
def test_impossible_thresholds_are_refused_before_any_work(option, message, tmp_path, capsys):
    code = annotate.main(["import", "--dataset", "jnq", "--input", str(tmp_path), "--votes",
                          str(tmp_path), "--output", str(tmp_path / "out"), *option])
    assert code == 2 and message in capsys.readouterr().err
