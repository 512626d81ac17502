"""A refresh built on a re-sealed NQ release whose two formats of one example disagree: the
HF Parquet row and the ``nq_original`` line are carried as the previous release's bytes, so
an edited line would be published next to a row that says otherwise. The release's
invariants compare the formats (``formats_disagree``): exit 5 naming the example, nothing
published (issue 35, B5)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines import build_nq
from pipelines.release import main as release_main
from tests.conftest import TEST_RUNNER
from tests.pipelines.test_refresh_invariants import reseal
from transforms.nq.examples import hf_annotations, member_bytes
from transforms.release.invariants import FORMATS_DISAGREE


def annotate(example: dict, candidate: int) -> None:
    """One annotation whose long answer is the example's candidate ``candidate``."""
    box = example["long_answer_candidates"][candidate]
    example["annotations"] = [{
        "annotation_id": 424242,
        "long_answer": {key: box[key] for key in ("start_token", "end_token", "start_byte",
                                                  "end_byte")} | {"candidate_index": candidate},
        "short_answers": [], "yes_no_answer": "NONE"}]


def forge(version_dir: Path) -> str:
    """Annotate one train example in both formats, its long answer the first candidate, then
    move the ``nq_original`` line's long answer to the second candidate, and re-seal the
    release. Returns the example's id."""
    (original,) = (version_dir / "nq_original" / "train").glob("*.jsonl.gz")
    (parquet,) = (version_dir / "train").glob("*.parquet")
    lines = [json.loads(line) for line in gzip.decompress(original.read_bytes()).splitlines()
             if line]
    index = next(i for i, ex in enumerate(lines) if len(ex["long_answer_candidates"]) >= 2)
    example = lines[index]
    annotate(example, 0)
    table = pq.read_table(parquet)
    rows = table.to_pylist()
    assert rows[index]["id"] == str(example["example_id"])
    rows[index]["annotations"] = hf_annotations(example)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), parquet)
    annotate(example, 1)  # the line only: the formats now disagree
    original.write_bytes(b"".join(
        member_bytes((json.dumps(ex, ensure_ascii=False) + "\n").encode("utf-8"))
        for ex in lines))
    reseal(version_dir)
    return str(example["example_id"])


def test_a_refresh_carrying_disagreeing_formats_exits_5_naming_the_example(tmp_path, capsys):
    root = tmp_path / "r"
    assert build_nq.main([TEST_RUNNER, "--output", str(root), "--version", "1"]) == 0
    first = root / "nq" / "1"
    example = forge(first)
    assert release_main(["verify", str(first)]) == 0  # the forgery verifies
    capsys.readouterr()
    code = build_nq.main([TEST_RUNNER, "--output", str(root), "--version", "2",
                          "--previous", str(first)])
    error = capsys.readouterr().err
    assert code == 5, error
    assert FORMATS_DISAGREE in error and f"train: {example} (annotations differ)" in error
    assert "nothing was published" in error and "build without --previous" in error
    assert not (root / "nq" / "2").exists()
    assert (root / "nq" / "LATEST").read_text(encoding="utf-8").strip() == "1"
    staging = root / "nq" / ".staging"
    assert not staging.exists() or not any(staging.iterdir())
