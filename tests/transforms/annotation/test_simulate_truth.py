"""The hidden truth lines of ``annotate simulate --truth``: what the workers were drawn from."""

from __future__ import annotations

import json

from filters.annotation.jnq import aggregate_question
from filters.annotation.votes import parse_jnq_vote
from tests.transforms.annotation.test_simulate import PERFECT, jnq_row, nq_example
from transforms.annotation.simulate import (
    WorkerPool,
    jnq_truth,
    nq_truth,
    simulate_jnq_votes,
    simulate_nq_votes,
)
from transforms.annotation.simulate_scores import nq_single_annotator_scores
from transforms.annotation.simulate_truth import (
    item_id,
    jnq_truth_record,
    nq_truth_record,
    read_truth,
    truth_line,
)


def test_nq_truth_record_is_the_drawn_truth_in_vote_fields() -> None:
    pool = WorkerPool(seed=4)
    for number in range(200):
        example = nq_example(number)
        truth = nq_truth(example, pool)
        record = nq_truth_record(example, pool, "dev")
        assert record == {
            "dataset": "nq", "split": "dev", "example_id": str(number),
            "question_good": truth.question_good,
            "long_answer_candidate": truth.long_answer_candidate,
            "short_answers": [{"start_token": s, "end_token": e}
                              for s, e in truth.short_answers],
            "yes_no_answer": truth.yes_no_answer}
        assert item_id(record) == str(number)


def test_perfect_nq_workers_score_100_against_the_truth() -> None:
    votes, truths = [], {}
    for number in range(100):
        example = nq_example(number)
        truths[str(number)] = nq_truth_record(example, PERFECT)
        votes += simulate_nq_votes(example, 3, PERFECT)
    scores = nq_single_annotator_scores(votes, truths)
    for kind in ("long", "short"):
        assert scores[kind].precision == scores[kind].recall == 1.0
        assert scores[kind].expected > 0


def test_jnq_truth_record_lists_every_candidate_with_its_label_and_answer() -> None:
    spans = yes_no = 0
    for order in ("jnq", "jboolq"):
        for number in range(150):
            row = jnq_row(f"q{number}")
            truth = jnq_truth(row, WorkerPool(), order)
            record = jnq_truth_record(row, WorkerPool(), order, "train")
            assert record["dataset"] == order and record["split"] == "train"
            assert item_id(record) == f"q{number}"
            assert (record["good"], record["yes_no_question"]) == (truth.good,
                                                                   truth.yes_no_question)
            assert [p["paragraph"] for p in record["paragraphs"]] == [0, 2, 3, 1, 4]
            for paragraph in record["paragraphs"]:
                exist = paragraph["paragraph"] in truth.exist
                assert paragraph["label"] == ("EXIST" if exist else "NONE")
                if paragraph["span"] is not None:
                    spans += 1
                    assert exist and not truth.yes_no_question
                    span = truth.spans[paragraph["paragraph"]]
                    assert paragraph["span"] == {"start": span[0], "end": span[1]}
                if paragraph["yes_no_answer"] != "NONE":
                    yes_no += 1
                    assert exist and truth.yes_no_question
    assert spans and yes_no


def test_perfect_jnq_workers_aggregate_to_the_truth() -> None:
    for number in range(100):
        row = jnq_row(f"q{number}")
        record = jnq_truth_record(row, PERFECT, "jnq")
        votes = [parse_jnq_vote(v) for v in simulate_jnq_votes(row, 10, PERFECT, "jnq")]
        result = aggregate_question(row["id"], votes, row["candidate_paragraph_ids"], "jnq", 10)
        if not record["good"]:
            assert result.outcome == "bad_question"
            continue
        assert result.outcome == "kept"
        assert result.is_yes_no_question == record["yes_no_question"]
        for judged, true in zip(result.paragraphs, record["paragraphs"], strict=True):
            assert judged.label == true["label"]
            assert judged.yes_no_answer == true["yes_no_answer"]
            expected = true["span"] and (true["span"]["start"], true["span"]["end"])
            assert judged.span == (expected or None)


def test_truth_lines_round_trip(tmp_path) -> None:
    record = jnq_truth_record(jnq_row("q1"), WorkerPool(), "jnq")
    line = truth_line(record, "abc")
    assert line.endswith("\n") and json.loads(line) == {**record, "release": "abc"}
    assert list(json.loads(line)) == sorted(json.loads(line))
    path = tmp_path / "truth.jsonl"
    path.write_text(line + "\n" + truth_line(record), encoding="utf-8")
    assert list(read_truth(path)) == [{**record, "release": "abc"}, record]
