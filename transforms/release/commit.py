"""Publish a staged release: manifest last, move into place, point ``LATEST`` at it.

Locally the staging directory is renamed into place; object stores have no directory rename,
so files are copied with the manifest last, then ``_SUCCESS``. A failed run's staging
directory is discarded, so no half-written version is ever left behind.
"""

from __future__ import annotations

import os
import shutil

from apache_beam.io.filesystems import FileSystems

from transforms.release.storage import is_local, list_files, read_json, write_bytes
from transforms.release.target import (
    MANIFEST,
    SUCCESS_MARKER,
    ReleaseExistsError,
    ReleaseTarget,
    latest_path,
)


def finalize_release(target: ReleaseTarget, overwrite: bool, manifest: bytes) -> str:
    """Write the manifest (the completion marker, always last), then move into place and
    point ``<root>/<dataset>/LATEST`` at the version.

    Safe to retry: a retried step that finds this run's release already in place (same
    ``run_id`` in the published manifest) only refreshes ``LATEST``. Everything else (splits,
    stats, card) must already be in the staging directory.
    """
    if not _is_staged(target) and published_run_id(target) == target.run_id:
        write_latest(target)
        return target.final_dir
    write_bytes(FileSystems.join(target.staging_dir, MANIFEST), manifest)
    target.check_writable(overwrite)
    if is_local(target.final_dir):
        _move_local(target, overwrite)
    else:
        _move_remote(target)
    write_latest(target)
    return target.final_dir


def _is_staged(target: ReleaseTarget) -> bool:
    return FileSystems.exists(target.staging_dir) and bool(list_files(target.staging_dir))


def published_run_id(target: ReleaseTarget) -> str | None:
    """The ``run_id`` recorded in the published manifest, if the version is published."""
    path = FileSystems.join(target.final_dir, MANIFEST)
    return read_json(path).get("run_id") if FileSystems.exists(path) else None


def write_latest(target: ReleaseTarget) -> None:
    """``LATEST`` holds the most recently published version (written only after success)."""
    write_bytes(latest_path(target.root, target.dataset), f"{target.version}\n".encode())


def _move_local(target: ReleaseTarget, overwrite: bool) -> None:
    final, staging = target.final_dir, target.staging_dir
    os.makedirs(os.path.dirname(final), exist_ok=True)
    retired = None
    if os.path.exists(final):
        if not overwrite:
            raise ReleaseExistsError(f"release {final} appeared during the run")
        retired = f"{staging}.replaced"
        os.rename(final, retired)
    os.rename(staging, final)
    if retired:
        shutil.rmtree(retired)
    _remove_empty_staging(os.path.dirname(staging))


def _remove_empty_staging(staging_root: str) -> None:
    try:
        os.rmdir(staging_root)
    except OSError:
        pass


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
    """Remove the staging directory of a failed run (best effort)."""
    if is_local(target.staging_dir):
        shutil.rmtree(target.staging_dir, ignore_errors=True)
        _remove_empty_staging(os.path.dirname(target.staging_dir))
    elif FileSystems.exists(target.staging_dir):
        FileSystems.delete([target.staging_dir])

