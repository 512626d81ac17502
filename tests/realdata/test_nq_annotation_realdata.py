"""Real NQ 5-way dev annotations survive the vote round trip exactly.

The shared NQ dev examples' annotations become NQ votes (one per annotator), the
annotations are stripped, and ``annotate import`` rebuilds them from the votes: offsets,
candidate index, short answers and yes/no come back exactly and in the same order (the order
the votes were given), and ``nq_eval`` scores a
prediction file the same on both.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from filters.annotation.nq import votes_from_annotations
from pipelines import annotate
from tests.conftest import TEST_RUNNER
from tests.transforms.metrics.test_nq import official
from transforms.metrics.baselines.nq import first_paragraph_predictions

pytestmark = pytest.mark.realdata


def _read(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _without_ids(annotations: list[dict]) -> list[dict]:
    return [{k: v for k, v in a.items() if k != "annotation_id"} for a in annotations]


def import_real_annotations(shared_data: Path, tmp_path: Path) -> tuple[list[dict], dict]:
    """The shared NQ dev examples and the ``annotate import`` result that rebuilt their
    annotations from their votes (one per annotator), the annotations stripped first."""
    originals = _read(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz")
    votes = [vote for example in originals for vote in votes_from_annotations(example)]
    (tmp_path / "votes.jsonl").write_text(
        "".join(json.dumps(v) + "\n" for v in votes), encoding="utf-8")
    stripped = tmp_path / "nq-dev-00.jsonl.gz"
    with gzip.open(stripped, "wt", encoding="utf-8") as handle:
        for example in originals:
            handle.write(json.dumps({**example, "annotations": []}) + "\n")
    result = annotate.run(["import", "--dataset", "nq", "--input", str(stripped),
                           "--split", "dev", "--ways", "5", "--votes",
                           str(tmp_path / "votes.jsonl"), "--output", str(tmp_path / "out"),
                           TEST_RUNNER])
    return originals, result


def test_real_annotations_round_trip_through_votes(shared_data, tmp_path):
    originals, result = import_real_annotations(shared_data, tmp_path)
    assert sum(len(e["annotations"]) for e in originals) == 15
    annotated_file = next((Path(result["path"]) / "nq_original" / "dev").glob("*.jsonl.gz"))
    rebuilt = {e["example_id"]: e for e in _read(annotated_file)}
    assert result["stats"]["counts"]["examples"]["annotated"] == len(originals)
    for example in originals:
        back = rebuilt[example["example_id"]]
        assert _without_ids(back["annotations"]) == _without_ids(example["annotations"])
        assert {k: v for k, v in back.items() if k != "annotations"} == {
            k: v for k, v in example.items() if k != "annotations"}

    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps(first_paragraph_predictions(originals)), encoding="utf-8")
    original_file = str(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz")
    assert official(str(annotated_file), str(predictions)) == official(original_file,
                                                                      str(predictions))


def test_label_studio_tasks_of_the_real_pages_stay_bounded(shared_data):
    """The NQ page task (``nq_task``) on the real pages: about 28, 78 and 132 KB of JSON for
    10, 106 and 217 candidates, mostly the word map back to document tokens; the page's HTML
    is at most three times its text, and its text no longer than the top-level candidates'."""
    from transforms.annotation.label_studio.tasks import nq_task
    from transforms.annotation.page import render_page

    for example in _read(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz"):
        task = json.dumps(nq_task(example, "dev", "fedcba9876543210")).encode("utf-8")
        page = render_page(example)
        tokens = example["document_tokens"]
        top_level = sum(
            len(" ".join(t["token"] for t in tokens[c["start_token"]:c["end_token"]]
                         if not t["html_token"]))
            for c in example["long_answer_candidates"] if c["top_level"])
        assert len(task) <= 256 * 1024
        assert len(page.html) <= 3 * len(page.text)
        assert len(page.text) <= top_level + 200 * 4  # headings and #n tags add little
