"""A refresh (``--previous``) on the toy dataset (``tests/pipelines/toy``): what every builder
gets from ``transforms.release.refresh`` and the spec runner, independent of its stages."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pytest

from pipelines import release
from pipelines.cli.spec_runner import entry_points
from tests.conftest import TEST_RUNNER
from tests.pipelines.refresh_checks import read_json as read
from tests.pipelines.refresh_checks import rows_by_id
from tests.pipelines.toy import spec as toy
from tests.pipelines.toy.spec import SPEC
from transforms.release.lineage import release_fingerprint

RUN = entry_points(SPEC)
QUESTIONS = ["who wrote the toy", "why", "what is the capital of toy land", "toy?",
             "when was it made", "where do toys come from", "how many toys are there"]


def write_lines(path: Path, ids: list[int]) -> Path:
    path.write_text("".join(json.dumps({"id": f"q{i}", "question": QUESTIONS[i]}) + "\n"
                            for i in ids), encoding="utf-8")
    return path


def build(tmp_path: Path, lines: Path, version: str, *extra: str) -> int:
    return RUN.main(["--input", str(lines), "--output", str(tmp_path / "r"),
                     "--version", version, *extra, TEST_RUNNER])


def data_files(version_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(version_dir)): p.read_bytes()
            for p in sorted(version_dir.glob("*/*.parquet"))}


def test_a_refresh_carries_unchanged_rows_and_counts_new_and_removed(tmp_path, capsys):
    root = tmp_path / "r" / "toy"
    assert build(tmp_path, write_lines(tmp_path / "v1.jsonl", [0, 1, 2, 3, 4]), "1") == 0
    lines = write_lines(tmp_path / "v2.jsonl", [0, 2, 3, 5, 6])  # q4 gone, q5 q6 new
    capsys.readouterr()
    assert build(tmp_path, lines, "2", "--previous", "auto") == 0
    out = capsys.readouterr().out
    before, after = rows_by_id(root / "1"), rows_by_id(root / "2")
    assert set(after) == {"q0", "q2", "q5", "q6"}
    for key in ("q0", "q2"):
        assert after[key] == before[key]  # same split, same values
    stats = read(root / "2", "stats.json")
    refresh = stats["refresh"]
    assert (refresh["carried"], refresh["new"], refresh["recomputed"], refresh["removed"]) \
        == (2, 2, 0, 1)
    assert refresh["inputs_carried"] == 2
    assert stats["counts"]["questions"]["read"] == 3  # q3, q5, q6: carried lines not read
    fingerprint = release_fingerprint((root / "1" / "dataset_info.json").read_bytes())
    assert read(root / "2", "dataset_info.json")["previous"] == {
        "dataset": "toy", "version": "1", "fingerprint": fingerprint}
    assert refresh["previous"]["fingerprint"] == fingerprint
    assert refresh["changes"]["moved_between_splits"]["count"] == 0
    card = (root / "2" / "README.md").read_text(encoding="utf-8")
    assert "## Changes since toy 1" in card and "| carried | 2 |" in card
    assert "No row moved between splits." in card
    assert f"built on:              toy 1 ({fingerprint})" in out
    assert "rows carried 2, recomputed 0, new 2, removed 1" in out
    assert release.main(["verify", str(root / "2")]) == 0
    capsys.readouterr()
    assert release.main(["list", str(tmp_path / "r")]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert any(" 2 " in line and "(built on 1)" in line for line in listing)
    assert not any(" 1 " in line and "built on" in line for line in listing)


def test_a_refresh_of_unchanged_inputs_writes_the_full_builds_bytes(tmp_path):
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2, 3, 4, 5, 6])
    assert build(tmp_path, lines, "1") == 0
    assert build(tmp_path, lines, "2", "--previous", str(tmp_path / "r" / "toy")) == 0
    assert build(tmp_path, lines, "3") == 0
    root = tmp_path / "r" / "toy"
    assert data_files(root / "2") == data_files(root / "3") == data_files(root / "1")
    refresh = read(root / "2", "stats.json")["refresh"]
    assert refresh["carried"] == 5 and refresh["new"] == refresh["removed"] == 0
    assert read(root / "2", "stats.json")["refresh"]["changes"]["identical_rows"] is True


def test_a_changed_row_option_is_refused_unless_recompute_all(tmp_path, capsys):
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2, 3, 4])
    assert build(tmp_path, lines, "1") == 0
    capsys.readouterr()
    assert build(tmp_path, lines, "2", "--previous", "auto", "--min-words", "1") == 2
    err = capsys.readouterr().err
    assert "--min-words was 3, now 1" in err and "--recompute-all" in err
    assert not (tmp_path / "r" / "toy" / "2").exists()
    assert build(tmp_path, lines, "2", "--previous", "auto", "--min-words", "1",
                 "--recompute-all") == 0
    refresh = read(tmp_path / "r" / "toy" / "2", "stats.json")["refresh"]
    assert refresh["recompute_all"] is True
    assert (refresh["carried"], refresh["recomputed"], refresh["new"]) == (0, 3, 2)
    assert "every row was recomputed" in (tmp_path / "r" / "toy" / "2" / "README.md").read_text()


def test_options_that_do_not_change_rows_may_change(tmp_path):
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2])
    assert build(tmp_path, lines, "1") == 0
    other = shutil.copy(lines, tmp_path / "elsewhere.jsonl")  # --input moves: rows=False
    assert build(tmp_path, Path(other), "2", "--previous", "auto") == 0


@pytest.mark.parametrize("damage, code, message", [
    ("checksum", 5, "does not match its manifest"),
    ("dataset", 2, "is a release of 'other', not 'toy'"),
    ("schema", 2, "has another schema (columns question)"),
])
def test_a_previous_release_it_cannot_build_on_is_refused_before_any_work(
        tmp_path, capsys, monkeypatch, damage, code, message):
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2, 3, 4])
    assert build(tmp_path, lines, "1") == 0
    version = tmp_path / "r" / "toy" / "1"
    manifest = read(version, "dataset_info.json")
    if damage == "checksum":
        shard = next(version.glob("train/*.parquet"))
        shard.write_bytes(shard.read_bytes()[:-1] + b"X")
    elif damage == "dataset":
        manifest["dataset"] = "other"
        (version / "dataset_info.json").write_text(json.dumps(manifest), encoding="utf-8")
        (version / "SHA256SUMS").unlink()  # an intact release of another dataset
    else:  # this code writes another schema than the one the previous release has
        other = pa.schema([("id", pa.string()), ("question", pa.large_string())])
        monkeypatch.setattr(toy, "RELEASE", replace(toy.RELEASE, schema=other))
    capsys.readouterr()
    assert build(tmp_path, lines, "2", "--previous", str(version)) == code
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r" / "toy" / "2").exists()


def test_refusals_of_the_refresh_options(tmp_path, capsys):
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2, 3, 4])
    assert build(tmp_path, lines, "1", "--recompute-all") == 2
    assert "--recompute-all only applies with --previous" in capsys.readouterr().err
    assert build(tmp_path, lines, "1", "--previous", str(tmp_path / "nowhere")) == 2
    assert "is not a release directory" in capsys.readouterr().err
    assert build(tmp_path, lines, "1") == 0
    assert build(tmp_path, lines, "1", "--previous", "auto", "--overwrite") == 2
    assert "the version being written" in capsys.readouterr().err


def test_previous_auto_without_a_latest_is_a_full_build(tmp_path):
    assert build(tmp_path, write_lines(tmp_path / "in.jsonl", [0, 2]), "1",
                 "--previous", "auto") == 0
    version = tmp_path / "r" / "toy" / "1"
    assert "previous" not in read(version, "dataset_info.json")
    assert "refresh" not in read(version, "stats.json")
