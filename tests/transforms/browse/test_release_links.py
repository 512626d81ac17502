"""Issue 23 G17: a downloaded release cannot copy a local file into its site. ``write_site``
refuses a release holding a symbolic link (whatever it points at) or a file whose sha256
differs from the manifest's, also when the sizes match, before writing anything."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.transforms.browse.test_site import toy_release
from transforms.browse.base import open_member
from transforms.browse.site import write_site
from transforms.release import DamagedReleaseError

SECRET = b"aws_secret_access_key = SECRET-TOKEN-0123456789\nsecond line of the secret\n"
REJECTED = "rejected/dropped_questions/dropped_questions-00000-of-00001.jsonl"
SHARD = "train/train-00000-of-00001.parquet"


def _secret(tmp_path: Path, content: bytes = SECRET) -> Path:
    path = tmp_path / "home" / "secret.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def _relist(release: Path, name: str, content: bytes, *, hashed: bool) -> None:
    """Make the manifest's entry of ``name`` match ``content``'s size (and its sha256 when
    ``hashed``): what an attacker who knows the size (or the bytes) writes."""
    manifest_path = release / "dataset_info.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    entry = manifest["files"][name]
    entry["bytes"] = len(content)
    if hashed:
        entry["sha256"] = hashlib.sha256(content).hexdigest()
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")


def _link(release: Path, name: str, target: Path) -> None:
    path = release / name
    path.unlink()
    path.symlink_to(target)


def _no_site(tmp_path: Path) -> None:
    assert not (tmp_path / "site").exists()
    assert not list(tmp_path.glob("site.tmp-*"))
    for path in tmp_path.rglob("*"):
        if path.is_file() and not path.is_symlink() and "home" not in path.parts:
            assert b"SECRET-TOKEN" not in path.read_bytes(), path


def test_a_linked_rejected_file_with_the_secrets_size_is_refused(tmp_path):
    release = toy_release(tmp_path / "releases")
    secret = _secret(tmp_path)
    _link(release, REJECTED, secret)
    _relist(release, REJECTED, SECRET, hashed=False)
    with pytest.raises(DamagedReleaseError, match="symbolic link"):
        write_site(str(release), str(tmp_path / "site"))
    _no_site(tmp_path)


@pytest.mark.parametrize("name", [REJECTED, SHARD, "stats.json"])
def test_a_link_out_of_the_release_is_refused_even_when_its_hash_matches(tmp_path, name):
    release = toy_release(tmp_path / "releases")
    content = (release / name).read_bytes()
    outside = _secret(tmp_path, content)
    _link(release, name, outside)
    _relist(release, name, content, hashed=True)
    with pytest.raises(DamagedReleaseError, match="symbolic link"):
        write_site(str(release), str(tmp_path / "site"))
    assert not (tmp_path / "site").exists()


def test_a_linked_directory_or_manifest_is_refused(tmp_path):
    release = toy_release(tmp_path / "releases")
    kind = release / "rejected" / "dropped_questions"
    outside = tmp_path / "home" / "dropped_questions"
    outside.parent.mkdir()
    kind.rename(outside)
    kind.symlink_to(outside, target_is_directory=True)
    with pytest.raises(DamagedReleaseError, match="symbolic link"):
        write_site(str(release), str(tmp_path / "site"))
    kind.unlink()
    outside.rename(kind)
    manifest = release / "dataset_info.json"
    moved = tmp_path / "home" / "dataset_info.json"
    manifest.rename(moved)
    manifest.symlink_to(moved)
    with pytest.raises(DamagedReleaseError, match="symbolic link"):
        write_site(str(release), str(tmp_path / "site"))
    assert not (tmp_path / "site").exists()


def test_a_file_changed_at_the_same_size_is_refused(tmp_path):
    release = toy_release(tmp_path / "releases")
    path = release / REJECTED
    content = path.read_bytes()
    path.write_bytes(content.replace(b"too_short", b"TOO_SHORT"))
    assert path.stat().st_size == len(content)
    with pytest.raises(DamagedReleaseError, match="sha256"):
        write_site(str(release), str(tmp_path / "site"))
    assert not (tmp_path / "site").exists()


def test_a_fifo_in_the_release_is_refused_without_blocking(tmp_path):
    release = toy_release(tmp_path / "releases")
    os.mkfifo(release / "rejected" / "pipe.jsonl")
    with pytest.raises(DamagedReleaseError, match="not a regular file"):
        write_site(str(release), str(tmp_path / "site"))


def test_open_member_reads_regular_files_and_refuses_links_and_escapes(tmp_path):
    release = toy_release(tmp_path / "releases")
    with open_member(str(release), "stats.json") as handle:
        assert json.loads(handle.read())["counts"]
    (release / "link.json").symlink_to(release / "stats.json")
    for name in ("link.json", "../releases/toy/1.0.0/stats.json", "/etc/passwd", "",
                 "train//x", "train/./x", "train"):
        with pytest.raises(DamagedReleaseError):
            open_member(str(release), name)
