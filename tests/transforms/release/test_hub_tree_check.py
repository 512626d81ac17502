"""``hub_tree_check.tree_problems``: a committed tree compared with the release, entry by
entry, as ``list_repo_tree`` gives it (an LFS file by sha256, a git file by blob oid)."""

from __future__ import annotations

import hashlib

from huggingface_hub.hf_api import RepoFile

from transforms.release.hub_tree_check import tree_problems

DATA = {"a.parquet": b"PAR1 rows", "README.md": b"# card\n"}


def _blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _entry(path: str, data: bytes, lfs: bool) -> RepoFile:
    info = {"type": "file", "path": path, "size": len(data), "oid": _blob(data)}
    if lfs:
        info["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data),
                       "pointerSize": 130}
    return RepoFile(**info)


def _release(tmp_path):
    for name, data in DATA.items():
        (tmp_path / name).write_bytes(data)
    files = [(name, len(data)) for name, data in DATA.items()]
    digests = {name: hashlib.sha256(data).hexdigest() for name, data in DATA.items()}
    return files, digests


def _tree(**changed: bytes) -> dict[str, RepoFile]:
    contents = {**DATA, **{k.replace("_", "."): v for k, v in changed.items()}}
    return {name: _entry(name, data, name.endswith(".parquet"))
            for name, data in contents.items()}


def test_the_same_files_have_no_problem(tmp_path):
    files, digests = _release(tmp_path)
    tree = {**_tree(), ".gitattributes": _entry(".gitattributes", b"*.parquet x\n", False)}
    assert tree_problems(str(tmp_path), files, digests, tree) == []


def test_same_size_other_bytes_are_found_by_sha256_and_by_git_blob(tmp_path):
    files, digests = _release(tmp_path)
    tree = _tree(a_parquet=b"PAR1 ROWS", README_md=b"# CARD\n")
    problems = tree_problems(str(tmp_path), files, digests, tree)
    assert [p.split(":")[0] + ": " + p.split(": ")[1].split()[0] for p in problems] == [
        "a.parquet: sha256", "README.md: git"]


def test_missing_and_extra_files_are_named(tmp_path):
    files, digests = _release(tmp_path)
    tree = _tree()
    del tree["a.parquet"]
    tree["old.json"] = _entry("old.json", b"{}", False)
    assert tree_problems(str(tmp_path), files, digests, tree) == [
        "a.parquet: missing", "old.json: on the Hub, not in the release"]


def test_a_file_sha256sums_does_not_list_is_hashed(tmp_path):
    files, digests = _release(tmp_path)
    del digests["a.parquet"]
    assert tree_problems(str(tmp_path), files, digests, _tree()) == []
    assert tree_problems(str(tmp_path), files, digests, _tree(a_parquet=b"PAR1 ROWZ"))
