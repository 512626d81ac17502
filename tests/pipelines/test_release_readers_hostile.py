"""Commands that read a release as input (``build_reqa --input``, ``annotate``, ``release
browse``) treat its ``LATEST`` and manifest as untrusted, as ``release verify`` does (issue 23
D11, H19): a ``LATEST`` naming no sibling version is a usage error, a manifest that is too
deep, too large or a link is a damaged release, and nothing is followed out of the release."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipelines import annotate, build_reqa, release
from pipelines.build_reqa import resolve_input
from tests.transforms.release.test_diff import write_release
from transforms.annotation.manifest import read_release
from transforms.release import DamagedReleaseError, InvalidLatestError, latest_version
from transforms.release.storage import JsonTooLarge, read_json

ROWS = {"train": [{"id": "a1", "question": "who?"}], "dev": [{"id": "d1", "question": "what?"}]}
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def toy(tmp_path) -> Path:
    """``root/toy/1.0.0`` with ``LATEST``, and ``root/elsewhere/1.0.0`` beside it."""
    write_release(tmp_path / "root", "1.0.0", ROWS, dataset="elsewhere")
    return write_release(tmp_path / "root", "1.0.0", ROWS)


def _point_latest_outside(toy: Path) -> Path:
    dataset_dir = toy.parent
    (dataset_dir / "LATEST").write_text("../elsewhere/1.0.0", encoding="utf-8")
    return dataset_dir


def test_build_reqa_refuses_a_latest_that_leaves_the_dataset(toy, tmp_path, capsys):
    dataset_dir = _point_latest_outside(toy)
    with pytest.raises(InvalidLatestError, match="LATEST"):
        resolve_input("nq", str(dataset_dir), "dev")
    code = build_reqa.main(["--source", "nq", "--input", str(dataset_dir),
                            "--output", str(tmp_path / "out")])
    assert code == 2
    assert "LATEST" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_annotate_refuses_a_latest_that_leaves_the_dataset(toy, tmp_path, capsys):
    dataset_dir = _point_latest_outside(toy)
    with pytest.raises(InvalidLatestError):
        read_release(str(dataset_dir))
    votes = tmp_path / "votes.jsonl"
    votes.write_text("", encoding="utf-8")
    assert annotate.main(["export", "--release", str(dataset_dir),
                          "--out", str(tmp_path / "tasks")]) == 2
    assert annotate.main(["import", "--dataset", "nq", "--input", str(dataset_dir),
                          "--votes", str(votes), "--output", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.count("LATEST") >= 2
    assert not (tmp_path / "tasks").exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("manifest", [DEEP, "[1, 2]", json.dumps({"dataset": "../x"})])
def test_annotate_calls_a_bad_manifest_a_damaged_release(toy, tmp_path, manifest):
    (toy / "dataset_info.json").write_text(manifest, encoding="utf-8")
    with pytest.raises(DamagedReleaseError, match="dataset_info.json"):
        read_release(str(toy))
    assert annotate.main(["export", "--release", str(toy),
                          "--out", str(tmp_path / "tasks")]) == 5
    assert not (tmp_path / "tasks").exists()


def test_browse_never_follows_a_linked_manifest(toy, tmp_path, monkeypatch, capsys):
    outside = tmp_path / "outside.json"
    outside.write_text((toy / "dataset_info.json").read_text(encoding="utf-8")
                       .replace('"dataset": "toy"', '"dataset": "planted"'), encoding="utf-8")
    (toy / "dataset_info.json").unlink()
    os.symlink(outside, toy / "dataset_info.json")
    monkeypatch.chdir(tmp_path)
    assert release.main(["browse", str(toy)]) == 5
    assert "dataset_info.json" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_json_reads_are_bounded(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"pad": "x" * 200}), encoding="utf-8")
    assert read_json(str(path))["pad"] == "x" * 200
    with pytest.raises(JsonTooLarge, match="larger than 100 bytes"):
        read_json(str(path), max_bytes=100)


def test_a_dataset_root_that_is_a_file_has_no_latest(tmp_path):
    path = tmp_path / "file"
    path.write_text("not a directory", encoding="utf-8")
    assert latest_version(str(path)) is None
