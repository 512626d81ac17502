"""A search index on each worker's local disk, from a release on an object store (``gs://``).

The index is memory-mapped and its pages are read with ``pread``, so it must be on local disk.
On Dataflow, ``--index-dir gs://bucket/indexes/search_en/1.0.0`` is copied once per machine
(a file lock makes the other worker processes of the VM wait for the first one), streaming,
into ``$QA_INDEX_CACHE`` (default ``<tmp>/qa-index-cache``). Only what search and page reads
need is copied (``bm25/``, ``pages/``, ``index_meta.json``, not the ``docs`` table), and every
file is checked against the release manifest's sha256 and size while it is copied (reading
stops once a file is longer than the manifest says): a damaged or partial copy is never
used, and a finished copy is renamed into place atomically.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile

from apache_beam.io.filesystems import FileSystems

from transforms.clients.local_search import BM25_DIR, META_FILE, IndexFormatError
from transforms.clients.page_store import STORE_DIR
from transforms.release.storage import RAW, read_json
from transforms.release.target import MANIFEST

CACHE_ENV = "QA_INDEX_CACHE"
_BLOCK = 8 << 20


class DamagedIndexError(RuntimeError):
    """A copied index file does not match the release manifest."""


def is_remote(index_dir: str) -> bool:
    return "://" in index_dir


def check_index_dir(index_dir: str) -> None:
    """Fail before any work when ``index_dir`` is not a usable index: ``IndexFormatError``
    naming what is missing (a local directory needs its page store; a remote one must be a
    published index release, with its manifest)."""
    if is_remote(index_dir):
        if not FileSystems.exists(FileSystems.join(index_dir, MANIFEST)):
            raise IndexFormatError(f"{index_dir} is not a published index release (no "
                                   f"{MANIFEST}): copy a release built by "
                                   "python -m pipelines.build_search_index")
        return
    if not os.path.isdir(index_dir):
        raise IndexFormatError(f"--index-dir {index_dir} does not exist")
    for needed in (BM25_DIR, STORE_DIR):
        if not os.path.isdir(os.path.join(index_dir, needed)):
            raise IndexFormatError(
                f"{index_dir} has no {needed}/: not an index, or one built by an older "
                "version; rebuild it with python -m pipelines.build_search_index")


def needed_files(manifest: dict) -> dict[str, dict]:
    """The manifest entries search and page reads need."""
    return {name: entry for name, entry in manifest.get("files", {}).items()
            if name == META_FILE or name.split("/")[0] in (BM25_DIR, STORE_DIR)}


def local_index(index_dir: str, cache_root: str | None = None) -> str:
    """``index_dir`` itself when it is local; else the verified local copy of that remote
    index release, made by the first caller on this machine."""
    if not is_remote(index_dir):
        return index_dir
    root = cache_root or os.environ.get(CACHE_ENV) or os.path.join(tempfile.gettempdir(),
                                                                   "qa-index-cache")
    os.makedirs(root, exist_ok=True)
    key = hashlib.sha256(index_dir.rstrip("/").encode("utf-8")).hexdigest()[:16]
    target = os.path.join(root, key)
    with open(target + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.isdir(target):
            _copy(index_dir.rstrip("/"), root, target)
    return target


def _copy(remote: str, root: str, target: str) -> None:
    manifest = read_json(FileSystems.join(remote, MANIFEST))
    staging = tempfile.mkdtemp(prefix=".copying-", dir=root)
    try:
        for name, entry in sorted(needed_files(manifest).items()):
            local = os.path.join(staging, *name.split("/"))
            os.makedirs(os.path.dirname(local), exist_ok=True)
            digest, size, expected = hashlib.sha256(), 0, int(entry.get("bytes", -1))
            with FileSystems.open(FileSystems.join(remote, *name.split("/")),
                                  compression_type=RAW) as source, open(local, "wb") as out:
                while size <= expected and (block := source.read(_BLOCK)):
                    digest.update(block)
                    size += len(block)
                    out.write(block)
            if digest.hexdigest() != entry.get("sha256") or size != expected:
                raise DamagedIndexError(f"{remote}/{name} does not match the release manifest "
                                        f"({size} bytes, sha256 {digest.hexdigest()[:12]}…)")
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
