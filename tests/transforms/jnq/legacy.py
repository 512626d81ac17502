"""A JNQ / JBoolQ release as releases were written before their enumerations were class
labels: every class-label column (``variant``, ``annotations.label``, ``boolq.answer``, the
votes' ``stage``, ...) holds its names as strings, the footer declares no ``ClassLabel``.

``as_string_labels`` rewrites a release in place (files, manifest hashes and ``SHA256SUMS``),
so it verifies and can be passed as ``--previous``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq

from transforms.jnq.labels import as_names
from transforms.release.checksums import SHA256SUMS, release_sums
from transforms.release.features import class_labels, names_schema
from transforms.release.formats import parquet_bytes

MANIFEST = "dataset_info.json"


def as_string_labels(version_dir: Path) -> list[str]:
    """Rewrite the release's Parquet files with their class labels as strings; the names of
    the files rewritten."""
    manifest = json.loads((version_dir / MANIFEST).read_text("utf-8"))
    main = {column["name"] for column in manifest["schema"]}
    rewritten = []
    for name, entry in manifest["files"].items():
        path = version_dir / name
        if not name.endswith(".parquet") or not class_labels(pq.read_schema(path)):
            continue
        legacy = names_schema(pq.read_schema(path))
        rows = [as_names(row) for row in pq.read_table(path).to_pylist()]
        content = parquet_bytes(rows, legacy)
        path.write_bytes(content)
        entry.update(bytes=len(content), sha256=hashlib.sha256(content).hexdigest())
        rewritten.append(name)
        if set(legacy.names) == main:  # the manifest's schema is the main table's
            for column in manifest["schema"]:
                column["type"] = str(legacy.field(column["name"]).type)
    written = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8")
    (version_dir / MANIFEST).write_bytes(written)
    (version_dir / SHA256SUMS).write_bytes(release_sums(manifest["files"], MANIFEST, written))
    return rewritten
