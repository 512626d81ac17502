"""A release's manifest, ``dataset_info.json``: options, source, schema, rows, file checksums."""

from __future__ import annotations

import argparse
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from transforms.core.paths import portable_value
from transforms.release.provenance import code_version, utc_now
from transforms.release.storage import RAW, list_files, sha256_of
from transforms.release.target import ReleaseTarget


def recorded_options(args: argparse.Namespace, beam_args: list[str],
                     command: str = "") -> dict[str, Any]:
    """All options as given (JSON-serializable), for the manifest; local paths relative to
    the working directory (``transforms.core.paths``), so no absolute path is published.
    ``command`` is the entry point (``python -m pipelines.build_nlquad``) the card names."""
    options = {k: v for k, v in vars(args).items() if not k.startswith("_")}
    options["beam_args"] = beam_args
    if command:
        options["command"] = command
    return portable_value(json_safe(options))


def json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)



def parquet_rows(path: str) -> int:
    """The rows of a Parquet file, from its footer only."""
    with FileSystems.open(path, compression_type=RAW) as handle:
        return pq.ParquetFile(handle).metadata.num_rows


def file_manifest(staging_dir: str) -> dict[str, dict[str, Any]]:
    """sha256, size (and Parquet row count) of every file of the staged release."""
    files: dict[str, dict[str, Any]] = {}
    for relative in list_files(staging_dir):
        path = FileSystems.join(staging_dir, *relative.split("/"))
        digest, size = sha256_of(path)
        entry: dict[str, Any] = {"sha256": digest, "bytes": size}
        if relative.endswith(".parquet"):
            entry["rows"] = parquet_rows(path)
        files[relative] = entry
    return files



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
        "source": portable_value(source),
        "schema": schema_description(schema, field_docs),
        "splits": splits,
        "rows_per_split": rows,
        "files": files,
        **(extra or {}),
    }


def rows_in_split_order(manifest: dict[str, Any]) -> list[tuple[str, int]]:
    """``(split, rows)`` in the release's split order (the JSON manifest sorts its keys)."""
    rows = manifest["rows_per_split"]
    return [(split, rows.get(split, 0)) for split in manifest.get("splits", sorted(rows))]

