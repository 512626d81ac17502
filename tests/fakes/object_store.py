"""A fake object store for Beam: ``fakegs://bucket/key`` stored under a local directory.

Defining :class:`FakeObjectStore` registers the ``fakegs`` scheme with Beam's ``FileSystems``
(scheme routing as for ``gs://``), so caches with a remote root can be tested offline. Point
it at a directory with :func:`use_bucket`; the FnApiRunner runs in-process, so pipelines see
the same directory.
"""

from __future__ import annotations

import os
from typing import Any

from apache_beam.io.localfilesystem import LocalFileSystem

SCHEME = "fakegs"
ROOT = {"dir": ""}


def use_bucket(directory: str | os.PathLike[str]) -> None:
    """Store every ``fakegs://`` object below ``directory`` from now on."""
    ROOT["dir"] = os.fspath(directory)


class FakeObjectStore(LocalFileSystem):
    """``fakegs://bucket/key`` stored under ``ROOT["dir"]``."""

    @classmethod
    def scheme(cls) -> str:
        return SCHEME

    def _local(self, path: str) -> str:
        return os.path.join(ROOT["dir"], path[len(f"{SCHEME}://"):])

    def join(self, base: str, *paths: str) -> str:
        return "/".join([base.rstrip("/"), *paths])

    def create(self, path: str, *args: Any, **kwargs: Any) -> Any:
        os.makedirs(os.path.dirname(self._local(path)), exist_ok=True)
        return super().create(self._local(path), *args, **kwargs)

    def open(self, path: str, *args: Any, **kwargs: Any) -> Any:
        return super().open(self._local(path), *args, **kwargs)

    def exists(self, path: str) -> bool:
        return super().exists(self._local(path))
