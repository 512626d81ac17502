"""Read and write whole files on any Beam filesystem (local, ``gs://``), bytes as written."""

from __future__ import annotations

import hashlib
from typing import Any

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from filters.text import safe_json

RAW = CompressionTypes.UNCOMPRESSED  # bytes as written: never let Beam (de)compress ".gz" paths


def is_local(path: str) -> bool:
    return "://" not in path


def write_bytes(path: str, data: bytes) -> None:
    with FileSystems.create(path, compression_type=RAW) as handle:
        handle.write(data)


def sha256_of(path: str) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with FileSystems.open(path, compression_type=RAW) as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def list_files(directory: str) -> list[str]:
    """Relative paths of all files below ``directory``, sorted."""
    prefix = directory.rstrip("/") + "/"
    matches = FileSystems.match([prefix + "**"])[0].metadata_list
    return sorted(m.path[len(prefix):] for m in matches)


def read_json(path: str) -> Any:
    """A JSON file (manifest, stats, marker); a nesting bomb raises ``safe_json.JsonTooDeep``,
    a ``ValueError``, like any other malformed JSON."""
    with FileSystems.open(path, compression_type=RAW) as handle:
        return safe_json.loads(handle.read())

