"""A later version of a sample NQ / JNQ release, made by hand for the ``--previous`` tests.

``next_version`` copies a version directory to a sibling, lets the test edit its examples per
split (NQ original-format examples or JNQ rows), writes them back, re-hashes every changed
file in the manifest and records the copied release as ``previous`` (what a builder run with
``--previous`` writes), so the new version verifies and descends from the old one.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from transforms.release.checksums import SHA256SUMS, release_sums
from transforms.release.lineage import release_fingerprint

Examples = dict[str, list[dict]]  # split -> examples, in file order
MANIFEST = "dataset_info.json"


def _nq_files(version_dir: Path) -> dict[str, Path]:
    return {p.parent.name: p for p in sorted(version_dir.glob("nq_original/*/*.jsonl.gz"))}


def _jnq_files(version_dir: Path, splits: list[str]) -> dict[str, Path]:
    return {split: next(iter(sorted((version_dir / split).glob("*.parquet"))))
            for split in splits}


def read_examples(version_dir: Path) -> Examples:
    """The examples of every split of an NQ or JNQ release."""
    manifest = json.loads((version_dir / MANIFEST).read_text("utf-8"))
    if (version_dir / "nq_original").is_dir():
        return {split: [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
                for split, path in _nq_files(version_dir).items()}
    return {split: pq.read_table(path).to_pylist()
            for split, path in _jnq_files(version_dir, manifest["splits"]).items()}


def _write(version_dir: Path, examples: Examples, manifest: dict) -> None:
    if (version_dir / "nq_original").is_dir():
        for split, path in _nq_files(version_dir).items():
            lines = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in examples[split])
            path.write_bytes(gzip.compress(lines.encode("utf-8"), mtime=0))
        return
    for split, path in _jnq_files(version_dir, manifest["splits"]).items():
        schema = pq.read_schema(path)
        pq.write_table(pa.Table.from_pylist(examples[split], schema=schema), path)
        manifest["rows_per_split"][split] = len(examples[split])


def next_version(version_dir: Path, version: str, edit: Callable[[Examples], Examples],
                 link: bool = True) -> Path:
    """``<dataset dir>/<version>``: a copy of ``version_dir`` whose examples are
    ``edit(examples)``, re-hashed, with ``previous`` naming ``version_dir``'s release
    (``link=False``: no ``previous``, an unrelated rebuild)."""
    target = version_dir.parent / version
    shutil.copytree(version_dir, target)
    data = (version_dir / MANIFEST).read_bytes()
    manifest = json.loads(data)
    _write(target, edit(read_examples(version_dir)), manifest)
    for name, entry in manifest["files"].items():
        content = (target / name).read_bytes()
        entry.update(bytes=len(content), sha256=hashlib.sha256(content).hexdigest())
        if name.endswith(".parquet"):
            entry["rows"] = pq.ParquetFile(target / name).metadata.num_rows
    manifest["version"] = version
    if link:
        manifest["previous"] = {"dataset": manifest["dataset"],
                                "version": manifest_version(data),
                                "fingerprint": release_fingerprint(data)}
    written = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8")
    (target / MANIFEST).write_bytes(written)
    (target / SHA256SUMS).write_bytes(release_sums(manifest["files"], MANIFEST, written))
    return target


def manifest_version(data: bytes) -> str:
    """The version a manifest's bytes name."""
    return json.loads(data)["version"]
