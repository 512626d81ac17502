"""``annotate next --gold FILE --gold-rate SHARE`` on the bundled JNQ sample: gold tasks look
like the others, requests.jsonl and the manifest say which were gold, ``simulate --requests``
answers them, and ``import --gold`` scores them in ``workers/`` without counting them in any
decision; the options are checked before any work."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines import annotate
from tests.conftest import TEST_RUNNER
from transforms.annotation.export import read_examples
from transforms.annotation.gold_rounds import GOLD_FIELD
from transforms.annotation.manifest import read_release
from transforms.annotation.rounds import NEXT_MANIFEST, REQUESTS
from transforms.annotation.simulate import WorkerPool
from transforms.annotation.simulate_gold import gold_lines


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _gold_file(jnq: Path, out: Path, questions: int = 4) -> list[str]:
    """Gold answers of the first train questions, from simulate's hidden truth (its default
    pool, the one ``simulate --requests`` uses)."""
    release = read_release(str(jnq))
    rows = list(read_examples(release, "train"))[:questions]
    out.write_text("".join(line for row in rows for line in gold_lines(row, WorkerPool(), "jnq")),
                   encoding="utf-8")
    return [str(row["id"]) for row in rows]


def _next(jnq: Path, out: Path, gold: Path, *extra: str) -> int:
    return annotate.main(["next", "--release", str(jnq), "--out", str(out), "--gold", str(gold),
                          "--gold-rate", "0.2", *extra])


def test_gold_rounds_measure_workers_and_never_reach_a_decision(sample_build, tmp_path,
                                                                 capsys):
    _, jnq = sample_build("jnq")
    gold = tmp_path / "gold.jsonl"
    gold_ids = set(_gold_file(jnq, gold))
    votes = tmp_path / "votes"
    votes.mkdir()
    gold_votes = total = 0
    for n in range(1, 40):
        out = tmp_path / f"round{n:02d}"
        assert _next(jnq, out, gold, *(["--votes", str(votes / "*.jsonl")] if n > 1 else [])) == 0
        printed = capsys.readouterr().out
        manifest = json.loads((out / NEXT_MANIFEST).read_text(encoding="utf-8"))
        if manifest["open_items"] == 0:
            break
        requests = _lines(out / REQUESTS)
        flagged = [r for r in requests if r.get(GOLD_FIELD)]
        assert flagged == manifest["gold"]["requests"]
        assert {r["question_id"] for r in flagged} <= gold_ids
        assert not {r["question_id"] for r in requests if not r.get(GOLD_FIELD)} & gold_ids
        assert sum(r["more"] for r in requests) == manifest["judgments_requested"]
        assert manifest["gold"]["judgments"] == sum(r["more"] for r in flagged)
        if flagged:
            assert f"gold: {len(flagged)} tasks" in printed
        tasks = [json.loads(line) for f in sorted(out.glob("*/tasks-*.jsonl"))
                 for line in f.read_text(encoding="utf-8").splitlines()]
        assert len(tasks) == len(requests)
        assert all(GOLD_FIELD not in task for task in tasks)  # nothing tells gold apart
        shown = {(t["question_id"], t["stage"], t.get("paragraph")) for t in tasks}
        assert {(r["question_id"], r["stage"], r.get("paragraph")) for r in flagged} <= shown
        answered = votes / f"{n:02d}.jsonl"
        assert annotate.main(["simulate", "--release", str(jnq), "--requests",
                              str(out / REQUESTS), "--out", str(answered)]
                             + (["--votes", str(votes / "*.jsonl")] if n > 1 else [])) == 0
        written = _lines(answered)
        assert len(written) == manifest["judgments_requested"]
        gold_votes += sum(v["question_id"] in gold_ids for v in written)
        total += len(written)
    else:
        pytest.fail("the rounds never ended")
    assert gold_votes > 0.05 * total
    result = annotate.run(["import", "--dataset", "jnq", "--input", str(jnq), "--votes",
                           str(votes / "*.jsonl"), "--curtailed", "--gold", str(gold),
                           "--output", str(tmp_path / "out"), TEST_RUNNER])
    counts = result["stats"]["counts"]
    assert counts["votes"]["gold"] == gold_votes
    assert counts["votes"]["used"] == total - gold_votes  # gold never reaches a decision
    assert counts["examples"]["gold"] == len(gold_ids)
    version = Path(result["path"])
    rows = [r for f in sorted((version / "workers").rglob("*.parquet"))
            for r in pq.read_table(f).to_pylist()]
    assert sum(r["gold_judgments"] for r in rows) == gold_votes
    measured = [r for r in rows if r["gold_judgments"]]
    assert len(measured) >= 0.8 * len(rows)  # gold reaches (nearly) every worker
    decided = {r["question_id"] for f in sorted((version / "decisions").rglob("*.parquet"))
               for r in pq.read_table(f).to_pylist()}
    assert decided and not decided & gold_ids


def test_gold_rounds_are_deterministic_and_alike_in_label_studio(sample_build, tmp_path):
    _, jnq = sample_build("jnq")
    gold = tmp_path / "gold.jsonl"
    _gold_file(jnq, gold, questions=8)
    first, second = tmp_path / "a", tmp_path / "b"
    for out in (first, second):
        assert _next(jnq, out, gold, "--tool", "label-studio", "--gold-rate", "0.4") == 0
    names = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / n).read_bytes() == (second / n).read_bytes() for n in names)
    manifest = json.loads((first / NEXT_MANIFEST).read_text(encoding="utf-8"))
    gold_ids = {r["question_id"] for r in manifest["gold"]["requests"]}
    assert gold_ids and manifest["gold"]["rate"] == 0.4
    tasks = [task for f in sorted((first / "good_question" / "more-5").glob("tasks-*.json"))
             for task in json.loads(f.read_text(encoding="utf-8"))]
    shapes = {(tuple(sorted(t)), tuple(sorted(t["data"]))) for t in tasks}
    assert len(shapes) == 1  # gold and ordinary tasks have the same fields
    assert gold_ids <= {t["data"]["question_id"] for t in tasks}
    other = tmp_path / "c"
    assert _next(jnq, other, gold, "--tool", "label-studio", "--gold-rate", "0.4",
                 "--seed", "3") == 0
    assert (other / NEXT_MANIFEST).read_bytes() != (first / NEXT_MANIFEST).read_bytes()


def test_gold_options_are_checked_before_any_work(sample_build, tmp_path, capsys):
    _, jnq = sample_build("jnq")
    _, nq = sample_build("nq")
    gold = tmp_path / "gold.jsonl"
    gold_ids = _gold_file(jnq, gold, questions=1)
    stranger = tmp_path / "stranger.jsonl"
    stranger.write_text('{"question_id": "nowhere", "stage": "good_question", "value": true}\n',
                        encoding="utf-8")
    no_paragraph = tmp_path / "paragraph.jsonl"
    no_paragraph.write_text(json.dumps({"question_id": gold_ids[0], "stage": "long_answer",
                                        "paragraph": 999, "value": True}) + "\n",
                            encoding="utf-8")
    out = tmp_path / "never"
    base = ["next", "--release", str(jnq), "--out", str(out)]
    cases = [
        (["--gold", str(gold), "--gold-rate", "1"], "0 <= SHARE < 1"),
        (["--gold", str(gold), "--gold-rate", "-0.1"], "0 <= SHARE < 1"),
        (["--gold", str(gold), "--gold-rate", "nan"], "0 <= SHARE < 1"),
        (["--gold-rate", "0.05"], "--gold-rate needs --gold FILE"),
        (["--gold", str(gold)], "--gold needs --gold-rate"),
        (["--gold", str(tmp_path / "missing.jsonl"), "--gold-rate", "0.05"], "unreadable"),
        (["--gold", str(stranger), "--gold-rate", "0.05"], "not in the release (nowhere)"),
        (["--gold", str(no_paragraph), "--gold-rate", "0.05"], "has no paragraph 999"),
    ]
    for extra, message in cases:
        assert annotate.main(base + extra) == 2, extra
        assert message in capsys.readouterr().err, extra
        assert not out.exists()
    assert annotate.main(["next", "--release", str(nq), "--out", str(out), "--gold", str(gold),
                          "--gold-rate", "0.05"]) == 2
    assert "--gold applies to jnq and jboolq" in capsys.readouterr().err
    assert not out.exists()


def test_api_next_round_with_gold(sample_build, tmp_path):
    from pipelines import api

    _, jnq = sample_build("jnq")
    gold = tmp_path / "gold.jsonl"
    _gold_file(jnq, gold)
    result = api.annotate_next(release=str(jnq), out=str(tmp_path / "r"), gold=str(gold),
                               gold_rate=0.3)
    assert result["manifest"]["gold"]["tasks"] > 0
