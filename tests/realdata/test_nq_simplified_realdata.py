"""Real NQ: the ``simplified`` config of an annotated release of the shared NQ dev examples
equals what the official ``simplify_nq_data`` writes from the release's original-format file
(real pages: blanks inside table-cell tokens, 5-way annotations)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from filters.annotation.nq import votes_from_annotations
from pipelines import annotate
from tests.conftest import TEST_RUNNER
from tests.pipelines.test_training_tables import assert_simplified_equals_official

pytestmark = pytest.mark.realdata


def test_real_nq_simplified_equals_official(shared_data, tmp_path):
    with gzip.open(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz", "rt",
                   encoding="utf-8") as handle:
        originals = [json.loads(line) for line in handle]
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
    release = Path(result["path"])
    assert assert_simplified_equals_official(release, tmp_path) == len(originals)
