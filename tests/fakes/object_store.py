"""A fake object store for Beam: ``fakegs://bucket/key`` stored under a local directory.

Defining :class:`FakeObjectStore` registers the ``fakegs`` scheme with Beam's ``FileSystems``
(scheme routing as for ``gs://``), so caches and releases with a remote root can be tested
offline. Point it at a directory with :func:`use_bucket`; the FnApiRunner runs in-process, so
pipelines see the same directory.

It behaves as an object store, not a file system: there are only objects (files), no
directories. ``exists`` is true for an object only (never for a "directory" prefix),
``match`` lists every object whose name starts with the pattern's literal prefix (``**``
crosses ``/``), ``delete`` removes objects (a path ending with ``/`` removes every object
under that prefix, as ``gs://`` does) and fails for a missing one, ``rename``/``copy`` move
single objects. The local directories that hold the objects are an implementation detail:
empty ones are pruned after a delete or rename.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

from apache_beam.io.filesystem import BeamIOError, FileMetadata
from apache_beam.io.localfilesystem import LocalFileSystem

SCHEME = "fakegs"
PREFIX = f"{SCHEME}://"
ROOT = {"dir": ""}


def use_bucket(directory: str | os.PathLike[str]) -> None:
    """Store every ``fakegs://`` object below ``directory`` from now on."""
    ROOT["dir"] = os.fspath(directory)


def local_path(path: str) -> str:
    """The local file holding the object ``fakegs://...`` (for tests that age objects)."""
    return os.path.join(ROOT["dir"], path[len(PREFIX):])


class FakeObjectStore(LocalFileSystem):
    """``fakegs://bucket/key`` stored under ``ROOT["dir"]``."""

    @classmethod
    def scheme(cls) -> str:
        return SCHEME

    def has_dirs(self) -> bool:
        return False

    def _local(self, path: str) -> str:
        return local_path(path)

    def _remote(self, local: str) -> str:
        return PREFIX + os.path.relpath(local, ROOT["dir"]).replace(os.sep, "/")

    def join(self, base: str, *paths: str) -> str:
        return "/".join([base.rstrip("/"), *paths])

    def mkdirs(self, path: str) -> None:
        """Object stores have no directories: nothing to create."""

    def create(self, path: str, *args: Any, **kwargs: Any) -> Any:
        os.makedirs(os.path.dirname(self._local(path)), exist_ok=True)
        return super().create(self._local(path), *args, **kwargs)

    def open(self, path: str, *args: Any, **kwargs: Any) -> Any:
        return super().open(self._local(path), *args, **kwargs)

    def exists(self, path: str) -> bool:
        return os.path.isfile(self._local(path))

    def size(self, path: str) -> int:
        return self.metadata(path).size_in_bytes

    def last_updated(self, path: str) -> float:
        return self.metadata(path).last_updated_in_seconds

    def checksum(self, path: str) -> str:
        return str(self.metadata(path).size_in_bytes)

    def metadata(self, path: str) -> FileMetadata:
        local = self._local(path)
        if not os.path.isfile(local):
            raise BeamIOError(f"Object does not exist: {path}")
        return FileMetadata(path, os.path.getsize(local), os.path.getmtime(local))

    def _list(self, dir_or_prefix: str) -> Iterator[FileMetadata]:
        """Every object whose name starts with ``dir_or_prefix`` (a plain string prefix)."""
        for directory, _, files in os.walk(ROOT["dir"]):
            for name in files:
                local = os.path.join(directory, name)
                path = self._remote(local)
                if path.startswith(dir_or_prefix):
                    try:
                        yield FileMetadata(path, os.path.getsize(local),
                                           os.path.getmtime(local))
                    except OSError:
                        pass

    def delete(self, paths: list[str]) -> None:
        exceptions: dict[str, Exception] = {}
        for path in paths:
            if path.endswith("/"):
                objects = [m.path for m in self._list(path)]
            else:
                objects = [path] if self.exists(path) else []
            if not objects:
                exceptions[path] = OSError(f"No objects found to delete under: {path}")
            for name in objects:
                os.remove(self._local(name))
                self._prune(name)
        if exceptions:
            raise BeamIOError("Delete operation failed", exceptions)

    def copy(self, source_file_names: list[str], destination_file_names: list[str]) -> None:
        self._transfer(source_file_names, destination_file_names, shutil.copy2)

    def rename(self, source_file_names: list[str], destination_file_names: list[str]) -> None:
        self._transfer(source_file_names, destination_file_names, os.replace)

    def _transfer(self, sources: list[str], destinations: list[str], move: Any) -> None:
        exceptions: dict[tuple[str, str], Exception] = {}
        for source, destination in zip(sources, destinations, strict=True):
            if not self.exists(source):
                exceptions[(source, destination)] = OSError(f"No such object: {source}")
                continue
            os.makedirs(os.path.dirname(self._local(destination)), exist_ok=True)
            move(self._local(source), self._local(destination))
            self._prune(source)
        if exceptions:
            raise BeamIOError("Transfer operation failed", exceptions)

    def _prune(self, path: str) -> None:
        """Remove the local directories left empty above a removed object."""
        directory = os.path.dirname(self._local(path))
        root = os.path.realpath(ROOT["dir"])
        while os.path.realpath(directory) != root and directory.startswith(ROOT["dir"]):
            try:
                os.rmdir(directory)
            except OSError:
                return
            directory = os.path.dirname(directory)
