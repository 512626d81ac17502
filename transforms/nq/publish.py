"""What the NQ release adds when it is published, after every writer is done.

Every split gets an original-format file (empty when it got no examples), and NQ Table 3's
first-paragraph baseline is scored on the staged dev split once it is annotated.
"""

from __future__ import annotations

import gzip
import io
import json
from typing import Any

from apache_beam.io.filesystems import FileSystems

from transforms.metrics.baselines.nq import first_paragraph_baseline
from transforms.nq.examples import jsonl_gz_bytes, nq_shard_name
from transforms.release import RAW, ReleaseTarget, list_files, write_bytes


def nq_dev_baselines(staging_dir: str, split: str = "dev") -> dict[str, Any]:
    """NQ Table 3's first-paragraph baseline on the staged dev examples (once annotated)."""
    examples = []
    for name in list_files(staging_dir):
        if name.startswith(f"nq_original/{split}/") and name.endswith(".jsonl.gz"):
            with FileSystems.open(FileSystems.join(staging_dir, *name.split("/")),
                                  compression_type=RAW) as handle:
                data = gzip.decompress(handle.read())
            examples += [json.loads(line) for line in io.BytesIO(data)]
    scores = first_paragraph_baseline(examples)
    table = {"split": split, "n": len(examples), "metrics": ["f1", "precision", "recall"]}
    if not scores:
        return {**table, "rows": [], "note": (
            "The examples are not annotated yet, so no baseline can be scored; after "
            "annotation, NQ's first-paragraph baseline (F1 27.8 on NQ dev) is "
            "transforms.metrics.baselines.nq.first_paragraph_baseline.")}
    return {**table, "n": scores["n"], "rows": [{"name": "first paragraph", **{
        m: scores[m] for m in ("f1", "precision", "recall")}}]}


def ensure_empty_jsonl(target: ReleaseTarget, splits: list[str]) -> None:
    """Every split has an original-format file, empty when it got no examples."""
    for split in splits:
        directory = FileSystems.join(target.staging_dir, "nq_original", split)
        if not FileSystems.match([directory + "/*"])[0].metadata_list:
            write_bytes(FileSystems.join(directory, nq_shard_name(split, 0, 1)),
                        jsonl_gz_bytes([]))

