"""``annotate next --stop confident``: a tiny campaign (next, simulate --requests, next, ...,
import --stop confident --aggregate ds) whose decisions are the model's; the options are
checked before any work; ``--stop exact`` is today's ``next``, byte for byte."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq

from filters.annotation.jnq import JnqThresholds
from filters.annotation.sequential import CONFIDENT, StopRule
from pipelines import annotate
from tests.conftest import TEST_RUNNER
from transforms.annotation.confident import confident_round
from transforms.annotation.counters import JUDGMENTS, JUDGMENTS_FULL_OVERLAP, JUDGMENTS_USED
from transforms.annotation.export import read_examples
from transforms.annotation.judgment_counts import STOP_KEY
from transforms.annotation.manifest import read_release
from transforms.annotation.rounds import NEXT_MANIFEST, REQUESTS, jnq_usable, read_round_votes
from transforms.annotation.worker_rules import decisions

RULE = ["--stop", "confident", "--confidence", "0.95", "--min-votes", "2"]


def _jnq_cold_start(requests: list[dict]) -> bool:
    """JNQ's cold start: min-votes on every question's first stage."""
    return {(r["stage"], r["more"]) for r in requests} == {("good_question", 2)}


def _nq_cold_start(requests: list[dict]) -> bool:
    """NQ's cold start, or a 1-way train example's only annotation."""
    return {(r["split"], r["more"]) for r in requests} <= {("train", 1), ("dev", 2), ("test", 2)}


def _campaign(path: Path, tmp_path: Path, capsys,
              cold_start: Callable[[list[dict]], bool] = _jnq_cold_start, most: int = 30) -> int:
    """Rounds of next and simulate --requests until ``all decided`` (the first round's
    requests checked by ``cold_start``, fewer than ``most`` rounds); the rounds."""
    rounds = 0
    while True:
        out = tmp_path / f"round{rounds}"
        argv = ["next", "--release", str(path), "--out", str(out), *RULE]
        if rounds:
            argv += ["--votes", str(tmp_path / "votes-*.jsonl")]
        assert annotate.main(argv) == 0
        if "all decided" in capsys.readouterr().out.splitlines():
            return rounds
        manifest = json.loads((out / NEXT_MANIFEST).read_text(encoding="utf-8"))
        assert manifest["stop"] == StopRule(CONFIDENT, 0.95, 2).describe()
        requests = [json.loads(line) for line in
                    (out / REQUESTS).read_text(encoding="utf-8").splitlines()]
        if rounds == 0:
            assert cold_start(requests)
        simulate = ["simulate", "--release", str(path), "--requests", str(out / REQUESTS),
                    "--out", str(tmp_path / f"votes-{rounds:02d}.jsonl")]
        if rounds:
            simulate += ["--votes", str(tmp_path / "votes-*.jsonl")]
        assert annotate.main(simulate) == 0
        rounds += 1
        assert rounds < most


def test_confident_campaign_imports_the_models_decisions(sample_build, tmp_path, capsys):
    _, path = sample_build("jnq")
    release = read_release(str(path))
    rounds = _campaign(path, tmp_path, capsys)
    assert rounds >= 2
    votes = str(tmp_path / "votes-*.jsonl")
    result = annotate.run(["import", "--dataset", "jnq", "--input", str(path), "--votes", votes,
                           *RULE, "--aggregate", "ds", "--output", str(tmp_path / "rel"),
                           TEST_RUNNER])
    stats = result["stats"]
    assert stats["counts"]["examples"].get("pending", 0) == 0
    by_item, _ = read_round_votes((votes,), "jnq")
    rule = StopRule(CONFIDENT, 0.95, 2)
    fitted = confident_round(rule, [v for vs in by_item.values() for v in vs],
                             JnqThresholds())
    expected = set()
    used = 0
    for split in release.splits:
        for row in read_examples(release, split):
            usable = jnq_usable(row, "jnq", by_item.get(str(row["id"]), []),
                                release.fingerprint)
            used += len(usable)
            aggregated = fitted.aggregate(str(row["id"]), usable,
                                          list(row["candidate_paragraph_ids"]), "jnq", 10)
            for decided in decisions(aggregated, usable, fitted.model):
                expected.add((str(row["id"]), decided["stage"], decided["paragraph"],
                              decided["label"], decided["confidence"]))
    published = set()
    for file in Path(result["path"]).glob("decisions/*/*.parquet"):
        for row in pq.read_table(file).to_pylist():
            published.add((row["question_id"], row["decision"], row["paragraph"], row["label"],
                           row["confidence"]))
            assert row["aggregate"] == "ds"
    assert published == expected
    judgments = stats["counts"][JUDGMENTS]
    # the judgments the decisions read; those asked before the model changed its mind about
    # an earlier stage are votes.not_needed (the benchmark counts every judgment asked)
    read = stats["counts"]["votes"]
    assert judgments[JUDGMENTS_USED.name] == read["used"]
    assert read["used"] + read.get("not_needed", 0) == used
    assert judgments[JUDGMENTS_USED.name] < judgments[JUDGMENTS_FULL_OVERLAP.name]
    assert stats[STOP_KEY] == rule.describe()
    card = (Path(result["path"]) / "README.md").read_text(encoding="utf-8")
    assert "`--stop confident --confidence 0.95 --min-votes 2`" in card
    assert "(--stop confident --confidence 0.95)" in annotate.format_summary(result)
    # a refresh carries the model's decisions only under the same rule (--previous)
    again = ["import", "--dataset", "jnq", "--input", str(path), "--votes", votes,
             "--aggregate", "ds", "--output", str(tmp_path / "rel"), "--version", "1.0.1",
             "--previous", result["path"], TEST_RUNNER]
    capsys.readouterr()
    assert annotate.main(again) == 2
    assert ("--stop exact (previous --stop confident --confidence 0.95 --min-votes 2)"
            in capsys.readouterr().err)
    carried = annotate.run([*again, *RULE])
    assert carried["stats"]["counts"]["annotations"]["carried"] > 0
    assert carried["stats"][STOP_KEY] == rule.describe()


def test_stop_options_are_checked_before_any_work(sample_build, tmp_path, capsys):
    _, path = sample_build("jnq")
    out = tmp_path / "r"
    for extra, message in (
            (["--stop", "confident", "--confidence", "1"], "above 0.5 and below 1"),
            (["--stop", "confident", "--confidence", "0.5"], "above 0.5 and below 1"),
            (["--confidence", "0.9"], "apply to --stop confident"),
            (["--stop", "confident", "--min-votes", "0"], "--min-votes must be at least 1")):
        assert annotate.main(["next", "--release", str(path), "--out", str(out), *extra]) == 2
        assert message in capsys.readouterr().err
        assert not out.exists()
    base = ["import", "--dataset", "jnq", "--input", str(path), "--votes",
            str(tmp_path / "none.jsonl"), "--output", str(tmp_path / "rel")]
    assert annotate.main([*base, "--stop", "confident"]) == 2
    assert "pass --aggregate ds" in capsys.readouterr().err
    assert annotate.main([*base, "--stop", "confident", "--aggregate", "ds",
                          "--curtailed"]) == 2
    assert "drop --curtailed" in capsys.readouterr().err
    assert not (tmp_path / "rel").exists()


def test_stop_exact_is_todays_next_byte_for_byte(sample_build, tmp_path):
    _, path = sample_build("jnq")
    plain, exact = tmp_path / "plain", tmp_path / "exact"
    assert annotate.main(["next", "--release", str(path), "--out", str(plain)]) == 0
    assert annotate.main(["next", "--release", str(path), "--out", str(exact),
                          "--stop", "exact"]) == 0
    names = sorted(p.relative_to(plain) for p in plain.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(exact) for p in exact.rglob("*") if p.is_file())
    assert all((plain / n).read_bytes() == (exact / n).read_bytes() for n in names)
    assert "stop" not in json.loads((plain / NEXT_MANIFEST).read_text(encoding="utf-8"))


def test_api_next_takes_the_stop_rule(sample_build, tmp_path):
    from pipelines import api

    _, path = sample_build("jnq")
    result = api.annotate_next(release=str(path), out=str(tmp_path / "r"), stop="confident",
                               confidence=0.99)
    manifest = result["manifest"]
    assert manifest["stop"]["rule"] == "confident" and manifest["stop"]["confidence"] == 0.99
    asked = defaultdict(int)
    for line in (tmp_path / "r" / REQUESTS).read_text(encoding="utf-8").splitlines():
        asked[json.loads(line)["more"]] += 1
    assert set(asked) == {2}  # the default cold start


def test_nq_confident_rounds_then_import(sample_build, tmp_path, capsys):
    _, path = sample_build("nq")
    _campaign(path, tmp_path, capsys, _nq_cold_start, most=10)
    result = annotate.run(["import", "--dataset", "nq", "--input", str(path), "--votes",
                           str(tmp_path / "votes-*.jsonl"), *RULE, "--aggregate", "ds",
                           "--output", str(tmp_path / "rel"), TEST_RUNNER])
    counts = result["stats"]["counts"]
    assert counts["examples"].get("pending", 0) == 0
    judgments = counts[JUDGMENTS]
    assert judgments[JUDGMENTS_USED.name] == counts["votes"]["used"]
    assert judgments[JUDGMENTS_USED.name] <= judgments[JUDGMENTS_FULL_OVERLAP.name]
