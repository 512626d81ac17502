"""``annotate export --release`` accepts Google's NQ original-format files (issue 38 §8): the
tasks are those the release's own export writes for the same examples; anything that is no
set of NQ files is refused before any work (exit 2), and a bad line met later leaves no
output directory."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from pipelines import annotate
from transforms.annotation import nq_files

SPLIT = "train"  # the NQ sample's split with examples


def _tasks(out: Path) -> list[dict]:
    return [task for path in sorted((out / "nq").glob("tasks-*.json"))
            for task in json.loads(path.read_text(encoding="utf-8"))]


@pytest.fixture
def google_files(sample_releases, tmp_path) -> Path:
    """The NQ sample release's original-format files of one split, copied out as Google's
    files are: a directory of ``nq-<split>-NN.jsonl.gz``, no manifest around them."""
    directory = tmp_path / "v1.0" / SPLIT
    shutil.copytree(sample_releases["nq"] / "nq_original" / SPLIT, directory)
    return directory


def test_tasks_from_nq_files_are_the_releases_tasks(sample_releases, google_files, tmp_path):
    release = sample_releases["nq"]
    assert annotate.main(["export", "--release", str(release), "--split", SPLIT,
                          "--out", str(tmp_path / "from_release")]) == 0
    assert annotate.main(["export", "--release", str(google_files / "*.jsonl.gz"),
                          "--split", SPLIT, "--out", str(tmp_path / "from_files")]) == 0
    ours, theirs = _tasks(tmp_path / "from_files"), _tasks(tmp_path / "from_release")
    assert ours and len(ours) == len(theirs)
    manifest = json.loads((tmp_path / "from_files" / "annotation_export.json").read_text())
    fingerprint = manifest["release"]["fingerprint"]
    assert fingerprint.startswith("files-") and manifest["release"]["dataset"] == "nq"
    assert manifest["splits"] == [SPLIT] and manifest["tasks"] == {"nq": len(ours)}
    for mine, release_task in zip(ours, theirs, strict=True):
        assert mine["data"]["release"] == fingerprint
        assert {**mine["data"], "release": None} == {**release_task["data"], "release": None}


def test_plain_jsonl_and_the_default_split(google_files, tmp_path):
    plain = tmp_path / "plain" / "nq-dev-00.jsonl"
    plain.parent.mkdir()
    with gzip.open(next(google_files.glob("*.jsonl.gz")), "rb") as handle:
        plain.write_bytes(handle.read())
    result = annotate.run(["export", "--release", str(plain), "--tool", "votes",
                           "--out", str(tmp_path / "out")])
    assert result["manifest"]["splits"] == ["dev"]  # as import --input: dev unless --split
    lines = (tmp_path / "out" / "nq" / "tasks-00000.jsonl").read_text().splitlines()
    assert len(lines) == sum(1 for line in plain.read_bytes().splitlines() if line.strip())
    again = annotate.run(["export", "--release", str(plain), "--tool", "votes",
                          "--out", str(tmp_path / "again")])
    assert again["manifest"]["release"] == result["manifest"]["release"]  # same files, same id


def _refused(argv: list[str], capsys, out: Path) -> str:
    assert annotate.main([*argv, "--out", str(out)]) == 2
    assert not out.exists() and not out.with_name(f".{out.name}.partial").exists()
    return capsys.readouterr().err


def test_what_is_no_set_of_nq_files_is_refused_before_any_work(google_files, tmp_path,
                                                                capsys):
    out = tmp_path / "out"
    other = tmp_path / "other.jsonl"
    other.write_text('{"question": "not NQ"}\n')
    assert "not an NQ original-format example (no example_id" in _refused(
        ["export", "--release", str(other)], capsys, out)
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    assert "reads a release or NQ original-format .jsonl / .jsonl.gz files" in _refused(
        ["export", "--release", str(text)], capsys, out)
    assert "nor does it match NQ original-format .jsonl / .jsonl.gz files" in _refused(
        ["export", "--release", str(tmp_path / "none-*.jsonl.gz")], capsys, out)
    pattern = str(google_files / "*.jsonl.gz")
    assert "one split" in _refused(["export", "--release", pattern, "--split", "dev",
                                    "--split", "test"], capsys, out)
    assert "--previous needs a --release that is a release" in _refused(
        ["export", "--release", pattern, "--previous", "auto"], capsys, out)


def test_reads_are_bounded_and_a_late_bad_line_leaves_nothing(google_files, tmp_path, capsys,
                                                             monkeypatch):
    source = next(google_files.glob("*.jsonl.gz"))
    first = gzip.decompress(source.read_bytes()).splitlines()[0]
    monkeypatch.setattr(nq_files, "MAX_EXAMPLE_BYTES", len(first) - 1)
    assert f"an example line longer than {len(first) - 1} bytes" in _refused(
        ["export", "--release", str(source)], capsys, tmp_path / "out")
    monkeypatch.undo()
    late = tmp_path / "late.jsonl"
    late.write_bytes(first + b"\n{broken\n")
    message = _refused(["export", "--release", str(late)], capsys, tmp_path / "out")
    assert f"{late}:2: not JSON" in message
