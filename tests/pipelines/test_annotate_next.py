"""``annotate next``: adaptive rounds on the bundled sample JNQ release until every question
is decided, then ``import --curtailed`` gives the full overlap's decisions; NQ requests."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from filters.annotation.votes import parse_jnq_vote
from pipelines import annotate
from tests.conftest import TEST_RUNNER
from transforms.annotation.counters import JUDGMENTS, JUDGMENTS_FULL_OVERLAP, JUDGMENTS_USED
from transforms.annotation.export import read_examples
from transforms.annotation.manifest import read_release
from transforms.annotation.rounds import NEXT_MANIFEST, REQUESTS
from transforms.annotation.simulate import WorkerPool
from transforms.annotation.simulate_release import write_simulated_votes
from transforms.annotation.simulate_rounds import answer_jnq_requests
from transforms.jnq.labels import as_names

POOL = WorkerPool(size=50, spammer_share=0.1, seed=0)


def _requests(directory: Path) -> list[dict]:
    return [json.loads(line) for line in
            (directory / REQUESTS).read_text(encoding="utf-8").splitlines()]


def _answer(release, requests: list[dict], given: list[dict], out: Path) -> int:
    """Simulated workers answer ``requests``; their votes go to ``out``."""
    rows = {str(r["id"]): r for split in release.splits for r in read_examples(release, split)}
    asked = defaultdict(list)
    for request in requests:
        asked[request["question_id"]].append(request)
    judged = defaultdict(list)
    for record in given:
        judged[record["question_id"]].append(parse_jnq_vote(record))
    votes = []
    for question_id, its in sorted(asked.items()):
        votes += answer_jnq_requests(rows[question_id], its, judged[question_id], 10, POOL,
                                     "jnq", release.fingerprint)
    out.write_text("".join(json.dumps(v, sort_keys=True) + "\n" for v in votes),
                   encoding="utf-8")
    given += votes
    return len(votes)


def _decisions(path: Path) -> dict:
    rows = [as_names(r) for split in ("train", "dev", "test") if (path / split).is_dir()
            for r in pq.read_table(path / split).to_pylist()]
    kept = {r["id"]: (r["is_yes_no_question"], [
        (a["paragraph_id"], a["label"], a["short_answer_type"], a["span_start"], a["span_end"],
         a["yes_no_answer"]) for a in r["annotations"]]) for r in rows}
    dropped = {}
    for file in sorted((path / "rejected" / "dropped_questions").glob("*")):
        for line in file.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            dropped[record["question_id"]] = record["reason"]
    return {"kept": kept, "dropped": dropped}


def test_rounds_until_all_decided_give_the_full_overlaps_decisions(sample_build, tmp_path,
                                                                   capsys):
    _, path = sample_build("jnq")
    release = read_release(str(path))
    given: list[dict] = []
    rounds = 0
    while True:
        out = tmp_path / f"round{rounds}"
        argv = ["next", "--release", str(path), "--out", str(out)]
        if rounds:
            argv += ["--votes", str(tmp_path / "votes-*.jsonl")]
        assert annotate.main(argv) == 0
        printed = next(line for line in capsys.readouterr().out.splitlines()
                       if line.startswith("open items: ") or line == "all decided")
        manifest = json.loads((out / NEXT_MANIFEST).read_text(encoding="utf-8"))
        if printed == "all decided":
            assert manifest["open_items"] == 0 and not _requests(out)
            break
        assert printed == (f"open items: {manifest['open_items']}; judgments requested: "
                           f"{manifest['judgments_requested']}")
        requests = _requests(out)
        assert sum(r["more"] for r in requests) == manifest["judgments_requested"]
        tasks = sum(len(f.read_text().splitlines()) for f in out.glob("*/tasks-*.jsonl"))
        assert tasks == len(requests)  # one task per open slot group
        if rounds == 0:
            assert {r["stage"] for r in requests} == {"good_question"}
            assert all(r["more"] == 5 for r in requests)  # 5 "no" could decide it
        assert _answer(release, requests, given, tmp_path / f"votes-{rounds:02d}.jsonl") == \
            manifest["judgments_requested"]
        rounds += 1
        assert rounds < 40
    full = tmp_path / "full.jsonl"
    write_simulated_votes(release, list(release.splits), dict.fromkeys(release.splits, 10),
                          POOL, str(full))
    curtailed = annotate.run(["import", "--dataset", "jnq", "--input", str(path), "--votes",
                              str(tmp_path / "votes-*.jsonl"), "--curtailed", "--output",
                              str(tmp_path / "curtailed"), TEST_RUNNER])
    fixed = annotate.run(["import", "--dataset", "jnq", "--input", str(path), "--votes",
                          str(full), "--output", str(tmp_path / "fixed"), TEST_RUNNER])
    assert _decisions(Path(curtailed["path"])) == _decisions(Path(fixed["path"]))
    counts = curtailed["stats"]["counts"]
    assert counts["examples"] == fixed["stats"]["counts"]["examples"]
    judgments = counts[JUDGMENTS]
    assert judgments[JUDGMENTS_USED.name] == len(given) == counts["votes"]["used"]
    assert judgments[JUDGMENTS_FULL_OVERLAP.name] == fixed["stats"]["counts"]["votes"]["used"]
    assert judgments[JUDGMENTS_USED.name] < judgments[JUDGMENTS_FULL_OVERLAP.name]
    card = (Path(curtailed["path"]) / "README.md").read_text(encoding="utf-8")
    assert "## Judgments" in card and "| long_answer | NONE |" in card
    assert JUDGMENTS not in fixed["stats"]["counts"]
    share = 100 * judgments[JUDGMENTS_USED.name] / judgments[JUDGMENTS_FULL_OVERLAP.name]
    assert f"judgments used: {len(given)} of a fixed overlap's" in annotate.format_summary(
        curtailed) and f"({share:.1f}%)" in annotate.format_summary(curtailed)
    assert "judgments used" not in annotate.format_summary(fixed)


def test_next_is_deterministic_and_checks_before_any_work(sample_build, tmp_path, capsys):
    _, path = sample_build("jnq")
    first, second = tmp_path / "a", tmp_path / "b"
    for out in (first, second):
        assert annotate.main(["next", "--release", str(path), "--out", str(out),
                              "--tool", "label-studio"]) == 0
    names = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / n).read_bytes() == (second / n).read_bytes() for n in names)
    project = json.loads((first / "good_question" / "more-5" / "project.json").read_text())
    assert project["maximum_annotations"] == 5
    capsys.readouterr()
    assert annotate.main(["next", "--release", str(path), "--out", str(first)]) == 2
    assert "exists and is not an empty directory" in capsys.readouterr().err
    assert annotate.main(["next", "--release", str(path), "--out", str(tmp_path / "c"),
                          "--votes", str(tmp_path / "none-*.jsonl")]) == 2
    assert "matches no file" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


def test_nq_next_asks_each_example_up_to_its_splits_ways(sample_build, tmp_path, capsys):
    _, path = sample_build("nq")
    release = read_release(str(path))
    out = tmp_path / "round0"
    assert annotate.main(["next", "--release", str(path), "--out", str(out)]) == 0
    requests = _requests(out)
    ways = {"train": 1, "dev": 5, "test": 5}
    examples = [e for split in release.splits for e in read_examples(release, split)]
    assert len(requests) == len(examples)
    assert all(r["stage"] == "nq" and r["more"] == ways[r["split"]] and "paragraph" not in r
               and "example_id" in r for r in requests)
    votes = tmp_path / "nq.jsonl"
    write_simulated_votes(release, ["test"], {"test": 3}, POOL, str(votes))
    again = tmp_path / "round1"
    assert annotate.main(["next", "--release", str(path), "--out", str(again), "--votes",
                          str(votes), "--split", "test"]) == 0
    assert {r["more"] for r in _requests(again)} == {2}  # 3 of test's 5 given: 2 more each
    capsys.readouterr()
    assert annotate.main(["import", "--dataset", "nq", "--input", str(path), "--votes",
                          str(votes), "--curtailed", "--output", str(tmp_path / "x")]) == 2
    assert "NQ keeps every annotation" in capsys.readouterr().err


@pytest.mark.parametrize("tool", ["votes"])
def test_api_next_round(sample_build, tmp_path, tool):
    from pipelines import api

    _, path = sample_build("jnq")
    result = api.annotate_next(release=str(path), out=str(tmp_path / "r"), tool=tool)
    assert result["manifest"]["open_items"] > 0


def test_simulate_answers_a_round_of_requests(sample_build, tmp_path, capsys):
    _, path = sample_build("jnq")
    out = tmp_path / "round"
    assert annotate.main(["next", "--release", str(path), "--out", str(out)]) == 0
    votes = tmp_path / "votes.jsonl"
    assert annotate.main(["simulate", "--release", str(path), "--requests",
                          str(out / REQUESTS), "--out", str(votes)]) == 0
    records = [json.loads(line) for line in votes.read_text(encoding="utf-8").splitlines()]
    assert len(records) == sum(r["more"] for r in _requests(out))
    assert all(r["stage"] == "good_question" and r["simulated"] for r in records)
    again = tmp_path / "again.jsonl"
    assert annotate.main(["simulate", "--release", str(path), "--requests",
                          str(out / REQUESTS), "--votes", str(votes), "--out", str(again)]) == 0
    asked = {(r["question_id"], r["annotator_id"]) for r in records}
    assert not asked & {(json.loads(line)["question_id"], json.loads(line)["annotator_id"])
                        for line in again.read_text(encoding="utf-8").splitlines()}
    capsys.readouterr()
    assert annotate.main(["simulate", "--release", str(path), "--votes", str(votes),
                          "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "--votes applies to --requests" in capsys.readouterr().err
