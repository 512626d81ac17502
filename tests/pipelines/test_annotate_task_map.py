"""``annotate import`` of Label Studio exports against the release (issue 35 B7, D19).

B7: a task whose page and boxes were copied from another example must not become a vote for
that example's candidate: the import recomputes from the release row what the export wrote
and dead-letters the vote (``task_page_mismatch``).
D19: every vote read (a line, an annotation, an unusable task) ends as exactly one outcome.
Both on the bundled NQ sample's release, tasks written by ``annotate export``.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest

from pipelines import annotate
from tests.conftest import TEST_RUNNER
from tests.sample_releases import copy_release
from tests.transforms.annotation.label_studio.fixtures import (
    annotation,
    choice,
    exported_task,
    page_mark,
)
from transforms.annotation.counters import TASK_PAGE_MISMATCH
from transforms.annotation.label_studio.configs import (
    LONG_ANSWER_LABEL,
    LONG_ANSWER_MARKED,
    NO_ANSWER,
)
from transforms.annotation.page import page_text

GOOD = choice("question_good", "question", "good")
#: what each vote read ends as (``transforms.annotation.counters``)
OUTCOMES = ("used", "pending", "not_needed", "duplicate", "superseded")


@pytest.fixture(scope="module")
def release(sample_build, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("task_map")
    return copy_release(sample_build("nq_to_annotate")[1], root / "releases")


@pytest.fixture(scope="module")
def tasks(release, tmp_path_factory) -> list[dict]:
    """The Label Studio tasks ``annotate export`` writes for the release."""
    out = tmp_path_factory.mktemp("export") / "tasks"
    assert annotate.main(["export", "--release", str(release), "--tool", "label-studio",
                          "--out", str(out)]) == 0
    return json.loads((out / "nq" / "tasks-00000.json").read_text(encoding="utf-8"))


def _box_mark(task: dict, number: int) -> list[dict]:
    """A worker's answer on ``task``'s page: the box tagged ``#number`` is the long answer."""
    text = page_text(task["data"]["page"])
    start = text.index(f"#{number} ")
    assert task["data"]["boxes"][number][0] == start
    return [GOOD, choice("long_answer", "page", LONG_ANSWER_MARKED),
            page_mark(task, start, start + len(f"#{number}"), label=LONG_ANSWER_LABEL)]


def _import(tmp_path: Path, name: str, votes: str) -> dict:
    return annotate.run(["import", "--dataset", "nq", "--input", str(_release_of(tmp_path)),
                         "--votes", votes, "--ways", "1", "--allow-empty",
                         "--output", str(tmp_path / name), TEST_RUNNER])


def _release_of(tmp_path: Path) -> Path:
    return Path((tmp_path / "release").read_text(encoding="utf-8"))


def _annotated(result: dict) -> dict[str, list[int]]:
    """``{example id: long-answer candidate of each annotation}`` of an imported release."""
    found = {}
    for file in sorted(Path(result["path"]).glob("nq_original/*/*.jsonl.gz")):
        for line in gzip.open(file, "rt", encoding="utf-8"):
            example = json.loads(line)
            found[str(example["example_id"])] = [
                a["long_answer"]["candidate_index"] for a in example["annotations"]]
    return found


def _dead_letters(result: dict) -> list[dict]:
    folder = Path(result["path"]) / "rejected" / "dead_letter"
    return [json.loads(line) for file in sorted(folder.glob("*"))
            for line in file.read_text(encoding="utf-8").splitlines()]


def _accounted(votes: dict[str, int]) -> int:
    return sum(votes.get(k, 0) for k in OUTCOMES) + sum(
        n for k, n in votes.items() if k.startswith("refused."))


def test_a_task_with_another_example_s_page_is_dead_lettered(release, tasks, tmp_path):
    (tmp_path / "release").write_text(str(release), encoding="utf-8")
    target, source = tasks[0], tasks[1]
    number = 3  # a box both pages show, and a candidate both examples have
    assert min(len(target["data"]["boxes"]), len(source["data"]["boxes"])) > number
    forged = copy.deepcopy(target)
    for key in ("page", "page_tokens", "page_starts", "page_lengths", "boxes"):
        forged["data"][key] = source["data"][key]
    export = [exported_task(1, forged, [annotation(1, 11, _box_mark(forged, number))]),
              exported_task(2, source, [annotation(2, 12, _box_mark(source, number))])]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    result = _import(tmp_path, "out", str(path))

    annotated = _annotated(result)
    assert annotated[source["data"]["example_id"]] == [number]  # its own page: used
    assert target["data"]["example_id"] not in annotated  # no vote for the wrong candidate
    votes = result["stats"]["counts"]["votes"]
    assert votes[f"refused.{TASK_PAGE_MISMATCH}"] == 1 and votes["used"] == 1
    [letter] = _dead_letters(result)
    assert letter["reason"] == TASK_PAGE_MISMATCH
    assert letter["example_id"] == target["data"]["example_id"]
    assert (letter["file"], letter["line"]) == (str(path), 1)
    # the summary, stats.json and rejected/ agree
    stats = json.loads((Path(result["path"]) / "stats.json").read_text(encoding="utf-8"))
    assert stats["counts"]["votes"] == votes and votes["dead_lettered"] == 1
    summary = annotate.format_summary(result)
    assert f"votes refused, {TASK_PAGE_MISMATCH}: 1" in summary
    assert "dead-lettered records: 1" in summary
    assert votes["read"] == _accounted(votes) == 2


def test_a_task_with_another_question_or_its_legacy_candidates_mismatches(release, tasks,
                                                                           tmp_path):
    (tmp_path / "release").write_text(str(release), encoding="utf-8")
    task = tasks[2]
    reworded = copy.deepcopy(task)
    reworded["data"]["question"] = tasks[3]["data"]["question"]
    no_answer = [GOOD, choice("long_answer", "page", NO_ANSWER)]
    export = [exported_task(1, reworded, [annotation(1, 21, no_answer)]),
              exported_task(2, task, [annotation(2, 22, no_answer)])]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    result = _import(tmp_path, "out", str(path))
    votes = result["stats"]["counts"]["votes"]
    assert (votes[f"refused.{TASK_PAGE_MISMATCH}"], votes["used"]) == (1, 1)
    assert _annotated(result)[task["data"]["example_id"]] == [-1]


def _mixed_votes(release: Path, tasks: list[dict], folder: Path) -> tuple[int, int]:
    """Votes with every edge case, in two files; returns (lines, export records) written."""
    simulated = folder.parent / "simulated.jsonl"
    assert annotate.main(["simulate", "--release", str(release), "--out", str(simulated),
                          "--seed", "7"]) == 0
    lines = simulated.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    records = [*lines[:10], "", lines[0],  # a blank line, an exact repeat
               json.dumps({**first, "example_id": "999"}),  # an unknown example
               "{damaged", *lines[10:]]  # a damaged line; the last line without newline
    (folder / "votes.jsonl").write_text("\n".join(records), encoding="utf-8")
    no_answer = [GOOD, choice("long_answer", "page", NO_ANSWER)]
    dev = next(t for t in tasks if t["data"]["split"] == "dev")
    export = [exported_task(1, dev, [annotation(1, 501, no_answer),  # two annotations
                                     annotation(2, 502, no_answer),
                                     annotation(3, 503, no_answer, was_cancelled=True)]),
              {"id": 2, "data": {"dataset": "nq"}, "annotations": []}]  # not our task
    (folder / "export.json").write_text(json.dumps(export), encoding="utf-8")
    return len([r for r in records if r.strip()]), 4


def test_every_vote_read_ends_as_exactly_one_outcome(release, tasks, tmp_path):
    """Before: a skipped annotation was refused but never read (91 read, 92 accounted)."""
    (tmp_path / "release").write_text(str(release), encoding="utf-8")
    folder = tmp_path / "votes"
    folder.mkdir()
    lines, records = _mixed_votes(release, tasks, folder)
    result = _import(tmp_path, "out", str(folder / "*"))
    votes = result["stats"]["counts"]["votes"]
    assert votes["read"] == lines + records == 94
    assert votes["read"] == _accounted(votes)
    assert {k: n for k, n in votes.items() if k.startswith("refused.")} == {
        "refused.cancelled_annotation": 1, "refused.malformed_json": 1,
        "refused.unknown_example": 1, "refused.unknown_task": 1}
    assert (votes["used"], votes["duplicate"]) == (89, 1)
    assert votes["dead_lettered"] == 4 == len(_dead_letters(result))
