"""Where a release goes: ``<root>/<dataset>/<version>/``, its staging directory and ``LATEST``.

Dataset and version names become path components, so they are checked before any work
(``check_name``): 1 to 64 characters of ``[0-9A-Za-z._-]`` starting with a letter or digit,
no ``..``, and not a name the layout reserves (``LATEST``, ``README.md``: the dataset
directory's card, ``.staging``, ``_SUCCESS``, in any case). The output root is checked too
(``check_release_root``): it must not be a file, nor a directory holding anything other than
dataset directories, and neither the dataset directory nor its ``.staging`` may be a symbolic
link.

Nothing below the root is ever followed through a link: every path a run replaces or removes
is a direct entry of the directory that owns it (``check_inside``, a lexical check plus
``lstat`` of each directory between it and the root, never ``realpath``), removals go through
directory descriptors opened with ``O_NOFOLLOW`` (``remove_inside``), and an existing version
is replaced only when it carries our manifest as a regular file.
"""

from __future__ import annotations

import os
import shutil
import stat
import uuid
from dataclasses import dataclass

from filters.text.names import name_problem
from transforms.core.files import FileSystems
from transforms.release.provenance import code_version
from transforms.release.storage import is_local

MANIFEST = "dataset_info.json"
SUCCESS_MARKER = "_SUCCESS"
LATEST = "LATEST"
DATASET_CARD = "README.md"  # the dataset directory's card (``dataset_card``), and a version's
STAGING = ".staging"
RESERVED_NAMES = frozenset(n.lower() for n in (LATEST, DATASET_CARD, STAGING, SUCCESS_MARKER))


class ReleaseExistsError(RuntimeError):
    """The requested version exists and ``--overwrite`` was not given."""


class InvalidReleaseName(ValueError):
    """A dataset or version name that is not a safe single path component."""


class InvalidReleaseRoot(ValueError):
    """``--output`` is a file, or a directory that is not a release root."""


def check_name(name: str, what: str = "version") -> str:
    """Return ``name`` when it is a valid dataset or version name, else raise
    ``InvalidReleaseName`` saying why."""
    problem = name_problem(name, RESERVED_NAMES)
    if problem:
        raise InvalidReleaseName(f"invalid {what} {name!r}: {problem}")
    return name


def check_release_root(root: str, dataset: str) -> None:
    """Fail before any work when ``root`` cannot hold ``<root>/<dataset>/<version>``.

    A local release root is a missing or empty directory, or one whose visible entries (names
    not starting with ``.``) are all dataset directories: directories whose visible entries
    are version directories, ``LATEST`` files or its card (``README.md``); the dataset
    directory and its ``.staging`` are not symbolic links. Object-store roots have no
    directories and are not checked."""
    if not is_local(root):
        return
    if os.path.exists(root) and not os.path.isdir(root):
        raise InvalidReleaseRoot(f"--output {root!r} is a file, not a release root directory")
    dataset_dir = os.path.join(root, dataset)
    for directory in (dataset_dir, os.path.join(dataset_dir, STAGING)):
        if os.path.islink(directory):
            raise InvalidReleaseRoot(_link_message(directory))
    if os.path.exists(dataset_dir) and not os.path.isdir(dataset_dir):
        raise InvalidReleaseRoot(f"{dataset_dir!r} is a file, not a dataset directory")
    if not os.path.isdir(root):
        return
    for entry in _visible(root):
        path = os.path.join(root, entry)
        stray = [] if os.path.isdir(path) else [entry]
        if not stray:
            stray = [f"{entry}/{name}" for name in _visible(path)
                     if not (os.path.isdir(os.path.join(path, name)) or name.startswith(LATEST)
                             or name == DATASET_CARD)]
        if stray:
            raise InvalidReleaseRoot(
                f"--output {root!r} is not a release root (it holds {stray[0]!r}); a release "
                "root holds only <dataset>/<version>/ directories, LATEST files and cards: "
                "choose an empty or new directory")


def _link_message(path: str) -> str:
    return (f"{path!r} is a symbolic link: nothing below --output is followed through a link "
            "(staging cleanup and --overwrite would modify what it points to); replace the "
            "link with a directory, or point --output at the real location")


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
        """Fail before any work when the version exists and may not be replaced: without
        ``overwrite`` (``ReleaseExistsError``), or when what is there is not one of our releases
        (``InvalidReleaseRoot``)."""
        if not self.exists():
            return
        if not overwrite:
            raise ReleaseExistsError(
                f"release {self.final_dir} already exists; choose another --version "
                "or pass --overwrite to replace it"
            )
        self.check_replaceable()

    def check_replaceable(self) -> None:
        """Refuse to replace ``final_dir`` unless it is a real directory of the dataset
        directory holding our manifest as a regular file (never through a link)."""
        if not is_local(self.final_dir):
            return
        self.check_inside(self.final_dir)
        try:
            manifest = os.lstat(os.path.join(self.final_dir, MANIFEST))
        except OSError:
            manifest = None
        if manifest is None or not stat.S_ISREG(manifest.st_mode):
            raise InvalidReleaseRoot(
                f"refusing to replace {self.final_dir!r}: it is not a release (no regular "
                f"{MANIFEST}); move it away or choose another --version")

    def check_output_writable(self) -> None:
        """Fail before any work when a local output cannot be written (read-only, no
        permission): the nearest existing directory on the way to ``.staging`` is checked."""
        if not is_local(self.root):
            return
        directory = self.staging_root
        while not os.path.lexists(directory) and os.path.dirname(directory) != directory:
            directory = os.path.dirname(directory)
        directory = directory or os.curdir  # a relative root none of whose parts exists yet
        if not os.access(directory, os.W_OK | os.X_OK):
            raise unwritable_output(self.root, f"{directory!r} does not allow writing")

    def check_inside(self, path: str, parent: str | None = None,
                     allow_link: bool = False) -> None:
        """Refuse to remove or replace ``path`` unless it is a direct entry of ``parent``
        (default ``<root>/<dataset>``) and neither it (unless ``allow_link``: the link itself
        is removed, never its target) nor any directory from ``parent`` up to the root is a
        symbolic link. Lexical and ``lstat`` checks only: nothing is resolved."""
        if not is_local(path):
            return
        base = os.path.normpath(parent or self.dataset_dir)
        name = os.path.basename(path)
        if (name in ("", ".", "..") or os.path.normpath(path) != os.path.join(base, name)
                or os.path.normpath(os.path.dirname(path)) != base):
            raise InvalidReleaseRoot(f"refusing to modify {path!r}: it is not an entry of "
                                     f"{base!r} (it may lead outside it)")
        self._check_no_links(base)
        if not allow_link and os.path.islink(path):
            raise InvalidReleaseRoot(f"refusing to modify {path!r}: it is a symbolic link, "
                                     f"never followed (it may lead outside {base!r})")

    def check_no_links(self) -> None:
        """Refuse a local dataset directory or ``.staging`` that is a symbolic link."""
        if is_local(self.root):
            self._check_no_links(os.path.normpath(self.staging_root))

    def _check_no_links(self, directory: str) -> None:
        """``directory`` lies lexically below the root, and no directory from the root's
        child down to it is a symbolic link."""
        root = os.path.normpath(self.root)
        relative = os.path.relpath(directory, root)
        if relative == "." or relative == ".." or relative.startswith(".." + os.sep):
            raise InvalidReleaseRoot(f"refusing to modify anything in {directory!r}: it is "
                                     f"not below the release root {root!r}")
        path = root
        for part in relative.split(os.sep):
            path = os.path.join(path, part)
            if os.path.islink(path):
                raise InvalidReleaseRoot(_link_message(path))

    def remove_inside(self, path: str, parent: str | None = None,
                      ignore_errors: bool = False) -> None:
        """Remove the entry ``path`` of ``parent`` (default ``<root>/<dataset>``), a file, a
        directory tree or a link (the link, never its target), after ``check_inside``. Every
        directory below the root is opened with ``O_NOFOLLOW``, so a directory swapped for a
        link after the check is never followed. A missing entry is not an error; with
        ``ignore_errors`` neither is a tree that cannot be removed completely. Local paths
        only."""
        if not is_local(path):
            raise ValueError(f"remove_inside takes a local path, not {path!r}")
        self.check_inside(path, parent, allow_link=True)
        base = os.path.normpath(parent or self.dataset_dir)
        name = os.path.basename(path)
        descriptor = self._open_below_root(base)
        if descriptor is None:
            return
        try:
            try:
                mode = os.lstat(name, dir_fd=descriptor).st_mode
            except FileNotFoundError:
                return
            if stat.S_ISDIR(mode):
                shutil.rmtree(name, ignore_errors=ignore_errors, dir_fd=descriptor)
            else:
                os.unlink(name, dir_fd=descriptor)
        except OSError:
            if not ignore_errors:
                raise
        finally:
            os.close(descriptor)

    def _open_below_root(self, directory: str) -> int | None:
        """A descriptor of ``directory``, each component below the root opened with
        ``O_NOFOLLOW``; None when it does not exist."""
        root = os.path.normpath(self.root)
        flags = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
        try:
            descriptor = os.open(root, flags)
        except FileNotFoundError:
            return None
        current = root
        for part in os.path.relpath(directory, root).split(os.sep):
            current = os.path.join(current, part)
            try:
                child = os.open(part, flags | os.O_NOFOLLOW, dir_fd=descriptor)
            except FileNotFoundError:
                os.close(descriptor)
                return None
            except OSError as error:
                os.close(descriptor)
                raise InvalidReleaseRoot(_link_message(current)) from error
            os.close(descriptor)
            descriptor = child
        return descriptor


def unwritable_output(root: str, why: str) -> InvalidReleaseRoot:
    """The usage error of an output that cannot be written."""
    return InvalidReleaseRoot(f"--output {root!r} is not writable: {why}; choose a writable "
                              "directory")


def latest_path(root: str, dataset: str) -> str:
    return FileSystems.join(root, dataset, LATEST)
