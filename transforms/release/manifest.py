"""A release's manifest, ``dataset_info.json``: options, source, schema, rows, file checksums.

``build_manifest`` writes it; ``read_manifest`` reads one back as untrusted input (nesting
bounded by ``safe_json``, shape checked by ``manifest_problem``), raising ``ManifestError``.
"""

from __future__ import annotations

import argparse
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from filters.text import safe_json
from transforms.core.files import FileSystems
from transforms.core.paths import portable_value
from transforms.release.provenance import code_version, utc_now
from transforms.release.storage import RAW, list_files, read_bytes, sha256_of
from transforms.release.target import MANIFEST, InvalidReleaseName, ReleaseTarget, check_name

COMMAND_LINE = "command_line"  # options key: the arguments that build the release again


def recorded_options(args: argparse.Namespace, beam_args: list[str],
                     command: str = "", command_line: list[str] | None = None
                     ) -> dict[str, Any]:
    """All options as given (JSON-serializable), for the manifest; every path by
    ``transforms.core.paths.recorded_path`` (relative ones as given, ``<local>/...`` for a
    local path outside the working directory), so no machine's path is published.
    ``command`` is the entry point (``python -m pipelines.build_nlquad``); ``command_line``
    the arguments that build the release again (``pipelines.cli.rerun``), which the card
    prints."""
    options = {k: v for k, v in vars(args).items() if not k.startswith("_")}
    options["beam_args"] = beam_args
    if command:
        options["command"] = command
    if command_line:
        options[COMMAND_LINE] = list(command_line)
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



# Reading a manifest back ---------------------------------------------------------------------

class ManifestError(ValueError):
    """A ``dataset_info.json`` that is unreadable, not JSON, nested too deeply or of the wrong
    shape: the release is damaged (no checksum covers the manifest itself)."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _file_entry_problem(name: Any, entry: Any) -> str | None:
    if not isinstance(name, str) or not isinstance(entry, dict):
        return f"files[{name!r}] is not an object"
    if "sha256" in entry and not isinstance(entry["sha256"], str):
        return f"files[{name!r}].sha256 is not a string"
    for key in ("bytes", "rows"):
        if key in entry and not (_is_int(entry[key]) and entry[key] >= 0):
            return f"files[{name!r}].{key} is not a non-negative integer"
    return None


def manifest_problem(manifest: Any) -> str | None:
    """Why ``manifest`` is not the shape ``build_manifest`` writes, or ``None``. Every key is
    optional; a key that is present must have its type, and ``dataset`` and ``version`` must
    be valid names (``check_name``: a plain path component)."""
    if not isinstance(manifest, dict):
        return f"not a JSON object but {type(manifest).__name__}"
    for key, what in (("dataset", "dataset name"), ("version", "version")):
        if key in manifest:
            try:
                check_name(manifest[key], what)
            except InvalidReleaseName as error:
                return str(error)
    if manifest.get("created") is not None and not isinstance(manifest["created"], str):
        return "created is not a string"
    files = manifest.get("files", {})
    if not isinstance(files, dict):
        return "files is not an object"
    for name, entry in files.items():
        problem = _file_entry_problem(name, entry)
        if problem:
            return problem
    splits = manifest.get("splits", [])
    if not isinstance(splits, list) or not all(isinstance(s, str) for s in splits):
        return "splits is not a list of names"
    rows = manifest.get("rows_per_split", {})
    if not isinstance(rows, dict) or not all(_is_int(n) for n in rows.values()):
        return "rows_per_split is not an object of row counts"
    schema = manifest.get("schema", [])
    if not isinstance(schema, list) or not all(
            isinstance(f, dict) and isinstance(f.get("name"), str)
            and isinstance(f.get("type"), str) for f in schema):
        return "schema is not a list of fields with a name and a type"
    for key in ("options", "source", "code"):
        if key in manifest and not isinstance(manifest[key], dict):
            return f"{key} is not an object"
    return None


def read_manifest(version_dir: str) -> dict[str, Any]:
    """The ``dataset_info.json`` of a version directory, checked by ``manifest_problem``;
    ``ManifestError`` (a ``ValueError``) when it is missing, unreadable, not UTF-8 JSON,
    nested deeper than ``safe_json.MAX_DEPTH`` levels or of the wrong shape."""
    try:
        data = read_bytes(FileSystems.join(version_dir, MANIFEST))
    except (OSError, ValueError) as error:  # an oversized manifest is a ValueError
        raise ManifestError(f"missing or unreadable: {error}") from error
    return parse_manifest(data)


def parse_manifest(data: bytes) -> dict[str, Any]:
    """A manifest from its bytes, checked by ``manifest_problem`` (``ManifestError``)."""
    try:
        manifest = safe_json.loads(data)
    except ValueError as error:  # JSON, UTF-8 and nesting errors are ValueErrors
        raise ManifestError(f"missing or unreadable: {error}") from error
    problem = manifest_problem(manifest)
    if problem:
        raise ManifestError(f"wrong shape: {problem}")
    return manifest
