"""Read the files of a verified release as they were verified: each read is hashed.

A release read by a later job (a refresh's ``--previous``, the previous annotated release of
``annotate import --previous``) is verified in full before any work, but it is read later,
in the job: a file changed in between (another run's ``--overwrite``, a copy still being
written, an edit) would be carried as it is. ``PinnedFiles`` holds the sha256 of every file
as the verified manifest gave it, and every read goes through it:

* ``read(name)``: the whole file, hashed and compared before the bytes are returned (what a
  Parquet reader needs: it seeks to the footer first);
* ``seekable(name)``: a verified copy, in memory up to ``SPOOL_BYTES`` and on local disk
  beyond, for a reader that seeks (a Parquet file read a column at a time);
* ``open(name)``: a sequential reader (``read``, ``readline``, iteration) hashing what it
  reads; at the end of the file, and when it is closed without an error, the digest and the
  size are compared (a reader closed early reads the rest first). Rows read before the end
  go into the job, but the job fails there: nothing is published.

A mismatch, or a file the manifest did not list, is ``ChangedSinceVerified`` (a
``DamagedReleaseError``: exit 5). The object is small and picklable, so it travels to every
worker with the readers. ``read_file`` and ``open_file`` take either it or a plain directory
(a tool or test reading files it just wrote: read as they are, unchecked), so a reader
shared by both keeps one signature; a refresh's job always passes the ``PinnedFiles``.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from apache_beam.io.filesystems import FileSystems

from transforms.release.storage import RAW
from transforms.release.verify import DamagedReleaseError

CHUNK = 1 << 20  # bytes hashed per read while draining or reading whole
SPOOL_BYTES = 64 << 20  # a seekable copy larger than this goes to a temporary file


class ChangedSinceVerified(DamagedReleaseError):
    """A file of a verified release no longer has the sha256 its manifest gave (exit 5)."""


@dataclass(frozen=True)
class PinnedFiles:
    """The files of the release at ``path`` and the sha256 each had when it was verified
    (release-relative name -> hex digest)."""

    path: str
    sha256: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of_manifest(cls, path: str, manifest: Mapping[str, Any]) -> PinnedFiles:
        """The digests a (verified) manifest lists under ``files``."""
        files = manifest.get("files", {})
        return cls(path, {name: str(entry.get("sha256", "")) for name, entry in files.items()
                          if isinstance(entry, dict)} if isinstance(files, dict) else {})

    def location(self, name: str) -> str:
        """The full path of the release-relative ``name``."""
        return FileSystems.join(self.path, *name.split("/"))

    def expected(self, name: str) -> str:
        """The pinned sha256 of ``name``; ``ChangedSinceVerified`` for a file it does not
        list (never read unchecked)."""
        digest = self.sha256.get(name)
        if not digest:
            raise ChangedSinceVerified(
                f"release {self.path}: {name} is not listed in the manifest that was "
                f"verified, so it cannot be read as verified")
        return digest

    def read(self, name: str) -> bytes:
        """The whole of ``name``, checked against its pinned sha256 before it is returned."""
        with self.open(name) as handle:
            return handle.read()

    @contextmanager
    def seekable(self, name: str) -> Iterator[Any]:
        """A copy of ``name`` checked whole before it is yielded: in memory up to
        ``SPOOL_BYTES``, then in a temporary file removed afterwards."""
        with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as copy:
            with self.open(name) as source:
                shutil.copyfileobj(source, copy, CHUNK)
                source.read()  # the end of the file: the digest is compared here
            copy.seek(0)
            yield copy

    def file(self, name: str) -> PinnedFile:
        """One file of the release, with its pinned sha256, to hand to a reader alone."""
        return PinnedFile(self.location(name), self.expected(name), f"release {self.path}: "
                                                                     f"{name}")

    def open(self, name: str) -> HashingReader:
        """A sequential reader of ``name`` checked at its end (see the module docstring)."""
        return self.file(name).open()


@dataclass(frozen=True)
class _Metadata:
    path: str


@dataclass(frozen=True)
class PinnedFile:
    """One file of a verified release and its pinned sha256: it opens like a Beam
    ``fileio.ReadableFile`` (``open``, ``metadata.path``), so the readers of those (the
    line readers of ``transforms.sources.compressed``) read it checked."""

    location: str
    sha256: str
    label: str

    @property
    def metadata(self) -> _Metadata:
        return _Metadata(self.location)

    def open(self, compression_type: Any = RAW) -> HashingReader:  # noqa: ARG002
        """A sequential raw reader checked at its end: the bytes as stored, whatever
        ``compression_type`` asks (the digest is of the stored bytes; readers decode)."""
        return HashingReader(FileSystems.open(self.location, compression_type=RAW),
                             self.label, self.sha256)

    def read(self) -> bytes:
        """The whole file, checked before it is returned."""
        with self.open() as handle:
            return handle.read()


Release = PinnedFiles | str  # a verified release's files, or a plain directory


def read_file(release: Release, name: str) -> bytes:
    """The whole of the release-relative ``name``: checked when ``release`` is pinned."""
    if isinstance(release, PinnedFiles):
        return release.read(name)
    with FileSystems.open(FileSystems.join(release, *name.split("/")),
                          compression_type=RAW) as handle:
        return handle.read()


def open_file(release: Release, name: str) -> Any:
    """A binary reader of the release-relative ``name``: checked at its end when
    ``release`` is pinned (``HashingReader``)."""
    if isinstance(release, PinnedFiles):
        return release.open(name)
    return FileSystems.open(FileSystems.join(release, *name.split("/")), compression_type=RAW)


def bounded_lines(handle: Any, max_line_bytes: int,
                  too_long: Callable[[int], Exception]) -> Iterator[bytes]:
    """The lines of a binary file (anything with ``readline(size)``: a Beam file, a hashing
    reader), each read with ``readline(max_line_bytes + 1)``, so that memory holds one line
    of at most ``max_line_bytes`` whatever the file's size; a longer line raises
    ``too_long(its line number)``."""
    number = 0
    while line := handle.readline(max_line_bytes + 1):
        number += 1
        if len(line) > max_line_bytes:
            raise too_long(number)
        yield line


@contextmanager
def seekable_file(release: Release, name: str) -> Iterator[Any]:
    """A seekable binary file of the release-relative ``name``; when ``release`` is pinned, a
    copy checked whole before it is handed over (``PinnedFiles.seekable``)."""
    if isinstance(release, PinnedFiles):
        with release.seekable(name) as handle:
            yield handle
    else:
        with FileSystems.open(FileSystems.join(release, *name.split("/")),
                              compression_type=RAW) as handle:
            yield handle


def release_path(release: Release) -> str:
    """The directory of ``release``."""
    return release.path if isinstance(release, PinnedFiles) else release


class HashingReader:
    """A binary, sequential, read-only file that hashes what it reads and compares the
    digest with ``expected`` at the end of the file (``ChangedSinceVerified`` when it
    differs). ``close`` without an error in flight reads and checks the rest first."""

    def __init__(self, handle: Any, label: str, expected: str):
        self._handle, self._label, self._expected = handle, label, expected
        self._digest = hashlib.sha256()
        self._size = 0
        self._checked = False

    def _seen(self, data: bytes, asked: int | None) -> bytes:
        self._digest.update(data)
        self._size += len(data)
        if not data and asked != 0:
            self._check()
        return data

    def _check(self) -> None:
        if self._checked:
            return
        self._checked = True
        actual = self._digest.hexdigest()
        if actual != self._expected:
            raise ChangedSinceVerified(
                f"{self._label} changed after the release was verified: its sha256 is now "
                f"{actual} ({self._size} bytes), the manifest says {self._expected}; nothing "
                "was published: python -m pipelines.release verify names every damaged file")

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (all that is left when negative)."""
        if size is None or size < 0:
            chunks = [self._seen(chunk, CHUNK)
                      for chunk in iter(lambda: self._handle.read(CHUNK), b"")]
            self._seen(b"", None)
            return b"".join(chunks)
        return self._seen(self._handle.read(size), size)

    def readline(self, size: int = -1) -> bytes:
        """One line, its ``\\n`` included (``b""`` at the end of the file)."""
        line = self._handle.readline(size) if size >= 0 else self._handle.readline()
        return self._seen(line, size if size >= 0 else None)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self, check: bool = True) -> None:
        """Close the file; with ``check`` read what is left and compare the digest."""
        try:
            if check and not self._checked:
                for chunk in iter(lambda: self._handle.read(CHUNK), b""):
                    self._seen(chunk, CHUNK)
                self._check()
        finally:
            self._handle.close()

    def __enter__(self) -> HashingReader:
        return self

    def __exit__(self, kind: Any, *_: Any) -> None:
        self.close(check=kind is None)
