"""Which published version a path means: the one place ``LATEST`` is read for a reader.

``resolve_release`` takes a version directory (it holds ``dataset_info.json``), a dataset
directory (it holds ``LATEST``: the version it names) or, given the release root and the
dataset, ``auto`` (the version ``<output>/<dataset>/LATEST`` names, ``None`` without one),
on any Beam filesystem (local or ``gs://``). ``LATEST`` is input, not trusted:
``latest_version`` accepts only a plain version name (``check_name``: no ``/``, no ``..``,
not absolute), read from a regular local file of at most ``MAX_LATEST_BYTES`` without
following links or blocking (a FIFO is refused, never opened), and the version it names must
be a real sibling directory holding a manifest. Anything else is ``InvalidLatestError``,
which every command reports as a usage error (exit 2); a path that is no release at all is
``NotAReleaseError``, naming the path.

``version_order`` is how versions are ordered (``LATEST`` never moves to a lower one):
piece by piece, runs of digits as numbers and the rest as text, so ``1.10.0`` comes after
``1.9.0`` and ``2026.11.23`` after ``2026.9.30``. As in Semantic Versioning a pre-release
comes before its release (``1.0.0-rc.1`` < ``1.0.0-rc.2`` < ``1.0.0``); any other version
that extends another (``1.0.0.1``, ``1.0.0_fix``) comes after it.
"""

from __future__ import annotations

import os
import re
import stat
from typing import overload

from transforms.core.files import FileSystems
from transforms.release.storage import RAW, is_local
from transforms.release.target import LATEST, MANIFEST, InvalidReleaseName, check_name

__all__ = ["AUTO", "MAX_LATEST_BYTES", "InvalidLatestError", "NotAReleaseError",
           "latest_version", "resolve_release", "version_order"]

AUTO = "auto"  # the latest published version of the dataset being built, if any
MAX_LATEST_BYTES = 1024  # a version name is at most 64 characters
_PIECES = re.compile(r"[0-9]+|[^0-9]+")


_PRE_RELEASE, _END, _DIGITS, _TEXT = range(4)


def version_order(version: str) -> tuple[tuple[int, int, str], ...]:
    """The sort key of a version name (see the module docstring): digits compare as numbers,
    text as text; at one place a pre-release (text from ``-``) sorts before the end of the
    name, which sorts before digits, which sort before other text."""
    pieces = tuple((_DIGITS, int(piece), "") if piece[0] in "0123456789"
                   else (_PRE_RELEASE if piece[0] == "-" else _TEXT, 0, piece)
                   for piece in _PIECES.findall(version))
    return (*pieces, (_END, 0, ""))


class NotAReleaseError(ValueError):
    """The path is not a published release (no ``dataset_info.json``, no ``LATEST``)."""


class InvalidLatestError(NotAReleaseError):
    """A ``LATEST`` that does not name a sibling version: not a valid version name
    (``check_name``), a link, not a regular file of at most ``MAX_LATEST_BYTES``, or naming
    a version directory that is not there."""

    def __init__(self, message: str, named: str = "") -> None:
        super().__init__(message)
        self.named = named  # what LATEST says, as text


@overload
def resolve_release(path: str, *, require_manifest: bool = True) -> str: ...


@overload
def resolve_release(path: str, *, output: str, dataset: str,
                    require_manifest: bool = True) -> str | None: ...


def resolve_release(path: str, *, output: str | None = None, dataset: str | None = None,
                    require_manifest: bool = True) -> str | None:
    """The version directory ``path`` means.

    * a version directory (holds ``MANIFEST``): itself, without a trailing ``/``;
    * a dataset directory holding ``LATEST``: ``<path>/<the version LATEST names>``;
    * ``"auto"``, only with ``output`` and ``dataset`` (a plain name, else
      ``InvalidReleaseName``): the version ``<output>/<dataset>/LATEST`` names, or ``None``
      when there is no ``LATEST``; without them ``auto`` is an ordinary path;
    * anything else (a file, a glob, a directory without either): ``NotAReleaseError``.

    A ``LATEST`` that is no regular file, too large, not a plain version name, or naming a
    version that is not a real sibling directory holding ``MANIFEST`` raises
    ``InvalidLatestError``. ``require_manifest=False`` accepts a named sibling directory
    without a manifest (``pipelines.evaluate`` reads bare Parquet gold directories)."""
    if (output is None) != (dataset is None):
        raise TypeError("resolve_release: output and dataset are given together or not at all")
    if path == AUTO and output is not None and dataset is not None:
        dataset_dir = FileSystems.join(output, check_name(dataset, "dataset"))
        name = latest_version(dataset_dir)
        return None if name is None else _named_version(dataset_dir, name, require_manifest)
    if not path:
        raise NotAReleaseError("an empty path is not a release directory")
    root = path.rstrip("/") or path
    if FileSystems.exists(FileSystems.join(root, MANIFEST)):
        return root
    name = latest_version(root)
    if name is not None:
        return _named_version(root, name, require_manifest)
    if is_local(root) and os.path.exists(root) and not os.path.isdir(root):
        raise NotAReleaseError(f"{path} is a file, not a release directory")
    raise NotAReleaseError(f"{path} is not a release directory (no {MANIFEST}, no {LATEST})")


def _named_version(dataset_dir: str, name: str, require_manifest: bool) -> str:
    """``<dataset_dir>/<name>`` when it is a real directory (holding ``MANIFEST`` unless
    ``require_manifest`` is false), else ``InvalidLatestError``."""
    version_dir = FileSystems.join(dataset_dir, name)
    latest = FileSystems.join(dataset_dir, LATEST)
    has_manifest = FileSystems.exists(FileSystems.join(version_dir, MANIFEST))
    if not _is_directory(version_dir, has_manifest):
        raise InvalidLatestError(f"{latest}: LATEST names {name!r}, which is not a version "
                                 f"directory inside {dataset_dir}", name)
    if require_manifest and not has_manifest:
        raise InvalidLatestError(f"{latest}: LATEST names {name!r}, which is not a release "
                                 f"(no {MANIFEST})", name)
    return version_dir


def _is_directory(path: str, has_manifest: bool) -> bool:
    """A real local directory (not a link), or a remote prefix holding objects."""
    if is_local(path):
        return os.path.isdir(path) and not os.path.islink(path)
    return has_manifest or bool(FileSystems.match([path + "/*"])[0].metadata_list)


def latest_version(dataset_dir: str) -> str | None:
    """The version ``<dataset_dir>/LATEST`` names, ``None`` without a ``LATEST``.

    ``InvalidLatestError`` unless it names a sibling: a valid version name (``check_name``:
    no ``/``, no ``..``, not absolute) whose directory, when present, is a real directory
    inside ``dataset_dir``, not a link. A local ``LATEST`` must be a regular file (not a link,
    FIFO or device) of at most ``MAX_LATEST_BYTES``; it is read without following links.
    Whether the version is there is ``resolve_release``'s check (``list_releases`` shows a
    missing one)."""
    path = FileSystems.join(dataset_dir, LATEST)
    if is_local(path):
        text = _read_local_latest(path)
        if text is None:
            return None
    else:
        if not FileSystems.exists(path):
            return None
        with FileSystems.open(path, compression_type=RAW) as handle:
            text = handle.read(MAX_LATEST_BYTES + 1)
    name = text.decode("utf-8", errors="replace").strip()
    if len(text) > MAX_LATEST_BYTES:
        raise InvalidLatestError(f"{path}: LATEST is larger than {MAX_LATEST_BYTES} bytes",
                                 name[:64])
    try:
        check_name(name, "version")
    except InvalidReleaseName as error:
        raise InvalidLatestError(f"{path}: LATEST does not name a sibling version: "
                                 f"{error}", name) from None
    version_dir = FileSystems.join(dataset_dir, name)
    if is_local(version_dir) and os.path.lexists(version_dir) and (
            os.path.islink(version_dir) or not os.path.isdir(version_dir)):
        raise InvalidLatestError(f"{path}: LATEST names {name!r}, which is a link or a file, "
                                 f"not a version directory inside {dataset_dir}", name)
    return name


def _read_local_latest(path: str) -> bytes | None:
    """The first ``MAX_LATEST_BYTES + 1`` bytes of a regular file, ``None`` when absent; a
    link or special file raises ``InvalidLatestError`` before anything is opened."""
    not_regular = InvalidLatestError(f"{path}: LATEST is a link or a special file, not a "
                                     "regular file")
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            raise not_regular
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        with os.fdopen(os.open(path, flags), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped since lstat
                raise not_regular
            return handle.read(MAX_LATEST_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):  # no LATEST, or the root is a file
        return None
    except OSError as error:  # unreadable, or a link put there since lstat (ELOOP)
        raise InvalidLatestError(
            f"{path}: LATEST is unreadable: {error.strerror or error}") from None
