"""Where a release goes: ``<root>/<dataset>/<version>/``, its staging directory and ``LATEST``.

Dataset and version names become path components, so they are checked before any work
(``check_name``): 1 to 64 characters of ``[0-9A-Za-z._-]`` starting with a letter or digit,
no ``..``, and not a name the layout reserves (``LATEST``, ``.staging``, ``_SUCCESS``, in any
case). The output root is checked too (``check_release_root``): it must not be a file, nor a
directory holding anything other than dataset directories.
"""

from __future__ import annotations

import os
import re
import uuid
from dataclasses import dataclass

from apache_beam.io.filesystems import FileSystems

from transforms.release.provenance import code_version
from transforms.release.storage import is_local

MANIFEST = "dataset_info.json"
SUCCESS_MARKER = "_SUCCESS"
LATEST = "LATEST"
STAGING = ".staging"
RESERVED_NAMES = frozenset(n.lower() for n in (LATEST, STAGING, SUCCESS_MARKER))
NAME_PATTERN = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,63}")


class ReleaseExistsError(RuntimeError):
    """The requested version exists and ``--overwrite`` was not given."""


class InvalidReleaseName(ValueError):
    """A dataset or version name that is not a safe single path component."""


class InvalidReleaseRoot(ValueError):
    """``--output`` is a file, or a directory that is not a release root."""


def check_name(name: str, what: str = "version") -> str:
    """Return ``name`` when it is a valid dataset or version name, else raise
    ``InvalidReleaseName`` saying why."""
    rule = ("1-64 characters of letters, digits, '.', '_' and '-', starting with a letter or "
            "digit")
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise InvalidReleaseName(f"invalid {what} {name!r}: use {rule}")
    if ".." in name:
        raise InvalidReleaseName(f"invalid {what} {name!r}: '..' is not allowed")
    if name.lower() in RESERVED_NAMES:
        raise InvalidReleaseName(f"invalid {what} {name!r}: reserved by the release layout")
    return name


def check_release_root(root: str, dataset: str) -> None:
    """Fail before any work when ``root`` cannot hold ``<root>/<dataset>/<version>``.

    A local release root is a missing or empty directory, or one whose visible entries (names
    not starting with ``.``) are all dataset directories: directories whose visible entries
    are version directories or ``LATEST`` files. Object-store roots have no directories and
    are not checked."""
    if not is_local(root):
        return
    if os.path.exists(root) and not os.path.isdir(root):
        raise InvalidReleaseRoot(f"--output {root!r} is a file, not a release root directory")
    dataset_dir = os.path.join(root, dataset)
    if os.path.exists(dataset_dir) and not os.path.isdir(dataset_dir):
        raise InvalidReleaseRoot(f"{dataset_dir!r} is a file, not a dataset directory")
    if not os.path.isdir(root):
        return
    for entry in _visible(root):
        path = os.path.join(root, entry)
        stray = [] if os.path.isdir(path) else [entry]
        if not stray:
            stray = [f"{entry}/{name}" for name in _visible(path)
                     if not (os.path.isdir(os.path.join(path, name)) or name.startswith(LATEST))]
        if stray:
            raise InvalidReleaseRoot(
                f"--output {root!r} is not a release root (it holds {stray[0]!r}); a release "
                "root holds only <dataset>/<version>/ directories and LATEST files: choose an "
                "empty or new directory")


def _visible(directory: str) -> list[str]:
    return sorted(name for name in os.listdir(directory) if not name.startswith("."))


@dataclass(frozen=True)
class ReleaseTarget:
    """Where a release goes: ``<root>/<dataset>/<version>`` and its staging directory."""

    root: str
    dataset: str
    version: str
    run_id: str
    code: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        check_name(self.dataset, "dataset name")
        check_name(self.version, "version")

    @classmethod
    def create(cls, root: str, dataset: str, version: str) -> ReleaseTarget:
        """A new run's target; the names and the root are checked here (``InvalidReleaseName``,
        ``InvalidReleaseRoot``), before any work. The code version (package, git commit) is
        read here, at launch, not on the worker that publishes (no checkout on Dataflow)."""
        check_name(dataset, "dataset name")
        check_name(version, "version")
        check_release_root(root, dataset)
        return cls(root, dataset, version, uuid.uuid4().hex[:12],
                   tuple(sorted(code_version().items())))

    @property
    def dataset_dir(self) -> str:
        return FileSystems.join(self.root, self.dataset)

    @property
    def final_dir(self) -> str:
        return FileSystems.join(self.root, self.dataset, self.version)

    @property
    def staging_root(self) -> str:
        return FileSystems.join(self.root, self.dataset, STAGING)

    @property
    def staging_dir(self) -> str:
        return FileSystems.join(self.staging_root, f"{self.version}-{self.run_id}")

    def exists(self) -> bool:
        return FileSystems.exists(FileSystems.join(self.final_dir, MANIFEST)) or (
            is_local(self.final_dir) and os.path.exists(self.final_dir)
        )

    def check_writable(self, overwrite: bool) -> None:
        """Fail before any work when the version exists and may not be replaced."""
        if self.exists() and not overwrite:
            raise ReleaseExistsError(
                f"release {self.final_dir} already exists; choose another --version "
                "or pass --overwrite to replace it"
            )

    def check_inside(self, path: str, parent: str | None = None) -> None:
        """Refuse to remove or replace ``path`` unless it resolves strictly inside ``parent``
        (default ``<root>/<dataset>``) and is not a symbolic link."""
        if not is_local(path):
            return
        base = os.path.realpath(parent or self.dataset_dir)
        resolved = os.path.realpath(path)
        if (os.path.islink(path) or resolved == base
                or os.path.commonpath([base, resolved]) != base):
            raise InvalidReleaseRoot(f"refusing to modify {path!r}: it resolves to "
                                     f"{resolved!r}, outside {base!r}")


def latest_path(root: str, dataset: str) -> str:
    return FileSystems.join(root, dataset, LATEST)
