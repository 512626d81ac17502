"""A previous release is read as it was verified: every read of the job is hashed
(``transforms.release.refresh.checked_read``), and the version being written is recognised
through a linked ``--output``."""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.cli import spec_runner
from tests.conftest import TEST_RUNNER
from tests.transforms.release.refresh.test_refresh import RUN, build, write_lines
from transforms.release.refresh import checked_read
from transforms.release.refresh.checked_read import (
    ChangedSinceVerified,
    PinnedFiles,
    read_file,
)
from transforms.release.verify import DamagedReleaseError
from transforms.sources.compressed import iter_complete_lines


def pinned(tmp_path: Path, files: dict[str, bytes]) -> PinnedFiles:
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    return PinnedFiles(str(tmp_path), {name: hashlib.sha256(data).hexdigest()
                                       for name, data in files.items()})


def test_reads_of_unchanged_files_give_their_bytes(tmp_path):
    release = pinned(tmp_path, {"a/x.jsonl": b"one\ntwo\n", "b.bin": b"\0" * 3000})
    assert release.read("a/x.jsonl") == b"one\ntwo\n"
    with release.open("a/x.jsonl") as handle:
        assert list(handle) == [b"one\n", b"two\n"]
    with release.open("b.bin") as handle:  # closed before its end: the rest is checked
        assert handle.read(10) == b"\0" * 10
    with release.seekable("b.bin") as handle:
        handle.seek(2990)
        assert handle.read() == b"\0" * 10
    assert read_file(str(tmp_path), "b.bin") == b"\0" * 3000  # a plain directory: as it is


@pytest.mark.parametrize("how", ["read", "lines", "early_close", "seekable", "gzip_lines"])
def test_a_file_changed_since_it_was_verified_fails_the_read(tmp_path, how):
    data = gzip.compress(b"one\ntwo\n") if how == "gzip_lines" else b"one\ntwo\n"
    name = "x.jsonl.gz" if how == "gzip_lines" else "x.jsonl"
    release = pinned(tmp_path, {name: data})
    changed = gzip.compress(b"one\nTWO\n") if how == "gzip_lines" else b"one\nTWO\n"
    (tmp_path / name).write_bytes(changed)  # same size, other bytes
    with pytest.raises(ChangedSinceVerified, match=f"{name} changed after the release was "
                                                   "verified") as error:
        if how == "read":
            release.read(name)
        elif how == "lines":
            with release.open(name) as handle:
                list(handle)
        elif how == "early_close":
            with release.open(name) as handle:
                handle.readline()
        elif how == "seekable":
            with release.seekable(name):
                pass
        else:
            list(iter_complete_lines(release.file(name)))
    assert isinstance(error.value, DamagedReleaseError)  # exit 5
    assert hashlib.sha256(changed).hexdigest() in str(error.value)


def test_a_file_the_manifest_did_not_list_is_never_read(tmp_path):
    release = pinned(tmp_path, {"x": b"1"})
    (tmp_path / "y").write_bytes(b"2")
    with pytest.raises(ChangedSinceVerified, match="y is not listed"):
        release.read("y")


def test_a_whole_read_is_checked_before_its_bytes_are_used(tmp_path, monkeypatch):
    """A file read whole is hashed before any byte is handed over, also when it is larger
    than one chunk."""
    monkeypatch.setattr(checked_read, "CHUNK", 7)
    release = pinned(tmp_path, {"x.parquet": b"PAR1" + b"\0" * 100})
    (tmp_path / "x.parquet").write_bytes(b"PAR1" + b"\1" * 100)
    handed = []
    with pytest.raises(ChangedSinceVerified):
        handed.append(release.read("x.parquet"))
    assert handed == []


def test_a_refresh_whose_previous_file_changes_after_the_check_publishes_nothing(
        tmp_path, capsys, monkeypatch):
    """The data file is changed between ``open_previous``'s check and the job's read (the
    wrapper runs right after the check, deterministically): exit 5, nothing published."""
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2, 3, 4])
    assert build(tmp_path, lines, "1") == 0
    shard = next((tmp_path / "r" / "toy" / "1").glob("train/*.parquet"))
    table = pq.read_table(shard)
    edited = table.set_column(1, "question", pa.array(
        ["edited after the check"] * table.num_rows, pa.string()))
    checked = spec_runner.open_previous

    def check_then_change(*args, **kwargs):
        previous = checked(*args, **kwargs)
        pq.write_table(edited, shard)  # after the verification, before the job reads it
        return previous

    monkeypatch.setattr(spec_runner, "open_previous", check_then_change)
    capsys.readouterr()
    assert build(tmp_path, lines, "2", "--previous", "auto") == 5
    err = capsys.readouterr().err
    assert f"{shard.relative_to(tmp_path / 'r' / 'toy' / '1')} changed after the release " \
           "was verified" in err
    assert "Traceback" not in err
    assert not (tmp_path / "r" / "toy" / "2").exists()
    assert (tmp_path / "r" / "toy" / "LATEST").read_text() == "1\n"


def test_the_version_being_written_is_refused_through_a_linked_output(tmp_path, capsys):
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2, 3, 4])
    assert build(tmp_path, lines, "1") == 0
    os.symlink(tmp_path / "r", tmp_path / "linked")
    before = (tmp_path / "r" / "toy" / "1" / "dataset_info.json").read_bytes()
    capsys.readouterr()
    code = RUN.main(["--input", str(lines), "--output", str(tmp_path / "linked"),
                     "--version", "1", "--overwrite", "--previous",
                     str(tmp_path / "r" / "toy" / "1"), TEST_RUNNER])
    assert code == 2
    assert "the version being written" in capsys.readouterr().err
    assert (tmp_path / "r" / "toy" / "1" / "dataset_info.json").read_bytes() == before
