"""Build a release's ``stats.json``, ``dataset_info.json`` and the pieces of its data card.

Dataset-independent: a pipeline passes its tallies, histograms, schema and options; the
dataset's own card text lives next to its pipeline (``transforms/nlquad/card.py``).
"""

from __future__ import annotations

import json
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

import pyarrow as pa

from filters.text.stats import percentile_summary
from transforms.release.accounting import HISTOGRAMS_FILE, TALLIES_FILE
from transforms.release.files import ReleaseTarget, file_manifest, read_json, utc_now

PREFIX_TALLIES = ("question_prefix_1.", "question_prefix_2.")


def code_version() -> dict[str, str]:
    """Package version and, when run from a git checkout, the commit."""
    try:
        version = metadata.version("qa-dataset-toolkit")
    except metadata.PackageNotFoundError:
        version = "unknown"
    commit = ""
    try:
        output = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
            capture_output=True, text=True, timeout=5, check=False,
        ).stdout.strip()
        commit = output if re.fullmatch(r"[0-9a-f]{40}", output) else ""
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {"package": "qa-dataset-toolkit", "version": version, "git_commit": commit}


def read_accounting(target: ReleaseTarget) -> tuple[dict[str, int], dict[str, dict[int, int]]]:
    """Read and delete the pipeline's tally and histogram files from the staging directory."""
    from apache_beam.io.filesystems import FileSystems

    tally_path = FileSystems.join(target.staging_dir, TALLIES_FILE)
    hist_path = FileSystems.join(target.staging_dir, HISTOGRAMS_FILE)
    tallies = read_json(tally_path) if FileSystems.exists(tally_path) else {}
    raw = read_json(hist_path) if FileSystems.exists(hist_path) else {}
    histograms = {k: {int(v): f for v, f in h.items()} for k, h in raw.items()}
    FileSystems.delete([p for p in (tally_path, hist_path) if FileSystems.exists(p)])
    return tallies, histograms


def group_tallies(tallies: dict[str, int]) -> dict[str, dict[str, int]]:
    """``{"pages.skipped.video_page": 1}`` -> ``{"pages": {"skipped.video_page": 1}}``."""
    grouped: dict[str, dict[str, int]] = {}
    for name, count in sorted(tallies.items()):
        if name.startswith(PREFIX_TALLIES):
            continue
        stage, _, rest = name.partition(".")
        grouped.setdefault(stage, {})[rest] = count
    return grouped


def top_prefixes(tallies: dict[str, int], limit: int = 20) -> dict[str, list[dict[str, Any]]]:
    """Most frequent first words / first two words of questions (NLQuAD Table 3)."""
    result = {}
    for label, prefix in zip(("first_word", "first_two_words"), PREFIX_TALLIES, strict=True):
        counts = {k[len(prefix):]: v for k, v in tallies.items() if k.startswith(prefix)}
        total = sum(counts.values()) or 1
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        result[label] = [{"prefix": p, "count": c, "share": round(c / total, 4)}
                         for p, c in ranked]
    return result


def length_statistics(histograms: dict[str, dict[int, int]]) -> dict[str, dict[str, Any]]:
    """``{"train/answer_words": hist}`` -> ``{"train": {"answer_words": summary}}``."""
    result: dict[str, dict[str, Any]] = {}
    for key, histogram in sorted(histograms.items()):
        scope, _, metric = key.partition("/")
        result.setdefault(scope, {})[metric] = percentile_summary(histogram)
    return result


def schema_description(schema: pa.Schema, docs: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": f.name, "type": str(f.type), "nullable": str(f.nullable).lower(),
             "description": docs.get(f.name, "")} for f in schema]


def build_manifest(target: ReleaseTarget, *, options: dict[str, Any], source: dict[str, Any],
                   schema: pa.Schema, field_docs: dict[str, str], splits: list[str],
                   extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``dataset_info.json`` content: everything needed to reproduce and verify."""
    files = file_manifest(target.staging_dir)
    rows = {split: sum(f.get("rows", 0) for name, f in files.items()
                       if name.startswith(f"{split}/") and name.endswith(".parquet"))
            for split in splits}
    return {
        "dataset": target.dataset,
        "version": target.version,
        "run_id": target.run_id,
        "created": utc_now(),
        "code": dict(target.code) or code_version(),
        "options": options,
        "source": source,
        "schema": schema_description(schema, field_docs),
        "splits": splits,
        "rows_per_split": rows,
        "files": files,
        **(extra or {}),
    }


def to_json_bytes(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def rows_in_split_order(manifest: dict[str, Any]) -> list[tuple[str, int]]:
    """``(split, rows)`` in the release's split order (the JSON manifest sorts its keys)."""
    rows = manifest["rows_per_split"]
    return [(split, rows.get(split, 0)) for split in manifest.get("splits", sorted(rows))]
