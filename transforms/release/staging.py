"""Staging directories: who owns them, and cleaning up after runs that were killed.

A run writes ``<root>/<dataset>/.staging/<version>-<run id>.owner`` (host, pid, start time)
before its job starts; the job stages into ``.staging/<version>-<run id>/`` and an overwrite
retires the old version to ``.staging/<version>-<run id>.replaced`` for a moment. Committing or
discarding removes all three. What a killed run leaves behind is *abandoned* when:

* its owner ran on this host and its pid is gone (or now belongs to a younger process),
  for a local root;
* or, for an owner on another host, an object-store root (whose launcher may exit while its
  job still runs) or a directory without an owner file, it is older than ``stale_after``
  seconds (``DEFAULT_STALE_AFTER``, 24 h).

The files of a live owner on this host are never touched, whatever the root and however old
they are, so concurrent builds of one version are safe.

``clean_abandoned`` first restores an interrupted overwrite (an abandoned ``.replaced``
holding a manifest while the version itself is missing is renamed back), then removes the
rest of the abandoned entries, and the ``LATEST.<run id>.tmp`` files killed runs left in the
dataset directory (by the same rule, through the owner of that run id, else by age).

Nothing is followed through a link: a dataset directory or ``.staging`` that is a symbolic
link is refused (``InvalidReleaseRoot``) before anything is read or removed, and an entry of
``.staging`` that is a link is removed as a link (``ReleaseTarget.remove_inside``).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import socket
import stat
import time
from typing import Any

from apache_beam.io.filesystems import FileSystems

from transforms.release.storage import is_local, read_json, write_bytes
from transforms.release.target import (
    LATEST,
    MANIFEST,
    InvalidReleaseName,
    ReleaseTarget,
    check_name,
    unwritable_output,
)

DEFAULT_STALE_AFTER = 24 * 3600.0
OWNER_SUFFIX = ".owner"
REPLACED_SUFFIX = ".replaced"
RUN_ID_LENGTH = 12
LATEST_TEMPORARY = re.compile(rf"{LATEST}\.([0-9a-f]{{{RUN_ID_LENGTH}}})\.tmp")
UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS)

log = logging.getLogger(__name__)


def owner_path(target: ReleaseTarget) -> str:
    return target.staging_dir + OWNER_SUFFIX


def replaced_dir(target: ReleaseTarget) -> str:
    return target.staging_dir + REPLACED_SUFFIX


def latest_temporary(target: ReleaseTarget) -> str:
    """The file this run writes ``LATEST`` through (local roots only)."""
    return f"{target.dataset_dir}/{LATEST}.{target.run_id}.tmp"


def claim_staging(target: ReleaseTarget, **extra: Any) -> None:
    """Write this run's ownership marker (before anything is staged). An output that cannot
    be written (read-only, no permission) is a usage error (``InvalidReleaseRoot``)."""
    owner = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.time(),
             "run_id": target.run_id, **extra}
    try:
        if is_local(target.staging_root):
            target.check_no_links()
            os.makedirs(target.staging_root, exist_ok=True)
        write_bytes(owner_path(target), json.dumps(owner, sort_keys=True).encode("utf-8"))
    except OSError as error:
        if error.errno in UNWRITABLE:
            raise unwritable_output(target.root, str(error)) from error
        raise


def read_owner(target: ReleaseTarget) -> dict[str, Any]:
    """This run's ownership marker, ``{}`` when there is none."""
    return _read_marker(owner_path(target))


def release_claim(target: ReleaseTarget) -> None:
    """Remove this run's ownership marker (after commit or discard)."""
    path = owner_path(target)
    if FileSystems.exists(path):
        FileSystems.delete([path])


def remove_empty_staging_root(target: ReleaseTarget) -> None:
    if is_local(target.staging_root):
        try:
            os.rmdir(target.staging_root)
        except OSError:
            pass


def clean_abandoned(target: ReleaseTarget, stale_after: float = DEFAULT_STALE_AFTER,
                    now: float | None = None) -> int:
    """Restore interrupted overwrites and remove abandoned staging entries of
    ``target``'s dataset; returns how many directories were removed."""
    now = time.time() if now is None else now
    target.check_no_links()
    entries = _staging_entries(target)
    owners = {stem: _read_marker(FileSystems.join(target.staging_root, stem + OWNER_SUFFIX))
              if OWNER_SUFFIX in kinds else None for stem, kinds in entries.items()}
    gone = {stem for stem, kinds in entries.items()
            if _abandoned(target, stem, owners[stem], kinds, stale_after, now)}
    _clean_latest_temporaries(target, entries, gone, stale_after, now)
    removed = 0
    for stem in sorted(gone):
        kinds, owner = entries[stem], owners[stem]
        marker = FileSystems.join(target.staging_root, stem + OWNER_SUFFIX)
        if REPLACED_SUFFIX in kinds:
            removed += recover_replaced(target, stem)
        if "" in kinds:
            _remove(target, FileSystems.join(target.staging_root, stem))
            removed += 1
        if owner is not None:
            _remove(target, marker)
    if removed:
        log.warning("removed %d abandoned staging director%s under %s", removed,
                    "y" if removed == 1 else "ies", target.staging_root)
    remove_empty_staging_root(target)
    return removed


def _clean_latest_temporaries(target: ReleaseTarget, entries: dict[str, dict[str, float]],
                              gone: set[str], stale_after: float, now: float) -> None:
    """Remove the ``LATEST.<run id>.tmp`` files of runs that are gone: whose staging entries
    are abandoned (``gone``), or, without any entry of that run id, older than
    ``stale_after``. Names we do not write are never touched."""
    directory = target.dataset_dir
    if not is_local(directory) or not os.path.isdir(directory):
        return
    runs = {stem[-RUN_ID_LENGTH:]: stem for stem in entries}
    for name in sorted(os.listdir(directory)):
        match = LATEST_TEMPORARY.fullmatch(name)
        if not match or match.group(1) == target.run_id:
            continue
        path = os.path.join(directory, name)
        stem = runs.get(match.group(1))
        try:
            age = now - os.lstat(path).st_mtime
        except OSError:
            continue
        if (stem in gone) if stem is not None else age > stale_after:
            target.remove_inside(path)
            log.warning("removed %s, left by a run that is gone", path)


def _staging_entries(target: ReleaseTarget) -> dict[str, dict[str, float]]:
    """``{stem: {suffix: newest mtime}}`` of ``.staging``, suffix ``""`` for a staging dir."""
    root = target.staging_root
    entries: dict[str, dict[str, float]] = {}
    if is_local(root):
        if not os.path.isdir(root):
            return {}
        for name in os.listdir(root):
            stem, suffix = _split(name)
            path = os.path.join(root, name)
            entries.setdefault(stem, {})[suffix] = _newest_local(path)
        return entries
    prefix = root.rstrip("/") + "/"
    for meta in FileSystems.match([prefix + "**"])[0].metadata_list:
        first = meta.path[len(prefix):].split("/", 1)[0]
        stem, suffix = _split(first)
        kinds = entries.setdefault(stem, {})
        kinds[suffix] = max(kinds.get(suffix, 0.0), meta.last_updated_in_seconds or 0.0)
    return entries


def _split(name: str) -> tuple[str, str]:
    for suffix in (OWNER_SUFFIX, REPLACED_SUFFIX):
        if name.endswith(suffix):
            return name[:-len(suffix)], suffix
    return name, ""


def _newest_local(path: str) -> float:
    newest = os.lstat(path).st_mtime
    if os.path.isdir(path) and not os.path.islink(path):
        for directory, dirs, files in os.walk(path):
            for name in dirs + files:
                try:
                    newest = max(newest, os.lstat(os.path.join(directory, name)).st_mtime)
                except OSError:
                    pass
    return newest


MARKER_MAX_BYTES = 1 << 16


def _read_marker(path: str) -> dict[str, Any]:
    """An ownership marker, ``{}`` when missing or unreadable; locally only a small regular
    file is read (a link or a device is never opened)."""
    try:
        if is_local(path):
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MARKER_MAX_BYTES:
                return {}
        if FileSystems.exists(path):
            marker = read_json(path)
            return marker if isinstance(marker, dict) else {}
    except (OSError, ValueError):
        pass
    return {}


def _abandoned(target: ReleaseTarget, stem: str, owner: dict[str, Any] | None,
               kinds: dict[str, float], stale_after: float, now: float) -> bool:
    if stem == f"{target.version}-{target.run_id}":
        return False  # this run's own entries
    if owner and owner.get("host") == socket.gethostname():
        if _alive(owner.get("pid"), owner.get("started")):
            return False  # a live run of this host, whatever its root: never touched
        if is_local(target.root):
            return True
    started = owner.get("started") if owner else None
    age_from = started if isinstance(started, (int, float)) else max(kinds.values())
    return now - age_from > stale_after


def _alive(pid: Any, started: Any) -> bool:
    """Whether ``pid`` runs and is not a process started after the marker was written."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    except OSError:
        return False
    begun = _process_start(pid)
    return not (begun and isinstance(started, (int, float)) and begun > started + 2)


def _process_start(pid: int) -> float | None:
    """Start time (epoch seconds) of ``pid`` from ``/proc``, None where unavailable."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as handle:
            boot = next(float(line.split()[1]) for line in handle if line.startswith("btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def recover_replaced(target: ReleaseTarget, stem: str | None = None) -> int:
    """A retired version (``.staging/<stem>.replaced``, default this run's): put it back if
    its version is missing, else remove it. Returns 1 when it was removed."""
    stem = stem or f"{target.version}-{target.run_id}"
    retired = FileSystems.join(target.staging_root, stem + REPLACED_SUFFIX)
    if is_local(retired):
        if not os.path.lexists(retired):
            return 0
    elif not _remote_objects(retired):
        return 0  # an object-store "directory" exists only as the objects under its prefix
    final = _final_dir_of(target, stem)
    if (final and is_local(final) and not os.path.lexists(final)
            and not os.path.islink(retired)
            and os.path.isfile(os.path.join(retired, MANIFEST))):
        target.check_inside(final)
        target.check_inside(retired, target.staging_root)
        os.rename(retired, final)
        log.warning("restored %s from an interrupted overwrite (%s)", final, retired)
        return 0
    _remove(target, retired)
    return 1


def _final_dir_of(target: ReleaseTarget, stem: str) -> str:
    """``<root>/<dataset>/<version>`` of a ``<version>-<run id>`` stem, "" if it is not one."""
    version = stem[:-RUN_ID_LENGTH - 1]
    if len(stem) <= RUN_ID_LENGTH + 1 or stem[-RUN_ID_LENGTH - 1] != "-":
        return ""
    try:
        check_name(version)
    except InvalidReleaseName:
        return ""
    return FileSystems.join(target.dataset_dir, version)


def _remove(target: ReleaseTarget, path: str) -> None:
    """Remove a directory, file or link of ``.staging``, never anything outside it (a link
    is removed, never followed)."""
    if is_local(path):
        target.remove_inside(path, target.staging_root, ignore_errors=True)
        return
    files = _remote_objects(path)
    if FileSystems.exists(path):
        files.append(path)
    if files:
        FileSystems.delete(files)


def _remote_objects(path: str) -> list[str]:
    """The objects under the object-store prefix ``path/``."""
    return [m.path for m in FileSystems.match([path.rstrip("/") + "/**"])[0].metadata_list]
