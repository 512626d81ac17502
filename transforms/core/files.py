"""Beam's ``FileSystems`` for commands that may never start a job: local paths without Beam.

Importing any part of Apache Beam imports all of it (about a second of CPU), which commands
such as ``annotate next`` and ``annotate simulate`` pay for nothing: they only read and write
local files. :class:`FileSystems` here has the methods of
``apache_beam.io.filesystems.FileSystems`` this project calls, with the same arguments and
results. A local path (no ``scheme://``, as Beam decides it) is served the way Beam's
``LocalFileSystem`` serves it, by the ``os`` module; any other path, and a local ``open`` or
``create`` that asks for (de)compression, goes to Beam's ``FileSystems``, imported then.
``CompressionTypes`` is Beam's (the same values, the same detection by extension).
``match`` follows Beam's rules exactly: a pattern ending in ``/`` gets ``*``, a pattern
without a wildcard matches the path itself when it exists, else the directory before the
first wildcard is walked and its files kept when Beam's regular expression for the pattern
(``*`` within a component, ``**`` across) matches; a failure is Beam's ``BeamIOError``.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from typing import IO, Any

_URI_SCHEME = re.compile(r"(?P<scheme>[a-zA-Z][-a-zA-Z0-9+.]*)://.*")  # Beam's pattern
_BEFORE_GLOB = re.compile(r"^[^[*?]*")


class CompressionTypes:
    """Beam's ``apache_beam.io.filesystem.CompressionTypes``: the same values, which Beam's
    own functions accept."""

    AUTO = "auto"  # by the file name's extension (the default of open and create)
    BZIP2 = "bzip2"
    DEFLATE = "deflate"
    ZSTD = "zstd"
    GZIP = "gzip"
    LZMA = "lzma"
    UNCOMPRESSED = "uncompressed"
    _BY_SUFFIX = {".bz2": BZIP2, ".deflate": DEFLATE, ".gz": GZIP, ".zst": ZSTD,
                  ".zstd": ZSTD, ".xz": LZMA, ".lzma": LZMA}

    @classmethod
    def is_valid_compression_type(cls, compression_type: str) -> bool:
        return compression_type in {cls.AUTO, cls.BZIP2, cls.DEFLATE, cls.GZIP, cls.ZSTD,
                                    cls.LZMA, cls.UNCOMPRESSED}

    @classmethod
    def detect_compression_type(cls, file_path: str) -> str:
        """The compression of a file by its suffix, in any case; else ``UNCOMPRESSED``."""
        lowered = file_path.lower()
        return next((kind for suffix, kind in cls._BY_SUFFIX.items()
                     if lowered.endswith(suffix)), cls.UNCOMPRESSED)


def is_local_path(path: str) -> bool:
    """Whether Beam serves ``path`` from its local filesystem (no ``scheme://``)."""
    return _URI_SCHEME.match(path.strip()) is None


def beam_filesystems() -> Any:
    """Beam's own ``FileSystems`` (importing Beam the first time)."""
    from apache_beam.io.filesystems import FileSystems as BeamFileSystems

    return BeamFileSystems


class FileMetadata:
    """A matched file, with the attributes of Beam's ``FileMetadata``."""

    __slots__ = ("path", "size_in_bytes", "last_updated_in_seconds")

    def __init__(self, path: str, size_in_bytes: int, last_updated_in_seconds: float = 0.0):
        self.path = path
        self.size_in_bytes = size_in_bytes
        self.last_updated_in_seconds = last_updated_in_seconds

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, FileMetadata) and self.path == other.path
                and self.size_in_bytes == other.size_in_bytes
                and self.last_updated_in_seconds == other.last_updated_in_seconds)

    def __hash__(self) -> int:
        return hash((self.path, self.size_in_bytes, self.last_updated_in_seconds))

    def __repr__(self) -> str:
        return f"FileMetadata({self.path}, {self.size_in_bytes}, {self.last_updated_in_seconds})"


class MatchResult:
    """The files one pattern matched (``metadata_list``), as Beam's ``MatchResult``."""

    __slots__ = ("pattern", "metadata_list")

    def __init__(self, pattern: str, metadata_list: list[FileMetadata]) -> None:
        self.pattern = pattern
        self.metadata_list = metadata_list


def translate_pattern(pattern: str) -> str:
    """Beam's ``FileSystem.translate_pattern``: a glob as a regular expression (``*`` does
    not cross ``/``, ``**`` does; ``[...]`` as fnmatch; no way to quote)."""
    i, n, res = 0, len(pattern), ""
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            if i < n and pattern[i] == "*":
                res += ".*"
                i += 1
            else:
                res += r"[^/\\]*"
        elif c == "?":
            res += "."
        elif c == "[":
            j = i
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                res += r"\["
            else:
                stuff = pattern[i:j].replace("\\", "\\\\")
                i = j + 1
                if stuff[0] == "!":
                    stuff = "^" + stuff[1:]
                elif stuff[0] == "^":
                    stuff = "\\" + stuff
                res = f"{res}[{stuff}]"
        else:
            res += re.escape(c)
    return r"(?ms)" + res + r"\Z"


def _metadata(path: str) -> FileMetadata:
    return FileMetadata(path, os.path.getsize(path), os.path.getmtime(path))


def _walk(directory: str) -> Iterator[FileMetadata]:
    """Beam's ``LocalFileSystem._list``: every file below ``directory``, recursively; a file
    gone while listing is skipped."""
    if not os.path.exists(directory):
        return
    for dirpath, _, files in os.walk(directory):
        for filename in files:
            path = os.path.join(dirpath, filename)
            try:
                yield _metadata(path)
            except OSError:
                pass


def _match_local(pattern: str, limit: int | None) -> MatchResult:
    if pattern.endswith(("/", "\\")):
        pattern += "*"
    prefix = _BEFORE_GLOB.match(pattern).group(0)
    if prefix == pattern:
        found = [_metadata(pattern)] if os.path.exists(pattern) else []
    else:  # the directory of the text before the first wildcard, walked whole
        found = _walk(os.path.dirname(prefix))
    matches = re.compile(translate_pattern(pattern)).match
    kept: list[FileMetadata] = []
    for metadata in found:
        if limit is not None and len(kept) >= limit:
            break
        if matches(metadata.path):
            kept.append(metadata)
    return MatchResult(pattern, kept)


def _raw_local(path: str, compression_type: str) -> bool:
    """Whether Beam would open ``path`` as a plain local file: local, and uncompressed (as
    asked, or by its extension with ``AUTO``)."""
    if compression_type == CompressionTypes.AUTO:
        compression_type = CompressionTypes.detect_compression_type(path)
    return is_local_path(path) and compression_type == CompressionTypes.UNCOMPRESSED


class FileSystems:
    """``apache_beam.io.filesystems.FileSystems`` with local paths served without Beam."""

    @staticmethod
    def join(basepath: str, *paths: str) -> str:
        if is_local_path(basepath):
            return os.path.join(basepath, *paths)
        return beam_filesystems().join(basepath, *paths)

    @staticmethod
    def split(path: str) -> tuple[str, str]:
        if is_local_path(path):
            return os.path.split(os.path.abspath(path))
        return beam_filesystems().split(path)

    @staticmethod
    def exists(path: str) -> bool:
        if is_local_path(path):
            return os.path.exists(path)
        return beam_filesystems().exists(path)

    @staticmethod
    def match(patterns: list[str], limits: list[int | None] | None = None) -> list[Any]:
        if not patterns:
            return []
        if not is_local_path(patterns[0]):
            beams = beam_filesystems()
            return beams.match(patterns) if limits is None else beams.match(patterns, limits)
        results, failed = [], {}
        for pattern, limit in zip(patterns, limits or [None] * len(patterns), strict=True):
            try:
                results.append(_match_local(pattern, limit))
            except Exception as error:  # noqa: BLE001 - reported together, as Beam does
                failed[pattern] = error
        if failed:
            from apache_beam.io.filesystem import BeamIOError

            raise BeamIOError("Match operation failed", failed)
        return results

    @staticmethod
    def open(path: str, mime_type: str = "application/octet-stream",
             compression_type: str = CompressionTypes.AUTO) -> IO[bytes]:
        if _raw_local(path, compression_type):
            return io.open(path, "rb")  # noqa: UP020 - as Beam's LocalFileSystem opens it
        return beam_filesystems().open(path, mime_type, compression_type)

    @staticmethod
    def create(path: str, mime_type: str = "application/octet-stream",
               compression_type: str = CompressionTypes.AUTO) -> IO[bytes]:
        if _raw_local(path, compression_type):
            if os.path.dirname(path):
                os.makedirs(os.path.dirname(path), exist_ok=True)
            return io.open(path, "wb")  # noqa: UP020
        return beam_filesystems().create(path, mime_type, compression_type)

    @staticmethod
    def delete(paths: list[str]) -> None:
        beam_filesystems().delete(paths)

    @staticmethod
    def rename(sources: list[str], destinations: list[str]) -> None:
        beam_filesystems().rename(sources, destinations)

    @staticmethod
    def get_filesystem(path: str) -> Any:
        return beam_filesystems().get_filesystem(path)
