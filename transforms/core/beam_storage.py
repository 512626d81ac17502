"""Beam ``FileSystems`` as the object storage of the clients' on-disk caches.

:class:`transforms.clients.cache_store.CacheStore` takes any
:class:`~transforms.clients.cache_store.ObjectStorage` for a remote cache root, since the
clients import no Beam. :class:`BeamFileSystemStorage` implements it with Beam's filesystem
registry (``gs://`` and every other registered scheme): raw, uncompressed bytes, and an object
becomes visible when its upload closes. Beam stages build it in ``DoFn.setup()`` (or a
``make_*`` factory) through :func:`beam_storage_for`.
"""

from __future__ import annotations

import os

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms.clients.cache_store import is_remote_root


class BeamFileSystemStorage:
    """:class:`~transforms.clients.cache_store.ObjectStorage` over Beam ``FileSystems``."""

    def join(self, root: str, *parts: str) -> str:
        """``root/part/...`` as the root's filesystem joins paths."""
        return FileSystems.join(root, *parts)

    def read(self, path: str) -> bytes | None:
        """The object's bytes, or None when it does not exist (I/O errors raise OSError)."""
        if not FileSystems.exists(path):
            return None
        with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
            return handle.read()

    def write(self, path: str, data: bytes) -> None:
        """Upload ``data``; the object appears when the upload closes."""
        with FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
            handle.write(data)


def beam_storage_for(root: str | os.PathLike[str] | None) -> BeamFileSystemStorage | None:
    """The Beam storage when the cache ``root`` is remote (``gs://...``), else None."""
    return BeamFileSystemStorage() if root and is_remote_root(root) else None
