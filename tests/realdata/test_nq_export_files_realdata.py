"""Google's own NQ dev file, annotated with two commands and no release (issue 38 §8):
``annotate export --release <the file>`` writes one task per example, and ``annotate import``
of votes answering those tasks (the examples' real annotations, one vote per annotator, each
naming the export's fingerprint) against the same file gives the annotations back."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from filters.annotation.nq import votes_from_annotations
from pipelines import annotate
from tests.conftest import TEST_RUNNER

pytestmark = pytest.mark.realdata


def test_google_dev_file_exports_and_imports_without_a_release(shared_data, tmp_path):
    source = shared_data / "nq" / "nq_dev_original_first3.jsonl.gz"
    with gzip.open(source, "rt", encoding="utf-8") as handle:
        originals = [json.loads(line) for line in handle]
    stripped = tmp_path / "v1.0" / "dev" / "nq-dev-00.jsonl.gz"
    stripped.parent.mkdir(parents=True)
    with gzip.open(stripped, "wt", encoding="utf-8") as handle:
        for example in originals:
            handle.write(json.dumps({**example, "annotations": []}) + "\n")
    glob = str(stripped.parent / "nq-dev-*.jsonl.gz")
    exported = annotate.run(["export", "--release", glob, "--tool", "votes",
                             "--out", str(tmp_path / "tasks")])
    fingerprint = exported["manifest"]["release"]["fingerprint"]
    tasks = [json.loads(line) for line in
             (tmp_path / "tasks" / "nq" / "tasks-00000.jsonl").read_text().splitlines()]
    assert [t["example_id"] for t in tasks] == [str(e["example_id"]) for e in originals]
    assert all(t["release"] == fingerprint and t["split"] == "dev" and t["boxes"]
               for t in tasks)
    votes = [{**vote, "release": fingerprint} for example in originals
             for vote in votes_from_annotations(example)]
    (tmp_path / "votes.jsonl").write_text("".join(json.dumps(v) + "\n" for v in votes))
    result = annotate.run(["import", "--dataset", "nq", "--input", glob, "--split", "dev",
                           "--ways", "5", "--votes", str(tmp_path / "votes.jsonl"),
                           "--export", str(tmp_path / "tasks"),
                           "--output", str(tmp_path / "out"), TEST_RUNNER])
    assert result["stats"]["counts"]["examples"]["annotated"] == len(originals) == 3
    assert result["stats"]["counts"]["votes"]["used"] == len(votes) == 15
    annotated = next((Path(result["path"]) / "nq_original" / "dev").glob("*.jsonl.gz"))
    with gzip.open(annotated, "rt", encoding="utf-8") as handle:
        rebuilt = {e["example_id"]: e for e in map(json.loads, handle)}
    for example in originals:
        longs = [a["long_answer"] for a in rebuilt[example["example_id"]]["annotations"]]
        assert longs == [a["long_answer"] for a in example["annotations"]]
