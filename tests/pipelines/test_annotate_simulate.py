"""``annotate simulate --truth FILE --accuracy LOW,HIGH --spammers SHARE`` on sample releases."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from pipelines import annotate, api
from pipelines.cli.errors import UsageError


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_jnq_truth_is_written_beside_the_votes_and_is_deterministic(sample_build,
                                                                    tmp_path) -> None:
    _, release = sample_build("jnq")
    outputs = []
    for run in ("a", "b"):
        votes, truth = tmp_path / f"{run}.votes.jsonl", tmp_path / f"{run}.truth.jsonl"
        assert annotate.main(["simulate", "--release", str(release), "--out", str(votes),
                              "--truth", str(truth), "--spammers", "0.2", "--accuracy",
                              "0.6,0.9", "--seed", "3"]) == 0
        outputs.append((votes.read_bytes(), truth.read_bytes()))
    assert outputs[0] == outputs[1]
    votes, truths = _lines(tmp_path / "a.votes.jsonl"), _lines(tmp_path / "a.truth.jsonl")
    assert [t["question_id"] for t in truths] == list(dict.fromkeys(
        v["question_id"] for v in votes))
    assert {t["release"] for t in truths} == {v["release"] for v in votes}
    assert {t["dataset"] for t in truths} == {"jnq"}
    assert all(t["split"] and t["paragraphs"] and set(t) == {
        "dataset", "split", "question_id", "good", "yes_no_question", "paragraphs",
        "release"} for t in truths)


def test_perfect_workers_vote_the_truth(sample_build, tmp_path) -> None:
    _, release = sample_build("jnq")
    votes, truth = tmp_path / "votes.jsonl", tmp_path / "truth.jsonl"
    assert annotate.main(["simulate", "--release", str(release), "--out", str(votes),
                          "--truth", str(truth), "--accuracy", "1,1", "--spammers", "0"]) == 0
    good = {t["question_id"]: t["good"] for t in _lines(truth)}
    judged = [(v["question_id"], v["value"]) for v in _lines(votes)
              if v["stage"] == "good_question"]
    assert judged and all(value == good[question] for question, value in judged)


def test_nq_truth_has_one_line_per_example(sample_build, tmp_path) -> None:
    _, release = sample_build("nq")
    votes, truth = tmp_path / "votes.jsonl", tmp_path / "truth.jsonl"
    assert annotate.main(["simulate", "--release", str(release), "--out", str(votes),
                          "--truth", str(truth)]) == 0
    truths = _lines(truth)
    per_example = Counter(v["example_id"] for v in _lines(votes))
    assert [t["example_id"] for t in truths] == list(per_example)
    ways = {"train": 1, "dev": 5, "test": 5}
    assert all(per_example[t["example_id"]] == ways[t["split"]] for t in truths)
    assert all(t["long_answer_candidate"] >= -1 and t["yes_no_answer"] in ("YES", "NO", "NONE")
               for t in truths)


@pytest.mark.parametrize("options", [
    ["--accuracy", "0.9,0.8"], ["--accuracy", "0.5,1.2"], ["--accuracy", "x"],
    ["--accuracy", "0.8"], ["--accuracy", "nan,0.9"], ["--spammers", "1.5"],
    ["--spammers", "nan"], ["--spammers", "-0.1"], ["--spammers", "a"],
])
def test_bad_pool_options_are_usage_errors(options, tmp_path) -> None:
    with pytest.raises(UsageError, match="argument --"):
        annotate.build_parser().parse_args(["simulate", "--release", "r", "--out", "o",
                                            *options])
    assert annotate.main(["simulate", "--release", "r", "--out", str(tmp_path / "o"),
                          *options]) == 2


def test_truth_never_overwrites_and_is_another_file(sample_build, tmp_path) -> None:
    _, release = sample_build("jnq")
    votes, truth = tmp_path / "votes.jsonl", tmp_path / "truth.jsonl"
    truth.write_text("kept\n", encoding="utf-8")
    assert annotate.main(["simulate", "--release", str(release), "--out", str(votes),
                          "--truth", str(truth)]) == 2
    assert truth.read_text(encoding="utf-8") == "kept\n" and not votes.exists()
    assert annotate.main(["simulate", "--release", str(release), "--out", str(votes),
                          "--truth", str(votes)]) == 2
    assert not votes.exists()


def test_the_python_api_takes_the_same_options(sample_build, tmp_path) -> None:
    _, release = sample_build("jnq")
    result = api.annotate("simulate", release=release, out=tmp_path / "votes.jsonl",
                          truth=tmp_path / "truth.jsonl", accuracy="0.6,0.9", spammers=0.2)
    assert result["truth"] == str(tmp_path / "truth.jsonl")
    assert len(_lines(tmp_path / "truth.jsonl")) == result["counts"]["items"] > 0
    with pytest.raises(UsageError, match="--accuracy"):
        api.annotate("simulate", release=release, out=tmp_path / "v2.jsonl", accuracy="0.9,0.1")
