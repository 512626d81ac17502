"""Publish a staged release: manifest last, move into place, point ``LATEST`` at it.

Just before the manifest, ``SHA256SUMS`` (``transforms.release.checksums``) is staged, so it
moves into place with the version.

Locally the staging directory is renamed into place; object stores have no directory rename,
so files are copied with the manifest last, then ``_SUCCESS``. A failed run's staging
directory is discarded, so no half-written version is ever left behind. An overwrite keeps the
old version (renamed to ``.staging/<version>-<run id>.replaced``) until the new one is in
place; if the second rename fails it is put back, and if the process dies in between the next
run restores it (``staging.clean_abandoned``). ``LATEST`` is replaced atomically (a temporary
file and ``os.replace`` locally, one object write on object stores). An existing version is
replaced only when it carries our manifest (``ReleaseTarget.check_replaceable``), and nothing
is removed through a link (``ReleaseTarget.remove_inside``).

Just before ``LATEST``, by the same rules, the dataset directory's card (``README.md``,
``transforms.release.dataset_card``) is pointed at the version, so that
``load_dataset(<root>/<dataset>)`` loads the version ``LATEST`` names.

``LATEST`` never moves backwards: it is left naming a published version that orders after
the one being published (``resolve.version_order``; a publish of ``2`` after ``3``, or an
``--overwrite`` of an older version, leaves ``LATEST`` and the card at ``3``, with a
warning). A ``--previous auto`` build is published only while ``LATEST`` still names the
version it was built on: when another run published in between, ``LatestMovedError`` (exit
1) and nothing is published, since its rows were carried from a version that is no longer
the latest. Locally the check, the move and the ``LATEST`` update hold the dataset
directory's ``.LATEST.lock`` (``transforms.release.locks``; waited for at most
``LATEST_LOCK_WAIT`` seconds), so two publishes never interleave them.

When ``LATEST`` or the card cannot be written once the version is in place (disk full), the
release *is* published: ``LatestNotUpdatedError`` says so, and rerunning with
``--skip-existing`` repairs both (``repair_latest``). So does a version whose card's
``configs`` cannot be pointed at: then ``LATEST`` and the card are left as they were.

The move and ``LATEST`` are the point of no return (``transforms.core.interrupt``): not
started once SIGINT or SIGTERM has arrived, and completed when one arrives during them.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from apache_beam.io.filesystems import FileSystems

from transforms.core.interrupt import point_of_no_return
from transforms.release.checksums import EMPTY_SHA256, SHA256SUMS, release_sums
from transforms.release.dataset_card import DatasetCardError, card_for
from transforms.release.locks import holder_record, take_lock
from transforms.release.resolve import AUTO, InvalidLatestError, latest_version, version_order
from transforms.release.staging import (
    latest_temporary,
    recover_replaced,
    release_claim,
    remove_empty_staging_root,
    replaced_dir,
)
from transforms.release.storage import (
    JsonTooLarge,
    is_local,
    list_files,
    read_bytes,
    read_json,
    sha256_of,
    write_bytes,
)
from transforms.release.target import (
    DATASET_CARD,
    MANIFEST,
    SUCCESS_MARKER,
    ReleaseExistsError,
    ReleaseTarget,
    latest_path,
)

LATEST_LOCK = ".LATEST.lock"  # in the dataset directory, while LATEST is being moved
LATEST_LOCK_WAIT = 60.0  # seconds a publish waits for another one's LATEST update

log = logging.getLogger(__name__)
_held = threading.local()  # the dataset directories whose LATEST lock this thread holds


class LatestNotUpdatedError(RuntimeError):
    """The version was published but ``LATEST`` could not be pointed at it."""


class LatestMovedError(RuntimeError):
    """A ``--previous auto`` build whose previous version is no longer the one ``LATEST``
    names: another run published since it started; nothing was published."""


def finalize_release(target: ReleaseTarget, overwrite: bool, manifest: bytes) -> str:
    """Write the manifest (the completion marker, always last), then move into place and
    point ``<root>/<dataset>/LATEST`` at the version.

    Safe to retry: a retried step that finds this run's release already in place (same
    ``run_id`` in the published manifest) only refreshes ``LATEST``. Everything else (splits,
    stats, card) must already be in the staging directory.
    """
    target.check_no_links()
    if not _is_staged(target) and published_run_id(target) == target.run_id:
        _point_latest(target)
        return target.final_dir
    write_bytes(FileSystems.join(target.staging_dir, SHA256SUMS), _sums(target, manifest))
    write_bytes(FileSystems.join(target.staging_dir, MANIFEST), manifest)
    with latest_lock(target):
        _refuse_moved_latest(target, manifest)
        target.check_writable(overwrite)
        with point_of_no_return(f"{target.dataset} {target.version} at {target.final_dir}"):
            if is_local(target.final_dir):
                _move_local(target, overwrite)
            else:
                _move_remote(target)
            _point_latest(target)
    return target.final_dir


@contextmanager
def latest_lock(target: ReleaseTarget) -> Iterator[None]:
    """Hold ``<dataset dir>/.LATEST.lock`` (local roots; re-entrant in one thread); a lock
    another run still holds after ``LATEST_LOCK_WAIT`` seconds is ``locks.LockHeld``, an
    ``OSError``."""
    directory = target.dataset_dir
    held = getattr(_held, "dirs", None)
    if held is None:
        held = _held.dirs = set()
    if not is_local(directory) or directory in held:
        yield
        return
    target.check_no_links()
    os.makedirs(directory, exist_ok=True)
    lock = take_lock(os.path.join(directory, LATEST_LOCK),
                     holder_record(target.version, target.run_id), wait=LATEST_LOCK_WAIT)
    held.add(directory)
    try:
        yield
    finally:
        held.discard(directory)
        if lock is not None:
            lock.release()


def _refuse_moved_latest(target: ReleaseTarget, manifest: bytes) -> None:
    """``LatestMovedError`` when ``manifest`` is a ``--previous auto`` build's and ``LATEST``
    no longer names the version it was built on."""
    try:
        content = json.loads(manifest)
    except ValueError:
        return
    options, previous = content.get("options"), content.get("previous")
    if not (isinstance(options, dict) and options.get("previous") == AUTO
            and isinstance(previous, dict) and isinstance(previous.get("version"), str)):
        return
    current = read_latest(target.root, target.dataset)
    if current != previous["version"]:
        raise LatestMovedError(
            f"{target.dataset} {target.version} was built on {previous['version']} "
            f"(--previous auto), but LATEST now names {current or 'no version'}: another run "
            f"published since this one started, so its rows would fork the lineage. Nothing "
            f"was published; run again to build on {current or 'the latest version'}")


def _sums(target: ReleaseTarget, manifest: bytes) -> bytes:
    """``SHA256SUMS`` of the staged version: every staged file (its hash from the manifest,
    which hashed it when it was staged; a file the manifest does not list is hashed here),
    the manifest itself, and on an object store the empty ``_SUCCESS`` written after the
    move."""
    listed = json.loads(manifest).get("files", {})
    files = {}
    for name in list_files(target.staging_dir):
        if name in (MANIFEST, SHA256SUMS):
            continue
        entry = listed.get(name)
        files[name] = {"sha256": entry["sha256"] if isinstance(entry, dict) else sha256_of(
            FileSystems.join(target.staging_dir, *name.split("/")))[0]}
    extra = {} if is_local(target.final_dir) else {SUCCESS_MARKER: EMPTY_SHA256}
    return release_sums(files, MANIFEST, manifest, extra)


def _point_latest(target: ReleaseTarget) -> None:
    """Point ``LATEST`` at the version just put in place and release this run's claim;
    a failure to write ``LATEST`` is a ``LatestNotUpdatedError``, the release stays."""
    try:
        _write_latest_checked(target)
    except OSError as error:
        raise LatestNotUpdatedError(
            f"release {target.final_dir} was published, but LATEST could not be updated "
            f"({error}); rerun the same command with --skip-existing to point LATEST at "
            f"{target.version}") from error
    finally:
        release_claim(target)
        remove_empty_staging_root(target)


def _is_staged(target: ReleaseTarget) -> bool:
    """Whether the staging directory holds files (an object store has no directory to test)."""
    if is_local(target.staging_dir) and not os.path.isdir(target.staging_dir):
        return False
    return bool(list_files(target.staging_dir))


def published_run_id(target: ReleaseTarget) -> str | None:
    """The ``run_id`` recorded in the published manifest, if the version is published."""
    path = FileSystems.join(target.final_dir, MANIFEST)
    return read_json(path).get("run_id") if FileSystems.exists(path) else None


def _write_latest_checked(target: ReleaseTarget) -> None:
    """``write_latest``, a version whose card cannot be pointed at a ``LatestNotUpdatedError``
    naming the versions."""
    try:
        write_latest(target)
    except DatasetCardError as error:
        raise LatestNotUpdatedError(f"release {target.final_dir} was published, but {error}; "
                                    "LATEST and the dataset card were left as they "
                                    "were") from error


def write_latest(target: ReleaseTarget) -> bool:
    """``LATEST`` holds the highest published version (written only after success), and the
    dataset directory's card points at it (written first: ``write_dataset_card``). Both are
    left as they are, with a warning, when ``LATEST`` names a published version that orders
    after ``target``'s (``resolve.version_order``): it never moves backwards. Returns whether
    they were written.

    Never truncated in place: locally a temporary file is renamed over it (``os.replace``);
    on an object store the whole content is one object upload. Locally it is read, compared
    and written holding the dataset directory's ``.LATEST.lock`` (``latest_lock``)."""
    with latest_lock(target):
        higher = _higher_latest(target)
        if higher is not None:
            log.warning("LATEST of %s left at %s: %s orders before it, and LATEST never moves "
                        "backwards", target.dataset_dir, higher, target.version)
            return False
        _write_latest_now(target)
    return True


def _higher_latest(target: ReleaseTarget) -> str | None:
    """The version ``LATEST`` names when it is published and orders after ``target``'s."""
    current = read_latest(target.root, target.dataset)
    if current is None or current == target.version or version_order(
            current) <= version_order(target.version):
        return None
    published = _manifest_or_none(FileSystems.join(target.dataset_dir, current))
    return current if published is not None else None


def _write_latest_now(target: ReleaseTarget) -> None:
    write_dataset_card(target)
    path = latest_path(target.root, target.dataset)
    content = f"{target.version}\n".encode()
    if not is_local(path):
        write_bytes(path, content)
        return
    _write_latest_file(path, content, latest_temporary(target))


def write_dataset_card(target: ReleaseTarget) -> bool:
    """Point ``<root>/<dataset>/README.md`` at ``target``'s version (``dataset_card``), the
    same way ``LATEST`` is written (through ``LATEST.<run id>.tmp`` locally); a version
    whose card has no ``configs`` removes a card left for an earlier one. Returns whether
    the card changed; ``DatasetCardError`` (nothing written) when the version's ``configs``
    cannot be pointed at."""
    path = FileSystems.join(target.dataset_dir, DATASET_CARD)
    content = card_for(target.dataset_dir, target.dataset, target.version)
    if is_local(path):
        target.check_inside(path, allow_link=True)
        if os.path.isdir(path) and not os.path.islink(path):
            raise OSError(f"{path} is a directory, not the dataset card")
        if _read_regular(path, len(content or b"") + 1) == content:
            return False
        if content is None:
            target.remove_inside(path)
        else:
            _write_latest_file(path, content, latest_temporary(target))
        return True
    exists = FileSystems.exists(path)
    if content is None:
        if exists:
            FileSystems.delete([path])
        return exists
    if exists and _read_object(path, len(content)) == content:
        return False
    write_bytes(path, content)
    return True


def _read_object(path: str, max_bytes: int) -> bytes | None:
    """An object's bytes, ``None`` when larger than ``max_bytes``."""
    try:
        return read_bytes(path, max_bytes)
    except JsonTooLarge:
        return None


def _read_regular(path: str, max_bytes: int) -> bytes | None:
    """The first ``max_bytes`` of a local regular file, without following a link; ``None``
    for anything else."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                             | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        return handle.read(max_bytes) if stat.S_ISREG(os.fstat(handle.fileno()).st_mode) else None


def _write_latest_file(path: str, content: bytes, temporary: str) -> None:
    """Write ``content`` to ``temporary``, flush it to disk and rename it over ``path``; the
    temporary file never outlives a failure."""
    try:
        with open(temporary, "xb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        if os.path.lexists(temporary):
            os.remove(temporary)


def read_latest(root: str, dataset: str) -> str | None:
    """The version ``LATEST`` names; None when it is missing, empty, unreadable, a link or
    special file (never opened: a FIFO would block), or not a valid sibling version name
    (``resolve.latest_version``; ``--skip-existing`` then rewrites it)."""
    try:
        return latest_version(FileSystems.join(root, dataset))
    except (OSError, InvalidLatestError):
        return None


def repair_latest(target: ReleaseTarget) -> bool:
    """Point ``LATEST`` at ``target``'s published version when a run that published it died
    before updating ``LATEST``. Returns whether ``LATEST`` was rewritten.

    The rule: nothing happens unless ``target``'s version is published (its manifest is
    readable). Then ``LATEST`` is rewritten when it is missing, empty or unreadable, when it
    names a version that is not published (no readable manifest), or when the version it
    names was published strictly earlier (manifest ``created``) than ``target``'s, since
    ``LATEST`` always names the most recently published version. A ``LATEST`` naming a version
    published later than ``target``'s is left alone. A ``LATEST`` already naming ``target``'s
    version has its dataset card brought up to date (``write_dataset_card``)."""
    mine = _manifest_or_none(target.final_dir)
    if mine is None:
        return False
    current = read_latest(target.root, target.dataset)
    if current == target.version:
        try:
            write_dataset_card(target)
        except DatasetCardError as error:
            raise LatestNotUpdatedError(str(error)) from error
        return False
    theirs = (_manifest_or_none(FileSystems.join(target.dataset_dir, current))
              if current else None)
    if theirs is not None:
        created, latest_created = mine.get("created"), theirs.get("created")
        if not (isinstance(created, str) and isinstance(latest_created, str)
                and latest_created < created):
            return False
    _write_latest_checked(target)
    return True


def _manifest_or_none(version_dir: str) -> dict | None:
    path = FileSystems.join(version_dir, MANIFEST)
    try:
        manifest = read_json(path) if FileSystems.exists(path) else None
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def _move_local(target: ReleaseTarget, overwrite: bool) -> None:
    """Rename the staging directory into place; an existing version (with ``overwrite``) is
    retired first and deleted only once the new one is in place."""
    final, staging = target.final_dir, target.staging_dir
    os.makedirs(os.path.dirname(final), exist_ok=True)
    retired = None
    if os.path.lexists(final):
        if not overwrite:
            raise ReleaseExistsError(f"release {final} appeared during the run")
        target.check_replaceable()
        retired = replaced_dir(target)
        os.rename(final, retired)
    try:
        os.rename(staging, final)
    except BaseException:
        if retired and not os.path.lexists(final):
            os.rename(retired, final)
        raise
    if retired:
        target.remove_inside(retired, target.staging_root)


def _move_remote(target: ReleaseTarget) -> None:
    """Object stores have no directory rename: copy every file, the manifest last, then
    ``_SUCCESS``. A retry skips files a failed attempt already moved."""
    files = [f for f in list_files(target.staging_dir) if f != MANIFEST] + [MANIFEST]
    for name in files:
        source = FileSystems.join(target.staging_dir, *name.split("/"))
        destination = FileSystems.join(target.final_dir, *name.split("/"))
        if FileSystems.exists(source):
            if FileSystems.exists(destination):
                FileSystems.delete([destination])
            if is_local(destination):  # object stores have no directories to create
                os.makedirs(os.path.dirname(destination), exist_ok=True)
            FileSystems.rename([source], [destination])
    write_bytes(FileSystems.join(target.final_dir, SUCCESS_MARKER), b"")


def discard_staging(target: ReleaseTarget) -> None:
    """Remove the staging directory of a failed run (best effort); a version this run had
    retired for an overwrite is put back if the new one is not in place."""
    if is_local(target.staging_dir):
        target.remove_inside(target.staging_dir, target.staging_root, ignore_errors=True)
    else:  # an object store: a prefix, not a directory; delete every object under it
        objects = [FileSystems.join(target.staging_dir, *name.split("/"))
                   for name in list_files(target.staging_dir)]
        if objects:
            FileSystems.delete(objects)
    recover_replaced(target)
    release_claim(target)
    remove_empty_staging_root(target)

