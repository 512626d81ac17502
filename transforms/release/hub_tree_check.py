"""Compare a commit's files on the Hub with the release's, before anything is tagged.

``huggingface_hub`` drops from a commit every file the repository's ``.gitignore`` covers (the
Hub's preupload answer says ``shouldIgnore``) and every file the Hub says it already holds
with the same content: the commit can lack files, or hold other bytes, while the upload
"succeeded". So publish reads the committed tree back at the commit's oid
(``list_repo_tree``, recursive: path, size, and for an LFS file its sha256) and compares each
entry with the release: an LFS file's sha256 and size with ``SHA256SUMS`` (files it does not
list are hashed), a file stored in git by its git blob oid, computed from the local file. A
file missing, different or not in the release (``.gitattributes`` aside: the Hub's LFS rules)
is a problem, named with its path.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from transforms.release.checksums import MAX_SUMS_BYTES, SHA256SUMS, parse_sums
from transforms.release.storage import read_bytes

GITATTRIBUTES = ".gitattributes"
GITIGNORE = ".gitignore"
_CHUNK = 1 << 20


def release_digests(version_dir: str) -> dict[str, str]:
    """``{path: sha256}`` of the release's ``SHA256SUMS`` (empty when it has none)."""
    path = os.path.join(version_dir, SHA256SUMS)
    if not os.path.isfile(path):
        return {}
    return parse_sums(read_bytes(path, MAX_SUMS_BYTES))


def read_tree(api: Any, repo_id: str, revision: str) -> dict[str, Any]:
    """Every file of ``revision`` (a commit oid) by path, as ``list_repo_tree`` answers it."""
    from huggingface_hub.hf_api import RepoFile

    return {entry.path: entry for entry in api.list_repo_tree(
        repo_id, repo_type="dataset", revision=revision, recursive=True)
        if isinstance(entry, RepoFile)}


def _hashes(path: str) -> tuple[str, str]:
    """sha256 and git blob oid of a local file, from one read."""
    sha256 = hashlib.sha256()
    blob = hashlib.sha1(b"blob %d\0" % os.path.getsize(path))
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            sha256.update(chunk)
            blob.update(chunk)
    return sha256.hexdigest(), blob.hexdigest()


def tree_problems(version_dir: str, files: list[tuple[str, int]], digests: dict[str, str],
                  tree: dict[str, Any]) -> list[str]:
    """How ``tree`` differs from the release's ``files`` (path, bytes): one line per file,
    ``PATH: missing``, ``PATH: sha256 … on the Hub, … in the release`` and so on; empty when
    the tree holds exactly the release."""
    problems = []
    for name, size in files:
        entry = tree.get(name)
        if entry is None:
            problems.append(f"{name}: missing")
            continue
        local = os.path.join(version_dir, *name.split("/"))
        lfs = entry.lfs
        stored = lfs.size if lfs is not None else entry.size
        if stored != size:
            problems.append(f"{name}: {stored} bytes on the Hub, {size} in the release")
        elif lfs is not None:
            expected = digests.get(name) or _hashes(local)[0]
            if lfs.sha256 != expected:
                problems.append(f"{name}: sha256 {str(lfs.sha256)[:12]}… on the Hub, "
                                f"{expected[:12]}… in the release")
        else:
            sha256, blob = _hashes(local)
            if entry.blob_id != blob or digests.get(name, sha256) != sha256:
                problems.append(f"{name}: git blob {str(entry.blob_id)[:12]}… on the Hub, "
                                f"{blob[:12]}… in the release")
    listed = {name for name, _ in files}
    problems += [f"{name}: on the Hub, not in the release" for name in sorted(tree)
                 if name not in listed and name != GITATTRIBUTES]
    return problems
