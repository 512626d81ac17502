"""``annotate export --suggestions`` end to end: the card's baselines (``qa-evaluate baseline``)
are accepted as suggestions, a control group is exported without, and the import reports
agreement with the suggestion in both groups (issue 36 §4)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipelines import annotate, evaluate
from tests.conftest import TEST_RUNNER
from tests.sample_releases import copy_release
from transforms.annotation.export import item_ids, read_examples
from transforms.annotation.manifest import ReleaseRef, read_release
from transforms.annotation.suggestion_agreement import (
    AGREE,
    AGREEMENT,
    CONTROL,
    DECISIONS,
    DIFFERENCE_CI95,
    STATS_KEY,
    SUGGESTED,
)
from transforms.annotation.suggestions import MANIFEST_KEY, SUGGESTION


@pytest.fixture(scope="module")
def nq_release(sample_build, tmp_path_factory) -> Path:
    return copy_release(sample_build("nq_to_annotate")[1], tmp_path_factory.mktemp("nq_sugg"))


@pytest.fixture(scope="module")
def nq_baseline(nq_release, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("nq_baseline") / "first-paragraph.json"
    assert evaluate.main(["baseline", "nq", "--gold", str(nq_release), "--split", "dev",
                          "--out", str(out)]) == 0
    return out


def _tasks(folder: Path) -> list[dict]:
    return [json.loads(line) for file in sorted(folder.glob("tasks-*.jsonl"))
            for line in file.read_text(encoding="utf-8").splitlines()]


def test_the_nq_baseline_is_suggested_and_agreement_is_measured_per_group(
        nq_release, nq_baseline, tmp_path):
    export = tmp_path / "export"
    assert annotate.main(["export", "--release", str(nq_release), "--tool", "votes", "--out",
                          str(export), "--split", "dev", "--suggestions", str(nq_baseline),
                          "--control-rate", "0.5", "--seed", "2"]) == 0
    manifest = json.loads((export / "annotation_export.json").read_text(encoding="utf-8"))
    recorded = manifest[MANIFEST_KEY]
    control = set(recorded["control"])
    items = recorded["items"]
    assert (len(control), len(items), recorded["unknown_ids"]) == (3, 6, 0)  # seed 2
    tasks = _tasks(export / "nq")
    for task in tasks:  # control items are exported without their suggestion
        assert (SUGGESTION in task) == (task["example_id"] not in control)
        if SUGGESTION in task:
            assert task[SUGGESTION] == items[task["example_id"]]
    result = _import_anchored(nq_release, export, tasks, items, tmp_path)
    figures = result["stats"][STATS_KEY]
    assert figures[SUGGESTED] == {"items": len(items) - len(control), DECISIONS:
                                  len(items) - len(control), AGREE: len(items) - len(control),
                                  AGREEMENT: 1.0}
    assert figures[CONTROL] == {"items": len(control), DECISIONS: len(control), AGREE: 0,
                                AGREEMENT: 0.0}
    assert figures[DIFFERENCE_CI95] == [1.0, 1.0]  # every item agrees, or none does
    card = (Path(result["path"]) / "README.md").read_text(encoding="utf-8")
    assert "## Model suggestions" in card
    assert f"| control | {len(control)} | {len(control)} | 0 | 0.0% |" in card
    stats = json.loads((Path(result["path"]) / "stats.json").read_text(encoding="utf-8"))
    assert stats[STATS_KEY] == figures


def _import_anchored(nq_release: Path, export: Path, tasks: list[dict], items: dict,
                     tmp_path: Path) -> dict:
    """Import votes of workers who follow the suggestion where shown and answer otherwise
    in the control group, with ``--export``."""
    votes = tmp_path / "votes.jsonl"
    lines = []
    for task in tasks:
        suggested = items[task["example_id"]]["long_answer_candidate"]
        answer = suggested if SUGGESTION in task else (0 if suggested < 0 else -1)
        lines += [json.dumps({"example_id": task["example_id"], "annotator_id": f"w{n}",
                              "question_good": True, "long_answer_candidate": answer,
                              "short_answers": [], "yes_no_answer": "NONE",
                              "release": task["release"]}) for n in range(5)]
    votes.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return annotate.run(["import", "--dataset", "nq", "--input", str(nq_release), "--split",
                         "dev", "--votes", str(votes), "--export", str(export), "--output",
                         str(tmp_path / "out"), TEST_RUNNER])


def test_annotate_next_shows_suggestions_and_its_round_measures_them(nq_release, nq_baseline,
                                                                     tmp_path, capsys):
    round_one = tmp_path / "round1"
    assert annotate.main(["next", "--release", str(nq_release), "--out", str(round_one),
                          "--split", "dev", "--suggestions", str(nq_baseline),
                          "--control-rate", "0.5", "--seed", "2"]) == 0
    assert "control items without" in capsys.readouterr().out
    recorded = json.loads((round_one / "annotation_next.json").read_text(
        encoding="utf-8"))[MANIFEST_KEY]
    control, items = set(recorded["control"]), recorded["items"]
    tasks = _tasks(round_one / "nq")
    assert [SUGGESTION in t for t in tasks] == [t["example_id"] not in control for t in tasks]
    figures = _import_anchored(nq_release, round_one, tasks, items, tmp_path)["stats"][
        STATS_KEY]
    assert (figures[SUGGESTED][AGREEMENT], figures[CONTROL][AGREEMENT]) == (1.0, 0.0)
    assert figures[CONTROL][DECISIONS] == len(control)


def test_without_suggestions_the_export_and_card_are_unchanged(nq_release, tmp_path):
    export = tmp_path / "export"
    assert annotate.main(["export", "--release", str(nq_release), "--tool", "label-studio",
                          "--out", str(export), "--split", "dev"]) == 0
    manifest = json.loads((export / "annotation_export.json").read_text(encoding="utf-8"))
    assert MANIFEST_KEY not in manifest
    project = json.loads((export / "nq" / "project.json").read_text(encoding="utf-8"))
    assert project["show_collab_predictions"] is False and "model_version" not in project
    tasks = json.loads((export / "nq" / "tasks-00000.json").read_text(encoding="utf-8"))
    assert tasks and all(set(task) == {"data"} for task in tasks)


def test_label_studio_tasks_get_predictions_and_the_project_shows_them(nq_release, nq_baseline,
                                                                       tmp_path):
    export = tmp_path / "export"
    assert annotate.main(["export", "--release", str(nq_release), "--out", str(export),
                          "--split", "dev", "--suggestions", str(nq_baseline)]) == 0
    recorded = json.loads((export / "annotation_export.json").read_text(
        encoding="utf-8"))[MANIFEST_KEY]
    project = json.loads((export / "nq" / "project.json").read_text(encoding="utf-8"))
    assert project["show_collab_predictions"] is True
    assert project["model_version"] == recorded["model_version"]
    tasks = json.loads((export / "nq" / "tasks-00000.json").read_text(encoding="utf-8"))
    shown = [t for t in tasks if "predictions" in t]
    assert len(shown) == recorded["suggested"] > 0
    assert all(t["predictions"][0]["model_version"] == recorded["model_version"]
               and t["predictions"][0]["result"] for t in shown)


@pytest.mark.parametrize("variant", ["jnq", "jboolq"])
def test_the_jnq_and_jboolq_baselines_are_accepted(sample_build, tmp_path, variant):
    if variant == "jnq":
        _, release = sample_build("jnq")
    else:
        _, release = sample_build("jboolq")
    predictions = tmp_path / "baseline.json"
    assert evaluate.main(["baseline", "jnq", "--gold", str(release), "--out",
                          str(predictions)]) == 0
    export = tmp_path / "export"
    assert annotate.main(["export", "--release", str(release), "--out", str(export),
                          "--stage", "good_question", "--stage", "long_answer",
                          "--suggestions", str(predictions)]) == 0
    recorded = json.loads((export / "annotation_export.json").read_text(
        encoding="utf-8"))[MANIFEST_KEY]
    assert recorded["format"] == variant and recorded["unknown_ids"] == 0
    long_answer = json.loads((export / "long_answer" / "tasks-00000.json").read_text(
        encoding="utf-8"))
    assert any("predictions" in task for task in long_answer)
    good = json.loads((export / "good_question" / "tasks-00000.json").read_text(
        encoding="utf-8"))
    assert not any("predictions" in task for task in good)


def test_bad_suggestions_are_refused_before_any_work(nq_release, tmp_path, capsys):
    out = tmp_path / "export"
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"predictions": [{"example_id": 1, "long_answer": {}}]}),
                     encoding="utf-8")
    for extra, message in (
            (["--suggestions", str(tmp_path / "missing.json")], "No such file"),
            (["--suggestions", str(other)], "names an item of the exported split"),
            (["--control-rate", "0.2"], "--control-rate applies to --suggestions")):
        code = annotate.main(["export", "--release", str(nq_release), "--out", str(out),
                              *extra])
        assert code == 2 and message in capsys.readouterr().err
        assert not out.exists()
    code = annotate.main(["export", "--release", str(nq_release), "--out", str(out),
                          "--suggestions", str(other), "--control-rate", "1"])
    assert code == 2 and "between 0 and 1" in capsys.readouterr().err


def test_item_ids_read_the_id_column_and_nq_originals_without_it(nq_release, tmp_path):
    release = read_release(str(nq_release))
    expected = {str(e["example_id"]) for split in release.splits
                for e in read_examples(release, split)}
    assert item_ids(release, list(release.splits)) == expected
    originals = tmp_path / "originals"
    shutil.copytree(nq_release / "nq_original", originals / "nq_original")
    bare = ReleaseRef(str(originals), "nq", "1.0.0", "-", release.splits, {})
    assert item_ids(bare, list(release.splits)) == expected
