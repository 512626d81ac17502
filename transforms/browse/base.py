"""What every part of the release browser shares: a release opened for reading, an index
entry, and the renderer interface each dataset implements.

The browser reads a release once, streaming: the site writer (``site``) iterates a
renderer's ``entries`` over the rows of the release's main tables, taps every row for the
length histograms of the overview (``Renderer.measures``) and writes index pages, detail
pages and the filter's data in pages of a fixed size. Nothing here imports Beam.

A release may come from anywhere, so it is read only through ``open_member``: a
release-relative name of plain components, each directory and the file opened relative to
the one before without following a link, and only a regular file is read. ``check_members``
refuses, before any work, a release holding a symbolic link (wherever it points) or anything
but directories and regular files: a link in a downloaded release could copy a local file
into the site.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Protocol

import pyarrow.parquet as pq

from filters.text import safe_json
from transforms.release import MANIFEST, DamagedReleaseError
from transforms.release.tables import Table, main_config, release_tables

BATCH_ROWS = 256
STATS = "stats.json"
MAX_JSON_BYTES = 64 << 20  # the manifest and stats.json are read whole, up to this size
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK  # a FIFO must not block the open


def _unsafe(release: str, name: str, what: str) -> DamagedReleaseError:
    return DamagedReleaseError(f"release {release} is unsafe to read: {name} {what}; a "
                               "release holds only regular files and directories")


def _parts(release: str, name: str) -> list[str]:
    parts = name.split("/")
    if not name or any(p in ("", ".", "..") or "\0" in p for p in parts):
        raise _unsafe(release, repr(name), "is not a release-relative path of plain names")
    return parts


def _refused(release: str, name: str, error: OSError) -> DamagedReleaseError:
    """Why ``open`` of a member failed: a link (``ELOOP``, or ``ENOTDIR`` on a linked
    directory), else the error itself."""
    if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return _unsafe(release, name, "is a symbolic link, or passes through one")
    return DamagedReleaseError(f"release {release}: cannot read {name}: {error.strerror}")


def open_member(release: str, name: str) -> BinaryIO:
    """The release-relative file ``name`` of ``release``, opened for binary reading without
    following a link anywhere below ``release``; ``DamagedReleaseError`` for a link, a
    name that is not plain components, or anything but a regular file."""
    parts = _parts(release, name)
    folder = os.open(release, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            inner = os.open(part, _DIRECTORY, dir_fd=folder)
            os.close(folder)
            folder = inner
        handle = os.open(parts[-1], _FILE, dir_fd=folder)
    except OSError as error:
        raise _refused(release, name, error) from error
    finally:
        os.close(folder)
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        os.close(handle)
        raise _unsafe(release, name, "is not a regular file")
    os.set_blocking(handle, True)
    return os.fdopen(handle, "rb")


def read_member_json(release: str, name: str) -> object:
    """A JSON file of the release (at most ``MAX_JSON_BYTES``), read through ``open_member``
    with ``safe_json`` (a nesting bomb is a ``ValueError``)."""
    with open_member(release, name) as handle:
        data = handle.read(MAX_JSON_BYTES + 1)
    if len(data) > MAX_JSON_BYTES:
        raise DamagedReleaseError(f"release {release}: {name} is larger than "
                                  f"{MAX_JSON_BYTES:,} bytes")
    return safe_json.loads(data)


def check_members(release: str) -> None:
    """Raise ``DamagedReleaseError`` naming the first symbolic link, or entry that is neither
    a directory nor a regular file, anywhere below ``release`` (links are not followed)."""
    pending = [""]
    while pending:
        prefix = pending.pop()
        with os.scandir(os.path.join(release, prefix) if prefix else release) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                name = f"{prefix}{entry.name}"
                if entry.is_symlink():
                    raise _unsafe(release, name, "is a symbolic link")
                if entry.is_dir(follow_symlinks=False):
                    pending.append(name + "/")
                elif not entry.is_file(follow_symlinks=False):
                    raise _unsafe(release, name, "is not a regular file")


@dataclass(frozen=True)
class Entry:
    """One example as the site shows it.

    ``cells`` are the index row's HTML cells (already escaped), one per ``Renderer.columns``;
    ``text`` is the plain text the client-side filter searches; ``reason`` is the label the
    filter offers besides the split (a drop reason, an answer type such as ``short``,
    ``yes/no``, ``none``); ``detail`` is the escaped HTML of the example's own section."""

    key: str
    split: str
    cells: tuple[str, ...]
    text: str
    reason: str = ""
    detail: str = ""


@dataclass
class ReleaseView:
    """A published release opened for reading: its directory, manifest, stats and tables."""

    path: str
    manifest: dict[str, Any]
    stats: dict[str, Any]
    tables: list[Table] = field(default_factory=list)

    @classmethod
    def open(cls, path: str) -> ReleaseView:
        """The release at ``path``, its manifest and stats read through ``open_member``."""
        manifest = read_member_json(path, MANIFEST)
        stats = read_member_json(path, STATS)
        if not isinstance(manifest, dict) or not isinstance(stats, dict):
            raise DamagedReleaseError(f"release {path}: {MANIFEST} and {STATS} must be "
                                      "JSON objects")
        tables = release_tables(path, manifest["files"], main=main_config(manifest))
        return cls(path, manifest, stats, tables)

    @property
    def dataset(self) -> str:
        return self.manifest["dataset"]

    def table(self, directory: str) -> Table | None:
        return next((t for t in self.tables if t.directory == directory), None)

    def main_tables(self) -> list[Table]:
        """The tables of the config ``load_dataset(dir)`` loads, in split order."""
        main = self.tables[0].config if self.tables else None
        return [t for t in self.tables if t.config == main]

    def rows(self, table: Table, columns: list[str] | None = None) -> Iterator[dict[str, Any]]:
        """The rows of a table, streamed in record batches (bounded memory)."""
        for name in table.files:
            with open_member(self.path, name) as handle:
                parquet = pq.ParquetFile(handle)
                for batch in parquet.iter_batches(batch_size=BATCH_ROWS, columns=columns):
                    yield from batch.to_pylist()


class Renderer(Protocol):
    """How one kind of release is shown. Implementations live in ``renderers/``."""

    title: str
    columns: tuple[str, ...]
    details_per_page: int
    paper_means: dict[str, float]

    def entries(self, release: ReleaseView, table: Table,
                rows: Iterator[dict[str, Any]]) -> Iterator[Entry]:
        """Entries of one table's rows, in order (a renderer may group consecutive rows,
        as NLQuAD groups an article's questions)."""

    def measures(self, row: dict[str, Any]) -> dict[str, int]:
        """Lengths of one row for the overview's histograms, e.g. ``{"question words": 9}``."""
