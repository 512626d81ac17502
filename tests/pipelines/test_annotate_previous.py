"""``annotate export|import --previous`` on NQ, JNQ and JBoolQ (issue 25 §4, §6, §8).

Each dataset's sample is built and annotated (simulated votes), then a second version is made
from the first (``tests/transforms/annotation/next_version.py``: some examples edited where a
worker would see it, one moved to another split, one removed, one added, one edited where no
worker looks) with ``previous`` naming the first. Exporting with ``--previous`` must ask only
about the new and changed examples; importing their votes with ``--previous`` must carry every
other judgment, votes included, exactly as it was, and count each lost one by its reason.
Nothing here touches the network or depends on the machine's speed.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pyarrow.parquet as pq
import pytest

from pipelines import annotate, build_nq
from tests.conftest import TEST_RUNNER
from tests.sample_releases import copy_release
from tests.transforms.annotation.label_studio.fixtures import annotation, choice, exported_task
from tests.transforms.annotation.next_version import next_version
from tests.transforms.jnq.legacy import as_string_labels
from transforms.annotation.label_studio.configs import NO_ANSWER
from transforms.jnq.labels import STAGES, as_names
from transforms.release.features import class_labels

SPLITS = ("train", "dev", "test")
NEW_ID = "4242424242"


def _nq_annotations(version_dir: Path) -> dict[str, str]:
    """example id -> its ``annotations`` as serialized in ``nq_original`` (key order kept)."""
    found = {}
    for path in sorted(version_dir.glob("nq_original/*/*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                example = json.loads(line)
                found[str(example["example_id"])] = json.dumps(example["annotations"],
                                                               ensure_ascii=False)
    return found


def _rows(version_dir: Path) -> dict[str, dict]:
    return {str(row["id"]): row for split in SPLITS if (version_dir / split).is_dir()
            for row in pq.read_table(version_dir / split).to_pylist()}


def _votes(version_dir: Path, key: str) -> dict[str, list[str]]:
    """item id -> its rows of the ``votes`` table, each as canonical JSON, sorted."""
    rows: dict[str, list[str]] = {}
    for split in SPLITS:
        if (version_dir / "votes" / split).is_dir():
            for row in pq.read_table(version_dir / "votes" / split).to_pylist():
                rows.setdefault(str(row[key]), []).append(json.dumps(row, sort_keys=True))
    return {k: sorted(v) for k, v in rows.items()}


def _dropped(version_dir: Path) -> dict[str, dict]:
    return {record["question_id"]: record
            for path in sorted(version_dir.glob("rejected/dropped_questions/*"))
            for record in map(json.loads, path.read_text("utf-8").splitlines())}


def _task_ids(export_dir: Path, key: str) -> set[str]:
    """The item ids of every exported task, any stage, either tool."""
    ids = set()
    for path in export_dir.glob("*/tasks-*"):
        if path.suffix == ".json":
            ids |= {task["data"][key] for task in json.loads(path.read_text("utf-8"))}
        else:
            ids |= {json.loads(line)[key] for line in path.read_text("utf-8").splitlines()}
    return ids


def _votes_for(all_votes: Path, out: Path, ids: set[str], key: str) -> Path:
    lines = [line for line in all_votes.read_text("utf-8").splitlines()
             if json.loads(line)[key] in ids]
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return out


def _export(release: Path, out: Path, *extra: str) -> dict:
    assert annotate.main(["export", "--release", str(release), "--out", str(out),
                          *extra]) == 0
    return json.loads((out / "annotation_export.json").read_text("utf-8"))


def _import(dataset: str, release: Path, votes: Path, root: Path, *extra: str) -> dict:
    return annotate.run(["import", "--dataset", dataset, "--input", str(release), "--votes",
                         str(votes), "--output", str(root), "--version", "2.0.0", *extra,
                         TEST_RUNNER])


# NQ: a first version annotated, a second one edited -------------------------------------------

@pytest.fixture(scope="module")
def nq(sample_build, tmp_path_factory) -> SimpleNamespace:
    work = tmp_path_factory.mktemp("nq_previous")
    root = work / "releases"
    v1 = copy_release(sample_build("nq_to_annotate")[1], root)
    votes = work / "votes-1.jsonl"
    assert annotate.main(["simulate", "--release", str(v1), "--out", str(votes),
                          "--seed", "7"]) == 0
    annotated = Path(annotate.run(["import", "--dataset", "nq", "--input", str(v1), "--votes",
                                   str(votes), "--output", str(root), TEST_RUNNER])["path"])
    reasons: dict[str, str] = {}

    def edit(examples: dict[str, list[dict]]) -> dict[str, list[dict]]:
        train = examples["train"]
        question, document, candidates, moved, removed = [
            e for e in train if e["long_answer_candidates"]][:5]
        question["question_text"] += " today"
        document["document_tokens"][0]["token"] += "s"
        candidates["long_answer_candidates"].append(dict(candidates["long_answer_candidates"][0]))
        train.remove(moved)
        examples["dev"].append(moved)
        train.remove(removed)
        new = json.loads(json.dumps(examples["test"][0]))
        new["example_id"] = int(NEW_ID)
        examples["test"].append(new)
        for example, reason in ((question, "question_changed"), (document, "document_changed"),
                                (candidates, "candidates_changed"), (moved, "split_changed"),
                                (removed, "removed")):
            reasons[str(example["example_id"])] = reason
        return examples

    v2 = next_version(v1, "2.0.0", edit)
    all_votes = work / "votes-2.jsonl"
    assert annotate.main(["simulate", "--release", str(v2), "--out", str(all_votes),
                          "--seed", "8"]) == 0
    judged = _nq_annotations(annotated)
    needed = {k for k, r in reasons.items() if r != "removed"} | {NEW_ID}
    return SimpleNamespace(work=work, root=root, v1=v1, v2=v2, annotated=annotated,
                           reasons=reasons, needed=needed, all_votes=all_votes,
                           carried=set(judged) - set(reasons))


def test_nq_export_asks_only_about_new_and_changed_examples(nq, tmp_path):
    manifest = _export(nq.v2, tmp_path / "tasks", "--tool", "votes", "--previous",
                       str(nq.annotated))
    assert _task_ids(tmp_path / "tasks", "example_id") == nq.needed
    assert manifest["carried"] == len(nq.carried)
    previous = json.loads((nq.annotated / "dataset_info.json").read_text("utf-8"))
    assert manifest["previous"]["version"] == previous["version"]
    assert manifest["previous"]["annotates"]["version"] == "1.0.0"
    assert manifest["ways"] == {"train": 1, "dev": 5, "test": 5}, "the previous release's"


def test_nq_import_carries_annotations_and_votes_byte_identical(nq, tmp_path):
    export = tmp_path / "tasks"
    _export(nq.v2, export, "--tool", "votes", "--previous", "auto")
    votes = _votes_for(nq.all_votes, tmp_path / "votes.jsonl", nq.needed, "example_id")
    result = _import("nq", nq.v2, votes, tmp_path / "out", "--previous", str(nq.annotated),
                     "--export", str(export))
    path = Path(result["path"])
    before, after = _nq_annotations(nq.annotated), _nq_annotations(path)
    assert set(after) == set(before) - {k for k, r in nq.reasons.items()
                                        if r == "removed"} | {NEW_ID}
    assert {k: after[k] for k in nq.carried} == {k: before[k] for k in nq.carried}
    assert all(after[k] != "[]" for k in nq.needed)
    votes_before, votes_after = _votes(nq.annotated, "example_id"), _votes(path, "example_id")
    assert {k: votes_after[k] for k in nq.carried} == {k: votes_before[k] for k in nq.carried}
    counts = result["stats"]["counts"]
    assert counts["annotations"] == {
        "previous": len(before), "carried": len(nq.carried),
        "carried_votes": sum(len(votes_before[k]) for k in nq.carried),
        **{f"invalidated.{reason}": 1 for reason in nq.reasons.values()}}
    assert counts["examples"]["annotated"] == len(after) == counts["examples"]["read"]
    assert counts["votes"]["used"] == counts["votes"]["read"] and "not_needed" not in counts[
        "votes"]
    carried = result["stats"]["annotations"]
    previous = json.loads((nq.annotated / "dataset_info.json").read_text("utf-8"))
    assert carried["carried_from"]["version"] == previous["version"]
    assert carried["carried"] == len(nq.carried) and carried["invalidated"] == len(nq.reasons)
    assert result["manifest"]["source"]["carried_from"] == carried["carried_from"]
    assert result["manifest"]["previous"] == {  # the lineage `release list` shows
        key: carried["carried_from"][key] for key in ("dataset", "version", "fingerprint")}
    assert "refresh" not in result["stats"]  # no builder refresh figures
    card = (path / "README.md").read_text("utf-8")
    assert "## Annotations carried" in card
    assert f"{len(nq.carried)} of the {len(before)} items judged" in card
    assert carried["carried_from"]["fingerprint"] in card
    assert "Simulated annotations" in card

    again = _export(nq.v2, tmp_path / "again", "--tool", "votes", "--previous", str(path))
    assert again["tasks"] == {"nq": 0} and again["carried"] == len(after)


def test_nq_votes_for_carried_examples_are_not_needed(nq, tmp_path):
    result = _import("nq", nq.v2, nq.all_votes, tmp_path / "out", "--previous",
                     str(nq.annotated))
    votes = result["stats"]["counts"]["votes"]
    carried_votes = sum(1 for line in nq.all_votes.read_text("utf-8").splitlines()
                        if json.loads(line)["example_id"] in nq.carried)
    assert votes["not_needed"] == carried_votes > 0
    assert votes["read"] == votes["used"] + votes["not_needed"]
    after = _nq_annotations(Path(result["path"]))
    before = _nq_annotations(nq.annotated)
    assert {k: after[k] for k in nq.carried} == {k: before[k] for k in nq.carried}


def test_nq_label_studio_round_trip_with_previous(nq, tmp_path):
    export = tmp_path / "tasks"
    manifest = _export(nq.v2, export, "--tool", "label-studio", "--previous",
                       str(nq.annotated))
    tasks = [task for path in sorted((export / "nq").glob("tasks-*.json"))
             for task in json.loads(path.read_text("utf-8"))]
    assert {task["data"]["example_id"] for task in tasks} == nq.needed
    good = choice("question_good", "question", "good")
    no_answer = choice("long_answer", "page", NO_ANSWER)
    exported = [exported_task(number, task, [
        annotation(number * 10 + worker, f"w{worker}", [good, no_answer])
        for worker in range(manifest["ways"][task["data"]["split"]])])
        for number, task in enumerate(tasks, start=1)]
    votes = tmp_path / "export.json"
    votes.write_text(json.dumps(exported), encoding="utf-8")
    result = _import("nq", nq.v2, votes, tmp_path / "out", "--previous", str(nq.annotated))
    counts = result["stats"]["counts"]
    assert counts["annotations"]["carried"] == len(nq.carried)
    assert "dead_lettered" not in counts["votes"] and counts["votes"]["label_studio_exports"] == 1
    after = _nq_annotations(Path(result["path"]))
    assert {k: after[k] for k in nq.carried} == {
        k: v for k, v in _nq_annotations(nq.annotated).items() if k in nq.carried}
    for key in nq.needed:
        assert {a["long_answer"]["candidate_index"] for a in json.loads(after[key])} == {-1}


# Refusals, before any work --------------------------------------------------------------------

def _refused(capsys, *argv: str) -> tuple[int, str]:
    code = annotate.main(list(argv))
    return code, capsys.readouterr().err


def test_a_damaged_previous_is_refused_with_exit_5(nq, tmp_path, capsys):
    damaged = tmp_path / "nq_annotated"
    shutil.copytree(nq.annotated.parent, damaged)
    version = damaged / nq.annotated.name
    [votes_file, *_] = sorted(version.glob("votes/dev/*.parquet"))
    data = bytearray(votes_file.read_bytes())
    data[len(data) // 2] ^= 0xFF
    votes_file.write_bytes(bytes(data))
    out = tmp_path / "out"
    code, err = _refused(capsys, "import", "--dataset", "nq", "--input", str(nq.v2), "--votes",
                         str(nq.all_votes), "--output", str(out), "--previous", str(version))
    assert code == 5 and "does not match its manifest" in err
    assert not out.exists()
    code, err = _refused(capsys, "export", "--release", str(nq.v2), "--out",
                         str(tmp_path / "tasks"), "--previous", str(damaged))
    assert code == 5 and not (tmp_path / "tasks").exists()


def test_a_previous_of_an_unrelated_release_is_refused_with_exit_2(nq, tmp_path, capsys):
    copy = tmp_path / "nq" / nq.v1.name
    shutil.copytree(nq.v1, copy)
    unrelated = next_version(copy, "0.9.0", lambda examples: examples, link=False)
    out = tmp_path / "out"
    code, err = _refused(capsys, "import", "--dataset", "nq", "--input", str(unrelated),
                         "--votes", str(nq.all_votes), "--output", str(out), "--previous",
                         str(nq.annotated))
    assert code == 2 and "neither the release being annotated" in err
    assert not out.exists()
    code, err = _refused(capsys, "export", "--release", str(unrelated), "--out",
                         str(tmp_path / "tasks"), "--previous", str(nq.annotated))
    assert code == 2 and "nor one of its ancestors" in err
    assert not (tmp_path / "tasks").exists()


def test_a_release_that_is_not_annotated_is_refused_with_exit_2(nq, tmp_path, capsys):
    code, err = _refused(capsys, "import", "--dataset", "nq", "--input", str(nq.v2), "--votes",
                         str(nq.all_votes), "--output", str(tmp_path), "--previous",
                         str(nq.v1))
    assert code == 2 and "not an annotated one" in err


def test_the_version_being_written_and_files_as_input_are_refused(nq, tmp_path, capsys):
    code, err = _refused(capsys, "import", "--dataset", "nq", "--input", str(nq.v1), "--votes",
                         str(nq.all_votes), "--output", str(nq.root), "--version",
                         nq.annotated.name, "--overwrite", "--previous", str(nq.annotated))
    assert code == 2 and "the version being written" in err
    files = str(nq.v2 / "nq_original" / "dev" / "*.jsonl.gz")
    code, err = _refused(capsys, "import", "--dataset", "nq", "--input", files, "--votes",
                         str(nq.all_votes), "--output", str(tmp_path), "--previous",
                         str(nq.annotated))
    assert code == 2 and "needs a release as --input" in err


def test_other_ways_are_refused_unless_recompute_all(nq, tmp_path, capsys):
    argv = ["import", "--dataset", "nq", "--input", str(nq.v2), "--votes", str(nq.all_votes),
            "--output", str(tmp_path / "out"), "--previous", str(nq.annotated),
            "--ways", "train=1,dev=3,test=5"]
    code, err = _refused(capsys, *argv)
    assert code == 2 and "--ways dev=3 (previous 5)" in err and "--recompute-all" in err
    assert not (tmp_path / "out").exists()
    result = annotate.run([*argv, "--recompute-all", TEST_RUNNER])
    counts = result["stats"]["counts"]["annotations"]
    assert "carried" not in counts
    assert counts["invalidated.recompute_all"] == counts["previous"] - 1  # one was removed
    assert "with `--recompute-all`" in (Path(result["path"]) / "README.md").read_text("utf-8")
    code, err = _refused(capsys, "import", "--dataset", "nq", "--input", str(nq.v2), "--votes",
                         str(nq.all_votes), "--output", str(tmp_path), "--recompute-all")
    assert code == 2 and "--recompute-all applies to --previous" in err


# JNQ and JBoolQ -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def jnq(sample_build, tmp_path_factory) -> SimpleNamespace:
    work = tmp_path_factory.mktemp("jnq_previous")
    root = work / "releases"
    v1 = copy_release(sample_build("jnq")[1], root)
    votes = work / "votes-1.jsonl"
    assert annotate.main(["simulate", "--release", str(v1), "--out", str(votes)]) == 0
    annotated = Path(annotate.run(["import", "--dataset", "jnq", "--input", str(v1), "--votes",
                                   str(votes), "--output", str(root), TEST_RUNNER])["path"])
    kept, dropped = _rows(annotated), _dropped(annotated)
    reasons: dict[str, str] = {}
    unseen: list[str] = []

    def edit(examples: dict[str, list[dict]]) -> dict[str, list[dict]]:
        train = examples["train"]
        rows = [r for r in train if r["id"] in kept]
        question, paragraphs, hidden, removed = rows[:4]
        question["question"] += "か"
        first = paragraphs["candidate_paragraph_ids"][0]
        paragraphs["paragraphs"] = [{**p, "text": p["text"] + "。"} if p["id"] == first else p
                                    for p in paragraphs["paragraphs"]]
        hidden["search_rank"] += 1
        hidden["snippet"] = "a snippet no worker sees"
        unseen.append(hidden["id"])
        train.remove(removed)
        new = dict(examples["dev"][0], id=NEW_ID)
        examples["dev"].append(new)
        for row, reason in ((question, "question_changed"), (paragraphs, "paragraphs_changed"),
                            (removed, "removed")):
            reasons[row["id"]] = reason
        return examples

    v2 = next_version(v1, "2.0.0", edit)
    all_votes = work / "votes-2.jsonl"
    assert annotate.main(["simulate", "--release", str(v2), "--out", str(all_votes),
                          "--seed", "3"]) == 0
    judged = set(kept) | set(dropped)
    return SimpleNamespace(root=root, v2=v2, annotated=annotated, reasons=reasons,
                           all_votes=all_votes, hidden=unseen[0], dropped=set(dropped),
                           needed={k for k, r in reasons.items() if r != "removed"} | {NEW_ID},
                           carried=judged - set(reasons))


def test_jnq_exports_and_imports_only_what_needs_judging(jnq, tmp_path):
    export = tmp_path / "tasks"
    manifest = _export(jnq.v2, export, "--tool", "votes", "--previous", str(jnq.annotated))
    assert _task_ids(export, "question_id") == jnq.needed
    assert manifest["carried"] == len(jnq.carried)
    votes = _votes_for(jnq.all_votes, tmp_path / "votes.jsonl", jnq.needed, "question_id")
    result = _import("jnq", jnq.v2, votes, tmp_path / "out", "--previous", str(jnq.annotated))
    path = Path(result["path"])
    counts = result["stats"]["counts"]
    assert counts["annotations"]["carried"] == len(jnq.carried)
    assert {k: v for k, v in counts["annotations"].items() if k.startswith("invalidated.")} == {
        f"invalidated.{reason}": 1 for reason in jnq.reasons.values()}
    before, after = _rows(jnq.annotated), _rows(path)
    columns = ("is_yes_no_question", "num_annotators", "annotations", "gold_paragraph_ids")
    for key in jnq.carried - jnq.dropped:
        assert [after[key][c] for c in columns] == [before[key][c] for c in columns]
    assert after[jnq.hidden]["search_rank"] == before[jnq.hidden]["search_rank"] + 1
    dropped_after = _dropped(path)
    for key in jnq.carried & jnq.dropped:
        assert dropped_after[key] == _dropped(jnq.annotated)[key]
    votes_before, votes_after = _votes(jnq.annotated, "question_id"), _votes(path, "question_id")
    assert {k: votes_after[k] for k in jnq.carried} == {k: votes_before[k] for k in jnq.carried}
    outcomes = {k: v for k, v in counts["examples"].items() if "." not in k and k != "read"}
    assert sum(outcomes.values()) == counts["examples"]["read"]


def test_jnq_carries_from_a_previous_with_string_labels(jnq, tmp_path):
    """A previous annotated release written before its enumerations were class labels (names
    as strings: ``annotations.label``, ``variant``, the votes' ``stage``, ...) is carried all
    the same: the carried rows and votes are those a previous with class labels gives, as
    indexes."""
    legacy = tmp_path / "legacy" / jnq.annotated.parent.name / jnq.annotated.name
    shutil.copytree(jnq.annotated, legacy)
    assert as_string_labels(legacy)
    before = _rows(legacy)
    assert {a["label"] for row in before.values() for a in row["annotations"]} <= {
        "EXIST", "AMBIGUOUS", "NONE"}
    votes = _votes_for(jnq.all_votes, tmp_path / "votes.jsonl", jnq.needed, "question_id")
    result = _import("jnq", jnq.v2, votes, tmp_path / "out", "--previous", str(legacy))
    assert result["stats"]["counts"]["annotations"]["carried"] == len(jnq.carried)
    path = Path(result["path"])
    expected = _import("jnq", jnq.v2, votes, tmp_path / "expected", "--previous",
                       str(jnq.annotated))
    after, coded = _rows(path), _rows(Path(expected["path"]))
    assert after == coded
    columns = ("variant", "is_yes_no_question", "annotations")
    for key in jnq.carried - jnq.dropped:
        assert [as_names(after[key])[c] for c in columns] == [before[key][c] for c in columns]
    assert {a["label"] for row in after.values() for a in row["annotations"]} <= {0, 1, 2}
    assert _votes(path, "question_id") == _votes(Path(expected["path"]), "question_id")
    assert class_labels(pq.read_schema(next((path / "votes" / "train").glob("*.parquet")))) == {
        "stage": STAGES}


def test_jnq_a_previous_of_another_base_dataset_is_refused(nq, jnq, tmp_path, capsys):
    code, err = _refused(capsys, "import", "--dataset", "nq", "--input", str(nq.v2), "--votes",
                         str(nq.all_votes), "--output", str(tmp_path), "--previous",
                         str(jnq.annotated))
    assert code == 2 and "annotates jnq, not nq" in err
    code, err = _refused(capsys, "export", "--release", str(jnq.v2), "--out",
                         str(tmp_path / "tasks"), "--previous", str(nq.annotated))
    assert code == 2 and "annotates nq, not jnq" in err


def test_jboolq_carries_through_label_studio_exports_too(sample_build, tmp_path):
    root = tmp_path / "releases"
    v1 = copy_release(sample_build("jboolq")[1], root)
    votes = tmp_path / "votes-1.jsonl"
    assert annotate.main(["simulate", "--release", str(v1), "--out", str(votes)]) == 0
    annotated = Path(annotate.run(["import", "--dataset", "jboolq", "--input", str(v1),
                                   "--votes", str(votes), "--output", str(root),
                                   TEST_RUNNER])["path"])
    judged = set(_rows(annotated)) | set(_dropped(annotated))
    changed = sorted(judged)[0]

    def edit(examples: dict[str, list[dict]]) -> dict[str, list[dict]]:
        for rows in examples.values():
            for row in rows:
                if row["id"] == changed:
                    row["question"] += "?"
        return examples

    v2 = next_version(v1, "2.0.0", edit)
    export = tmp_path / "tasks"
    manifest = _export(v2, export, "--tool", "label-studio", "--previous", "auto")
    assert _task_ids(export, "question_id") == {changed}
    assert manifest["carried"] == len(judged) - 1
    all_votes = tmp_path / "votes-2.jsonl"
    assert annotate.main(["simulate", "--release", str(v2), "--out", str(all_votes)]) == 0
    votes = _votes_for(all_votes, tmp_path / "votes-2-needed.jsonl", {changed}, "question_id")
    result = _import("jboolq", v2, votes, root, "--previous", "auto")
    counts = result["stats"]["counts"]["annotations"]
    assert counts == {"previous": len(judged), "carried": len(judged) - 1,
                      "carried_votes": counts["carried_votes"],
                      "invalidated.question_changed": 1}
    assert result["stats"]["annotations"]["carried_from"]["version"] == annotated.name


def test_a_builder_refresh_is_a_descendant_whose_judgments_all_carry(nq, tmp_path):
    """The real loop: ``build_nq --previous`` writes the lineage the refusal checks."""
    root = tmp_path / "releases"
    shutil.copytree(nq.root, root)
    refreshed = Path(build_nq.run([TEST_RUNNER, "--output", str(root), "--split-ratios",
                                   "train=50,dev=25,test=25", "--version", "3.0.0",
                                   "--previous", str(nq.v1)])["path"])
    manifest = _export(refreshed, tmp_path / "tasks", "--tool", "votes", "--previous",
                       str(root / "nq_annotated"))
    judged = _nq_annotations(nq.annotated)
    assert manifest["tasks"] == {"nq": 0} and manifest["carried"] == len(judged)
    result = annotate.run(["import", "--dataset", "nq", "--input", str(refreshed), "--votes",
                           str(nq.all_votes), "--output", str(root), "--version", "3.0.0",
                           "--previous", str(nq.annotated), TEST_RUNNER])
    assert result["stats"]["counts"]["annotations"]["carried"] == len(judged)
    assert _nq_annotations(Path(result["path"])) == judged


def test_a_carried_vote_whose_stage_is_no_label_is_exit_5_before_any_work(jnq, tmp_path,
                                                                        capsys):
    """A re-sealed previous whose votes hold a stage index past the label's names: exit 5
    naming the file and row before the job (it was exit 1 from the writer after it)."""
    import pyarrow as pa

    from tests.pipelines.test_refresh_invariants import reseal

    copy = tmp_path / "jnq_annotated" / jnq.annotated.name
    shutil.copytree(jnq.annotated, copy)
    [votes_file, *_] = sorted(copy.glob("votes/*/*.parquet"))
    table = pq.read_table(votes_file)
    index = table.schema.get_field_index("stage")
    stages = table.column("stage").to_pylist()
    table = table.set_column(index, table.schema.field(index),
                             pa.array([9, *stages[1:]], table.schema.field(index).type))
    pq.write_table(table, votes_file)
    reseal(copy)
    out = tmp_path / "out"
    code, err = _refused(capsys, "import", "--dataset", "jnq", "--input", str(jnq.v2),
                         "--votes", str(jnq.all_votes), "--output", str(out), "--previous",
                         str(copy), TEST_RUNNER)
    assert code == 5, err
    assert f"{votes_file.relative_to(copy)}: class label stage holds ['9']" in err
    assert "row 0" in err and "Traceback" not in err
    assert not out.exists()
