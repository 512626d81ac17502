"""Cache files under a local directory or any Beam filesystem (``gs://...``).

Used by the HTTP clients so a re-run, or a retried worker on Dataflow, skips finished fetches
when the cache lives in an object store. Writes are atomic: locally a temporary file, fsync
and ``os.replace``; on object stores an object only becomes visible when its upload closes.
Readers treat a missing or unreadable entry as absent.
"""

from __future__ import annotations

import contextlib
import os
import tempfile


class CacheStore:
    """``read``/``write`` of whole files below ``root``."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = os.fspath(root)
        self.remote = "://" in self.root

    def path(self, *parts: str) -> str:
        if self.remote:
            from apache_beam.io.filesystems import FileSystems

            return FileSystems.join(self.root, *parts)
        return os.path.join(self.root, *parts)

    def read(self, path: str) -> bytes | None:
        """The file's bytes, or None when it is missing or unreadable."""
        try:
            if not self.remote:
                with open(path, "rb") as handle:
                    return handle.read()
            from apache_beam.io.filesystem import CompressionTypes
            from apache_beam.io.filesystems import FileSystems

            if not FileSystems.exists(path):
                return None
            with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
                return f.read()
        except OSError:
            return None

    def write(self, path: str, data: bytes) -> None:
        """Write ``data`` atomically (see the module docstring)."""
        if self.remote:
            from apache_beam.io.filesystem import CompressionTypes
            from apache_beam.io.filesystems import FileSystems

            with FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
                f.write(data)
            return
        directory = os.path.dirname(path)
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.",
                                   suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
