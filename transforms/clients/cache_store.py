"""Cache files under a local directory or, through an injected storage, in an object store.

Used by the HTTP clients so a re-run, or a retried worker on Dataflow, skips finished fetches
when the cache lives in an object store. Writes are atomic: locally a temporary file, fsync
and ``os.replace``; remotely the :class:`ObjectStorage` must publish an object only once it is
complete (on object stores, when its upload closes). Readers treat a missing or unreadable
entry as absent.

This module has no Beam dependency: a remote root (``gs://...``) needs a storage object, such
as :class:`transforms.core.beam_storage.BeamFileSystemStorage`, passed by the Beam stage that
builds the client.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Protocol, runtime_checkable


@runtime_checkable
class ObjectStorage(Protocol):
    """Whole-object storage behind a remote cache root (``scheme://...``).

    ``read`` returns None for a missing object and may raise OSError for an unreadable one;
    ``write`` replaces the object and must never expose a partial one.
    """

    def join(self, root: str, *parts: str) -> str:
        """The path of ``parts`` below ``root``."""
        ...

    def read(self, path: str) -> bytes | None:
        """The object's bytes, or None when it does not exist."""
        ...

    def write(self, path: str, data: bytes) -> None:
        """Store ``data`` at ``path``, visible only once complete."""
        ...


def is_remote_root(root: str | os.PathLike[str] | None) -> bool:
    """Whether ``root`` names an object store (``gs://bucket/...``) rather than a directory."""
    return root is not None and "://" in os.fspath(root)


class CacheStore:
    """``read``/``write`` of whole files below ``root``.

    A local ``root`` is a directory; a remote one (``"://" in root``) needs ``storage``, which
    is then used for every path (it is used for a local root too when given).
    """

    def __init__(
        self, root: str | os.PathLike[str], storage: ObjectStorage | None = None
    ) -> None:
        self.root = os.fspath(root)
        if storage is None and is_remote_root(self.root):
            raise ValueError(
                f"cache root {self.root!r} is not a local directory: pass a storage object "
                "(CacheStore(root, storage=...), cache_storage=... on the clients), e.g. "
                "transforms.core.beam_storage.BeamFileSystemStorage() in a Beam pipeline"
            )
        self.storage = storage

    @property
    def remote(self) -> bool:
        """Whether entries go through the injected storage."""
        return self.storage is not None

    def path(self, *parts: str) -> str:
        """The path of an entry below ``root``."""
        if self.storage is not None:
            return self.storage.join(self.root, *parts)
        return os.path.join(self.root, *parts)

    def read(self, path: str) -> bytes | None:
        """The file's bytes, or None when it is missing or unreadable."""
        try:
            if self.storage is not None:
                return self.storage.read(path)
            with open(path, "rb") as handle:
                return handle.read()
        except OSError:
            return None

    def write(self, path: str, data: bytes) -> None:
        """Write ``data`` atomically (see the module docstring)."""
        if self.storage is not None:
            self.storage.write(path, data)
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
