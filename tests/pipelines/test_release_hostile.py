"""Hostile releases against ``python -m pipelines.release`` and the commands that verify a
release first (issue 23: A4, D11, D13, G18, H19). The manifest is the one file no checksum
covers, and ``LATEST`` is a plain text file: both are input, not trusted."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from pipelines import api, evaluate, release
from tests.transforms.release.test_diff import write_release
from transforms.release import (
    DamagedReleaseError,
    NotAReleaseError,
    list_releases,
    require_intact,
    resolve_release,
    verify_release,
)

ROWS = {"train": [{"id": "a1", "question": "who?"}], "dev": [{"id": "d1", "question": "what?"}]}
DEEP = "[" * 100_000 + "]" * 100_000
OSC8 = "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07"
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")


@pytest.fixture
def toy(tmp_path) -> Path:
    """``root/toy/0.9.0`` and ``root/toy/1.0.0``, ``LATEST`` naming 1.0.0."""
    write_release(tmp_path / "root", "0.9.0", ROWS)
    return write_release(tmp_path / "root", "1.0.0", ROWS)


def _manifest(version_dir: Path) -> dict[str, Any]:
    return json.loads((version_dir / "dataset_info.json").read_text(encoding="utf-8"))


def _write_manifest(version_dir: Path, manifest: Any) -> None:
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (version_dir / "dataset_info.json").write_text(text, encoding="utf-8")


def _tree(top: Path) -> list[str]:
    """Every path below ``top``, links not followed."""
    return sorted(os.path.relpath(os.path.join(d, n), top)
                  for d, dirs, files in os.walk(top) for n in dirs + files)


def _statuses(root: Path) -> dict[str, str]:
    return {e["version"]: e["status"] for e in list_releases(str(root))}


# A4: browse writes its site where the manifest says -----------------------------------------

@pytest.mark.parametrize(("key", "value"), [
    ("dataset", "../../escaped"), ("version", "../../../escaped"), ("version", "<abs>"),
    ("dataset", ".."), ("dataset", "a/b"), ("version", "LATEST"),
])
def test_browse_refuses_manifest_names_that_leave_site(toy, tmp_path, monkeypatch, capsys,
                                                       key, value):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    _write_manifest(toy, {**_manifest(toy), key: value.replace("<abs>", str(tmp_path / "abs"))})
    before = _tree(tmp_path)
    assert release.main(["browse", str(toy)]) == 5
    assert "dataset_info.json" in capsys.readouterr().err
    assert _tree(tmp_path) == before
    with pytest.raises(DamagedReleaseError):
        release.default_site_dir(str(toy))


def test_browse_refuses_a_site_dir_reached_through_a_link(toy, tmp_path, monkeypatch, capsys):
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "site").mkdir(parents=True)
    outside.mkdir()
    (outside / "keep.txt").write_text("mine", encoding="utf-8")
    monkeypatch.chdir(work)
    os.symlink(outside, work / "site" / "toy")
    assert release.main(["browse", str(toy)]) == 2
    assert "link" in capsys.readouterr().err
    os.remove(work / "site" / "toy")
    (work / "site" / "toy").mkdir()
    os.symlink(outside, work / "site" / "toy" / "1.0.0")
    assert release.main(["browse", str(toy), "--overwrite"]) == 2
    assert os.listdir(outside) == ["keep.txt"]
    assert release.main(["browse", str(toy.parent / "0.9.0")]) == 0  # a plain path still works
    assert (work / "site" / "toy" / "0.9.0" / "index.html").is_file()


# D11: a deeply nested manifest --------------------------------------------------------------

def test_a_deeply_nested_manifest_is_a_damaged_release(toy, tmp_path, monkeypatch, capsys):
    _write_manifest(toy, DEEP)
    old = str(toy.parent / "0.9.0")
    assert release.main(["verify", str(toy)]) == 5
    out = capsys.readouterr().out
    assert "DAMAGED" in out and "dataset_info.json" in out and "nested deeper" in out
    with pytest.raises(DamagedReleaseError, match="nested deeper"):
        require_intact(str(toy))
    assert release.main(["list", str(toy.parent.parent)]) == 0
    assert _statuses(toy.parent.parent) == {"0.9.0": "complete", "1.0.0": "damaged"}
    assert release.main(["diff", old, str(toy)]) == 5
    assert release.main(["diff", old, str(toy), "--no-verify"]) == 5
    assert release.main(["leakage", str(toy), "--no-verify"]) == 5
    with pytest.raises(DamagedReleaseError):
        api.load_release(toy)
    predictions = tmp_path / "p.json"
    predictions.write_text("{}", encoding="utf-8")
    assert evaluate.main(["jnq", "--gold", str(toy), "--predictions", str(predictions)]) == 5
    monkeypatch.chdir(tmp_path)
    assert release.main(["browse", str(toy)]) == 5
    assert not (tmp_path / "site").exists()


# D13: a manifest of the wrong shape ---------------------------------------------------------

@pytest.mark.parametrize("change", [
    [1], "null", '"text"', {"files": 5}, {"files": {"train/x.parquet": 5}},
    {"files": {"stats.json": {"sha256": "0", "bytes": "12"}}}, {"rows_per_split": [1]},
    {"rows_per_split": {"train": "1"}}, {"splits": "train"}, {"schema": "id"},
    {"schema": [{"name": "id"}]}, {"dataset": 7}, {"created": {"at": 1}}, {"options": []},
])
def test_a_manifest_of_the_wrong_shape_is_a_damaged_release(toy, capsys, change):
    manifest = {**_manifest(toy), **change} if isinstance(change, dict) else change
    _write_manifest(toy, manifest)
    report = verify_release(str(toy))
    assert [f for f, _ in report.problems] == ["dataset_info.json"]
    assert release.main(["verify", str(toy), str(toy.parent / "0.9.0")]) == 5
    out = capsys.readouterr().out
    assert "DAMAGED: " in out and "ok: toy 0.9.0" in out
    assert release.main(["list", str(toy.parent.parent), "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)["releases"]
    assert {e["version"]: e["status"] for e in entries} == {"0.9.0": "complete",
                                                             "1.0.0": "damaged"}
    assert release.main(["diff", str(toy.parent / "0.9.0"), str(toy), "--no-verify"]) == 5


# G18: escape sequences from a manifest ------------------------------------------------------

def test_escape_sequences_from_a_manifest_are_printed_escaped(toy, capsys):
    root = toy.parent.parent
    manifest = _manifest(toy)
    manifest["files"][f"{OSC8}.parquet"] = {"sha256": "0" * 64, "bytes": 1}
    manifest["created"] = "\x1b[2J\u202e2020"
    manifest["rows_per_split"]["\x1b[31mred\x9b0m"] = 3
    _write_manifest(toy, manifest)
    (toy.parent / "LATEST").write_text("\x1b[41mLATEST", encoding="utf-8")
    os.rename(toy.parent, root / "toy\x1b[35m")
    version_dir = root / "toy\x1b[35m" / "1.0.0"
    assert release.main(["verify", str(version_dir)]) == 5
    assert release.main(["list", str(root)]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in RAW_CONTROLS), out
    assert "\\x1b]8;;https://evil.example/\\x07click" in out
    assert "\\x1b[31mred\\x9b0m/" in out
    assert "\\x1b[2J\\u202e2020" in out and "toy\\x1b[35m" in out and "\\x1b[41mLATEST" in out
    assert release.main(["list", str(root), "--json"]) == 0
    assert release.main(["verify", str(version_dir), "--json"]) == 5
    assert capsys.readouterr().out.isascii()


# H19: LATEST is followed to any path --------------------------------------------------------

@pytest.mark.parametrize("latest", ["../elsewhere/1.0.0", "<abs>", "linked", "..", "",
                                    "0.9.0/../../elsewhere/1.0.0"])
def test_latest_must_name_a_sibling_version(toy, tmp_path, capsys, latest):
    elsewhere = write_release(tmp_path / "root", "1.0.0", ROWS, dataset="elsewhere")
    dataset_dir = toy.parent
    os.symlink(elsewhere, dataset_dir / "linked")
    (dataset_dir / "LATEST").write_text(latest.replace("<abs>", str(elsewhere)),
                                        encoding="utf-8")
    with pytest.raises(NotAReleaseError, match="LATEST"):
        resolve_release(str(dataset_dir))
    assert release.main(["verify", str(dataset_dir)]) == 2
    captured = capsys.readouterr()
    assert "ok:" not in captured.out and "LATEST" in captured.err
    predictions = tmp_path / "p.json"
    predictions.write_text("{}", encoding="utf-8")
    assert evaluate.main(["jnq", "--gold", str(dataset_dir), "--predictions",
                          str(predictions)]) == 2
    assert "LATEST" in capsys.readouterr().err
    entries = [e for e in list_releases(str(dataset_dir.parent)) if e["dataset"] == "toy"]
    assert not any(e["latest"] and e["status"] == "complete" for e in entries)
    assert {e["status"] for e in entries if e["latest"]} == {"invalid_latest"}


def test_a_sibling_latest_still_resolves(toy):
    (toy.parent / "LATEST").write_text("0.9.0\n", encoding="utf-8")
    assert resolve_release(str(toy.parent)) == str(toy.parent / "0.9.0")
    assert evaluate.resolve_latest(str(toy.parent)) == str(toy.parent / "0.9.0")
    assert evaluate.resolve_latest(str(toy / "train")) == str(toy / "train")


def test_a_latest_that_is_a_fifo_is_refused_without_blocking(toy):
    latest = toy.parent / "LATEST"
    latest.unlink()
    os.mkfifo(latest)
    outcome: list[BaseException] = []

    def resolve() -> None:
        try:
            resolve_release(str(toy.parent))
        except BaseException as error:  # noqa: BLE001 - handed to the test thread
            outcome.append(error)

    worker = threading.Thread(target=resolve, daemon=True)
    worker.start()
    worker.join(timeout=20)
    if worker.is_alive():  # unblock the reader so the thread ends, then fail
        with open(latest, "w", encoding="utf-8") as handle:
            handle.write("1.0.0")
        pytest.fail("reading a FIFO LATEST blocked")
    assert len(outcome) == 1 and isinstance(outcome[0], NotAReleaseError)


# A listed file that is a link or a FIFO (a downloaded release is input too) -----------------

def test_a_listed_file_that_is_a_link_or_a_fifo_is_damaged_and_never_read(toy, tmp_path):
    copy = tmp_path / "stats-copy.json"
    copy.write_bytes((toy / "stats.json").read_bytes())
    (toy / "stats.json").unlink()
    os.symlink(copy, toy / "stats.json")  # same bytes, same sha256: only the link differs
    os.mkfifo(toy / "README.md.fifo")
    (toy / "README.md").unlink()
    os.rename(toy / "README.md.fifo", toy / "README.md")
    outcome: list[Any] = []
    worker = threading.Thread(target=lambda: outcome.append(verify_release(str(toy))),
                              daemon=True)
    worker.start()
    worker.join(timeout=20)
    if worker.is_alive():
        with open(toy / "README.md", "wb") as handle:  # unblock the reader, then fail
            handle.write(b"x")
        pytest.fail("verify blocked on a FIFO")
    problems = dict(outcome[0].problems)
    assert "link" in problems["stats.json"] and "regular file" in problems["README.md"]
