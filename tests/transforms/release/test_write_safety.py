"""Nothing outside a release is ever followed, replaced or deleted (issue 23 §1, §3); LATEST
problems are reported precisely and repaired (§21, §22); a read-only output is a usage error
before any work (§23)."""

from __future__ import annotations

import errno
import os
import time

import pytest

from pipelines.cli.entry import cli_main
from pipelines.cli.errors import EXIT_OK, EXIT_RELEASE_EXISTS, EXIT_USAGE
from tests.transforms.release.toy import SCHEMA, run_toy
from transforms.release import (
    InvalidReleaseName,
    InvalidReleaseRoot,
    ReleaseTarget,
    ensure_empty_splits,
    latest_path,
)
from transforms.release.commit import finalize_release, read_latest
from transforms.release.staging import clean_abandoned

DAY = 24 * 3600


def _scratch(tmp_path) -> tuple[str, dict[str, str]]:
    """A user's folder, every entry two days old: ``{relative path: content}``."""
    scratch = tmp_path / "scratch"
    files = {"notes.txt": "notes", "projectA/main.py": "code", "thesis/ch1.tex": "text"}
    for name, content in files.items():
        (scratch / name).parent.mkdir(parents=True, exist_ok=True)
        (scratch / name).write_text(content)
    old = time.time() - 2 * DAY
    for directory, dirs, names in os.walk(scratch):
        for name in dirs + names:
            os.utime(os.path.join(directory, name), (old, old))
    return str(scratch), files


def _intact(scratch: str, files: dict[str, str]) -> bool:
    return all(open(os.path.join(scratch, name)).read() == content
               for name, content in files.items())


def _raw_target(root, dataset="toy", version="1.0.0") -> ReleaseTarget:
    """A target built without ``create``'s up-front checks (as a worker rebuilds it)."""
    return ReleaseTarget(str(root), dataset, version, "0123456789ab")


def test_symlinked_staging_is_refused_before_any_work_and_never_followed(tmp_path):
    scratch, files = _scratch(tmp_path)
    out = tmp_path / "out"
    (out / "toy").mkdir(parents=True)
    os.symlink(scratch, out / "toy" / ".staging")

    with pytest.raises(InvalidReleaseRoot, match="symbolic link"):
        run_toy(out, ["a"])
    with pytest.raises(InvalidReleaseRoot, match="symbolic link"):
        clean_abandoned(_raw_target(out))
    assert _intact(scratch, files)
    assert sorted(os.listdir(scratch)) == ["notes.txt", "projectA", "thesis"]
    assert cli_main(lambda argv: run_toy(out, ["a"]), str, []) == EXIT_USAGE


def test_symlinked_dataset_directory_is_never_replaced_through(tmp_path):
    victim = tmp_path / "victim"
    (victim / "1.0.0").mkdir(parents=True)
    (victim / "1.0.0" / "data.csv").write_text("not a release")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / "toy")

    with pytest.raises(InvalidReleaseRoot, match="symbolic link"):
        run_toy(out, ["a"], overwrite=True)
    target = _raw_target(out)
    with pytest.raises(InvalidReleaseRoot):
        finalize_release(target, overwrite=True, manifest=b"{}")
    assert (victim / "1.0.0" / "data.csv").read_text() == "not a release"
    assert sorted(os.listdir(victim)) == ["1.0.0"]


def test_overwrite_replaces_only_a_directory_that_carries_our_manifest(tmp_path):
    out = tmp_path / "out"
    foreign = out / "toy" / "1.0.0"
    foreign.mkdir(parents=True)
    (foreign / "data").mkdir()
    (foreign / "keep.txt").write_text("mine")
    with pytest.raises(InvalidReleaseRoot, match="not a release"):
        run_toy(out, ["a"], overwrite=True)
    assert (foreign / "keep.txt").read_text() == "mine"
    # a manifest that is a link to somewhere else does not make it ours either
    (tmp_path / "fake.json").write_text("{}")
    os.symlink(tmp_path / "fake.json", foreign / "dataset_info.json")
    with pytest.raises(InvalidReleaseRoot, match="not a release"):
        run_toy(out, ["a"], overwrite=True)
    assert (foreign / "keep.txt").read_text() == "mine"
    # a real release is still replaced
    os.remove(foreign / "dataset_info.json")
    other = out / "toy" / "2.0.0"
    run_toy(out, ["a"], version="2.0.0")
    again = run_toy(out, ["b", "c"], version="2.0.0", overwrite=True)
    assert again["manifest"]["rows_per_split"] == {"train": 2}
    assert other.is_dir()


def test_check_inside_never_resolves_links(tmp_path):
    target = ReleaseTarget.create(str(tmp_path / "out"), "toy", "1.0.0")
    os.makedirs(target.staging_root)
    target.check_inside(target.final_dir)
    target.check_inside(target.staging_dir, target.staging_root)
    for path in (target.dataset_dir, os.path.join(target.dataset_dir, "..", "x"),
                 os.path.join(target.final_dir, "deeper"), str(tmp_path)):
        with pytest.raises(InvalidReleaseRoot):
            target.check_inside(path)


def test_a_link_planted_in_staging_is_removed_not_followed(tmp_path):
    scratch, files = _scratch(tmp_path)
    target = ReleaseTarget.create(str(tmp_path / "out"), "toy", "1.0.0")
    os.makedirs(target.staging_root)
    planted = os.path.join(target.staging_root, "0.1.0-0123456789ab")
    os.symlink(scratch, planted)
    old = time.time() - 2 * DAY
    os.utime(planted, (old, old), follow_symlinks=False)
    clean_abandoned(target)
    assert not os.path.lexists(planted)
    assert _intact(scratch, files)


def test_staging_and_shards_refuse_group_names_that_are_not_plain(tmp_path):
    target = ReleaseTarget.create(str(tmp_path / "out"), "toy", "1.0.0")
    for bad in ("../../x", "/abs", "a/b", "..", "."):
        with pytest.raises(InvalidReleaseName):
            ensure_empty_splits(target.staging_dir, ["train", bad], SCHEMA)
    assert not (tmp_path / "x").exists()


def _failing_latest(monkeypatch):
    import transforms.release.commit as commit

    real = commit._write_latest_file

    def no_space(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(commit, "_write_latest_file", no_space)
    return lambda: monkeypatch.setattr(commit, "_write_latest_file", real)


def test_latest_failing_after_publish_is_reported_and_repaired(tmp_path, monkeypatch, capsys):
    from pipelines.cli.errors import EXIT_LATEST_NOT_UPDATED
    from transforms.release.commit import LatestNotUpdatedError

    run_toy(tmp_path, ["a"], version="1.0.0")
    restore = _failing_latest(monkeypatch)
    with pytest.raises(LatestNotUpdatedError, match="published.*LATEST"):
        run_toy(tmp_path, ["a", "b"], version="2.0.0")
    assert cli_main(lambda argv: run_toy(tmp_path, ["a"], version="3.0.0"), str, []) == (
        EXIT_LATEST_NOT_UPDATED)
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "3.0.0" in err and "--skip-existing" in err and "No space left" in err
    restore()
    assert os.path.exists(os.path.join(tmp_path, "toy", "3.0.0", "dataset_info.json"))
    assert read_latest(str(tmp_path), "toy") == "1.0.0"
    assert cli_main(lambda argv: run_toy(tmp_path, ["a"], version="3.0.0"), str, []) == (
        EXIT_RELEASE_EXISTS)
    assert cli_main(lambda argv: run_toy(tmp_path, ["a"], version="3.0.0",
                                         skip_existing=True), str, []) == EXIT_OK
    assert read_latest(str(tmp_path), "toy") == "3.0.0"
    assert not [n for n in os.listdir(tmp_path / "toy") if n.endswith(".tmp")]


def test_stale_latest_temporaries_are_removed(tmp_path):
    run_toy(tmp_path, ["a"])
    dataset = tmp_path / "toy"
    stale, fresh, foreign = (dataset / "LATEST.aaaaaaaaaaaa.tmp",
                             dataset / "LATEST.bbbbbbbbbbbb.tmp", dataset / "LATEST.notes.tmp")
    for path in (stale, fresh, foreign):
        path.write_text("0.9.0\n")
    old = time.time() - 2 * DAY
    os.utime(stale, (old, old))
    os.utime(foreign, (old, old))
    clean_abandoned(ReleaseTarget.create(str(tmp_path), "toy", "2.0.0"))
    assert not stale.exists()
    assert fresh.exists()  # may belong to a run writing it right now
    assert foreign.exists()  # not a name we write
    assert open(latest_path(str(tmp_path), "toy")).read() == "1.0.0\n"


def test_read_only_output_is_a_usage_error_before_any_work(tmp_path, monkeypatch, capsys):
    import transforms.release.staging as staging

    out = tmp_path / "out"
    out.mkdir()

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(out))

    monkeypatch.setattr(staging.os, "makedirs", read_only)
    assert cli_main(lambda argv: run_toy(out, ["a"]), str, []) == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "not writable" in err
    assert os.listdir(out) == []


def test_unwritable_output_is_refused_up_front(tmp_path, monkeypatch):
    import transforms.release.target as target_module

    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(target_module.os, "access", lambda path, mode: False)
    with pytest.raises(InvalidReleaseRoot, match="not writable"):
        run_toy(out, ["a"])
    assert os.listdir(out) == []


def test_a_relative_output_that_does_not_exist_yet_is_writable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_toy("releases", ["a"])  # the README's commands: --output releases, in a fresh checkout
    assert (tmp_path / "releases" / "toy" / "LATEST").is_file()


def test_skip_existing_works_on_a_read_only_output(tmp_path, monkeypatch):
    import transforms.release.target as target_module

    first = run_toy(tmp_path, ["a"])
    monkeypatch.setattr(target_module.os, "access", lambda path, mode: False)
    again = run_toy(tmp_path, ["b"], skip_existing=True)
    assert again["manifest"]["run_id"] == first["manifest"]["run_id"]


def test_a_fifo_or_link_named_latest_is_never_opened(tmp_path):
    dataset = tmp_path / "toy"
    (dataset / "1.0.0").mkdir(parents=True)
    os.mkfifo(dataset / "LATEST")  # opening it for reading would block forever
    assert read_latest(str(tmp_path), "toy") is None
    (dataset / "LATEST").unlink()
    (tmp_path / "elsewhere").write_text("1.0.0")
    (dataset / "LATEST").symlink_to(tmp_path / "elsewhere")
    assert read_latest(str(tmp_path), "toy") is None
    (dataset / "LATEST").unlink()
    (dataset / "LATEST").write_text("1.0.0\n")
    assert read_latest(str(tmp_path), "toy") == "1.0.0"
