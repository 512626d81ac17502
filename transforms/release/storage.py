"""Read and write whole files on any Beam filesystem (local, ``gs://``), bytes as written.

Local paths are read and written without importing Beam (``transforms.core.files``)."""

from __future__ import annotations

import hashlib
from typing import Any

from filters.text import safe_json
from transforms.core.files import CompressionTypes, FileSystems

RAW = CompressionTypes.UNCOMPRESSED  # bytes as written: never let Beam (de)compress ".gz" paths
MAX_JSON_BYTES = 256 << 20  # a manifest of 100,000 shards is about 20 MB


class JsonTooLarge(ValueError):
    """A JSON file (manifest, stats, marker) larger than the reader's bound."""


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


def read_bytes(path: str, max_bytes: int = MAX_JSON_BYTES) -> bytes:
    """The bytes of a small file, at most ``max_bytes`` (``JsonTooLarge`` beyond)."""
    with FileSystems.open(path, compression_type=RAW) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise JsonTooLarge(f"{path} is larger than {max_bytes} bytes")
    return data


def read_json(path: str, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """A JSON file (manifest, stats, marker) of at most ``max_bytes``; a nesting bomb raises
    ``safe_json.JsonTooDeep`` and an oversized file ``JsonTooLarge``, both ``ValueError``s
    like any other malformed JSON."""
    return safe_json.loads(read_bytes(path, max_bytes))

