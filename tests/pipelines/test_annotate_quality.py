"""``annotate import --aggregate`` and ``--gold`` end to end on the bundled JNQ sample: the
``decisions/`` and ``workers/`` tables, the gold accuracy, the missing extra, and the
``--previous`` carry recomputing the same workers table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines import annotate
from tests.conftest import TEST_RUNNER
from tests.sample_releases import copy_release


def _table(version_dir: Path, directory: str) -> list[dict]:
    return [row for f in sorted((version_dir / directory).rglob("*.parquet"))
            for row in pq.read_table(f).to_pylist()]


def _import(jnq: Path, votes: Path, out: Path, *extra: str) -> dict:
    return annotate.run(["import", "--dataset", "jnq", "--input", str(jnq), "--votes",
                         str(votes), "--output", str(out), TEST_RUNNER, *extra])


@pytest.fixture(scope="module")
def campaign(sample_build, tmp_path_factory):
    _, jnq = sample_build("jnq")
    work = tmp_path_factory.mktemp("quality")
    votes = work / "votes.jsonl"
    assert annotate.main(["simulate", "--release", str(jnq), "--out", str(votes),
                          "--spammers", "0.3"]) == 0
    paper = _import(jnq, votes, work / "paper")
    return jnq, votes, work, paper


def test_paper_writes_confidences_and_a_workers_table(campaign):
    _, _, _, paper = campaign
    path = Path(paper["path"])
    decisions = _table(path, "decisions")
    assert decisions and {d["aggregate"] for d in decisions} == {"paper"}
    assert all(0.0 <= d["confidence"] <= 1.0 for d in decisions)
    assert {d["decision"] for d in decisions} >= {"good_question", "long_answer"}
    workers = _table(path, "workers")
    assert workers and all(w["skill_source"] == "paper" for w in workers)
    assert all(w["gold_accuracy"] is None and w["gold_judgments"] == 0 for w in workers)
    for w in workers:
        assert w["skill"] == (None if w["agreement"] is None else pytest.approx(w["agreement"]))
    used = len(_table(path, "votes"))
    assert sum(w["judgments"] for w in workers) == used
    flagged = [w for w in workers if w["likely_spammer"]]
    assert flagged and all(w["agreement"] < 0.6 for w in flagged)
    card = (path / "README.md").read_text("utf-8")
    assert "`workers/all/*.parquet`" in card and "likely_spammer" in card
    files = json.loads((path / "dataset_info.json").read_text("utf-8"))
    assert "workers/all/all-00000-of-00001.parquet" in json.dumps(files)


def test_ds_decides_with_the_models_posterior(campaign):
    jnq, votes, work, _ = campaign
    result = _import(jnq, votes, work / "ds", "--aggregate", "ds")
    path = Path(result["path"])
    decisions = _table(path, "decisions")
    assert decisions and {d["aggregate"] for d in decisions} == {"ds"}
    assert all(0.0 <= d["confidence"] <= 1.0 for d in decisions)
    workers = {w["annotator_id"]: w for w in _table(path, "workers")}
    assert all(w["skill_source"] == "ds" for w in workers.values())
    assert all(w["skill"] is None or 0.0 <= w["skill"] <= 1.0 for w in workers.values())
    spammers = [w for w in workers.values() if w["likely_spammer"]]
    assert spammers and all(w["skill"] < 0.6 for w in spammers)


def test_gold_questions_measure_workers_and_are_not_published(campaign, tmp_path):
    jnq, votes, _, paper = campaign
    records = [json.loads(line) for line in votes.read_text("utf-8").splitlines()]
    question = sorted({r["question_id"] for r in records})[0]
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"question_id": question, "stage": "good_question",
                                "value": True}) + "\n", encoding="utf-8")
    result = _import(jnq, votes, tmp_path / "out", "--gold", str(gold))
    path = Path(result["path"])
    assert question not in {r["id"] for f in sorted(path.glob("*/*.parquet"))
                            if f.parent.name in ("train", "dev", "test")
                            for r in pq.read_table(f, columns=["id"]).to_pylist()}
    counts = result["stats"]["counts"]
    judged = [r for r in records if r["question_id"] == question]
    assert counts["examples"]["gold"] == 1
    assert counts["votes"]["gold"] == len(judged)
    workers = {w["annotator_id"]: w for w in _table(path, "workers")}
    for vote in judged:
        if vote["stage"] == "good_question":
            worker = workers[vote["annotator_id"]]
            assert worker["gold_judgments"] == 1
            assert worker["gold_accuracy"] == (1.0 if vote["value"] is True else 0.0)


def test_carry_recomputes_the_same_workers_table(campaign):
    jnq, votes, work, paper = campaign
    again = _import(jnq, votes, work / "paper", "--version", "1.0.1", "--previous",
                    paper["path"])
    assert again["stats"]["counts"]["annotations"]["carried"] > 0
    key = lambda w: w["annotator_id"]  # noqa: E731
    assert (sorted(_table(Path(again["path"]), "workers"), key=key)
            == sorted(_table(Path(paper["path"]), "workers"), key=key))
    carried = _table(Path(again["path"]), "decisions")
    assert carried and {d["aggregate"] for d in carried} <= {"carried", "paper"}


def test_a_model_without_crowd_kit_is_refused_before_any_work(campaign, tmp_path,
                                                              monkeypatch, capsys):
    jnq, votes, _, _ = campaign
    monkeypatch.setitem(sys.modules, "crowdkit.aggregation", None)
    code = annotate.main(["import", "--dataset", "jnq", "--input", str(jnq), "--votes",
                          str(votes), "--output", str(tmp_path / "out"), "--aggregate", "mace"])
    assert code == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "pip install '.[crowd]'" in error[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("line, message", [
    ("{\"question_id\": \"q\", \"stage\": \"nope\", \"value\": true}", "line 1"),
    ("not json", "line 1"),
])
def test_an_invalid_gold_file_is_refused_before_any_work(campaign, tmp_path, capsys, line,
                                                         message):
    jnq, votes, _, _ = campaign
    gold = tmp_path / "gold.jsonl"
    gold.write_text(line + "\n", encoding="utf-8")
    code = annotate.main(["import", "--dataset", "jnq", "--input", str(jnq), "--votes",
                          str(votes), "--output", str(tmp_path / "out"), "--gold", str(gold)])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_python_api_takes_the_options(campaign, tmp_path):
    from pipelines import api

    jnq, votes, _, _ = campaign
    result = api.annotate("import", dataset="jnq", input=[str(jnq)], votes=[str(votes)],
                          output=str(tmp_path / "out"), aggregate="mace",
                          runner="FnApiRunner")
    path = Path(result["path"])
    assert {d["aggregate"] for d in _table(path, "decisions")} == {"mace"}
    assert {w["skill_source"] for w in _table(path, "workers")} == {"mace"}
    assert result["manifest"]["options"]["aggregate"] == "mace"


@pytest.fixture(scope="module")
def nq_campaign(sample_build, tmp_path_factory):
    work = tmp_path_factory.mktemp("quality_nq")
    release = str(copy_release(sample_build("nq_to_annotate")[1], work / "rel"))
    votes = work / "votes.jsonl"
    assert annotate.main(["simulate", "--release", release, "--out", str(votes),
                          "--spammers", "0.3"]) == 0
    return Path(release), votes, work


def test_nq_decisions_and_workers_leave_the_annotations_as_given(nq_campaign):
    release, votes, work = nq_campaign
    paths = {}
    for aggregate in ("paper", "ds"):
        result = annotate.run(["import", "--dataset", "nq", "--input", str(release),
                               "--votes", str(votes), "--output", str(work / aggregate),
                               TEST_RUNNER, "--aggregate", aggregate])
        paths[aggregate] = Path(result["path"])
        decisions = _table(paths[aggregate], "decisions")
        assert {d["aggregate"] for d in decisions} == {aggregate}
        assert {d["decision"] for d in decisions} >= {"has_answer", "long_answer",
                                                      "short_answer"}
        assert all(0.0 <= d["confidence"] <= 1.0 for d in decisions)
        for d in decisions:
            assert (d["candidate"] is None) == (d["decision"] == "has_answer")
        workers = _table(paths[aggregate], "workers")
        assert workers and {w["skill_source"] for w in workers} == {aggregate}
        assert sum(w["judgments"] for w in workers) == len(_table(paths[aggregate], "votes"))
    original = {p.relative_to(paths["paper"]): p.read_bytes()
                for p in sorted((paths["paper"] / "nq_original").rglob("*.gz"))}
    assert original and original == {p.relative_to(paths["ds"]): p.read_bytes()
                                     for p in sorted((paths["ds"] / "nq_original").rglob("*.gz"))}


def test_nq_takes_no_gold(nq_campaign, tmp_path, capsys):
    release, votes, _ = nq_campaign
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"question_id": "q", "stage": "good_question", "value": True})
                    + "\n", encoding="utf-8")
    code = annotate.main(["import", "--dataset", "nq", "--input", str(release), "--votes",
                          str(votes), "--output", str(tmp_path / "out"), "--gold", str(gold)])
    assert code == 2 and "--gold applies to jnq and jboolq" in capsys.readouterr().err


def test_nq_carry_recomputes_the_same_workers_table(nq_campaign):
    release, votes, work = nq_campaign
    first = annotate.run(["import", "--dataset", "nq", "--input", str(release), "--votes",
                          str(votes), "--output", str(work / "carry"), TEST_RUNNER])
    again = annotate.run(["import", "--dataset", "nq", "--input", str(release), "--votes",
                          str(votes), "--output", str(work / "carry"), TEST_RUNNER,
                          "--version", "1.0.1", "--previous", first["path"]])
    assert again["stats"]["counts"]["annotations"]["carried"] > 0
    key = lambda w: w["annotator_id"]  # noqa: E731
    assert (sorted(_table(Path(again["path"]), "workers"), key=key)
            == sorted(_table(Path(first["path"]), "workers"), key=key))
    carried = _table(Path(again["path"]), "decisions")
    assert carried and {d["aggregate"] for d in carried} == {"carried"}


def test_carrying_across_aggregates_is_refused(campaign, tmp_path, capsys):
    jnq, votes, _, paper = campaign
    code = annotate.main(["import", "--dataset", "jnq", "--input", str(jnq), "--votes",
                          str(votes), "--output", str(tmp_path / "out"), "--aggregate", "ds",
                          "--previous", paper["path"]])
    assert code == 2
    assert "--aggregate ds (previous paper)" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
