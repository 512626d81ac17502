"""Two ``--previous auto`` refreshes at once: the second is refused before any work, a run
published in between refuses the first at publish, and ``LATEST`` never moves backwards. The
runs are interleaved deterministically: the second starts from inside the first, right after
the first resolved its previous release."""

from __future__ import annotations

import json
import os

import pytest

from pipelines.cli import spec_runner
from tests.transforms.release.refresh.test_refresh import build, write_lines
from transforms.release import locks
from transforms.release.locks import LockHeld, take_lock
from transforms.release.refresh.lock import REFRESH_LOCK


def manifest(version_dir) -> dict:
    return json.loads((version_dir / "dataset_info.json").read_text("utf-8"))


def during_first(monkeypatch, second):
    """Run ``second()`` once, inside the first run, just after it opened its previous
    release (its lock held, its previous resolved); returns what ``second`` returned."""
    opened, results = spec_runner.open_previous, []

    def open_then_second(*args, **kwargs):
        previous = opened(*args, **kwargs)
        if not results:
            results.append(None)
            results[0] = second()
        return previous

    monkeypatch.setattr(spec_runner, "open_previous", open_then_second)
    return results


def test_a_second_refresh_with_previous_auto_is_refused_while_one_runs(
        tmp_path, capsys, monkeypatch):
    root = tmp_path / "r" / "toy"
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2, 3, 4])
    assert build(tmp_path, lines, "1") == 0
    capsys.readouterr()
    second = during_first(monkeypatch, lambda: build(tmp_path, lines, "3", "--previous",
                                                     "auto"))
    assert build(tmp_path, lines, "2", "--previous", "auto") == 0
    assert second == [2]
    err = capsys.readouterr().err
    assert "--previous auto: another refresh of toy is running (version 2, pid " in err
    assert f"lock {root / REFRESH_LOCK}" in err and "Run again once it has published" in err
    assert not (root / "3").exists()
    assert not (root / REFRESH_LOCK).exists()  # released when the first published
    monkeypatch.undo()
    assert build(tmp_path, lines, "3", "--previous", "auto") == 0  # now: built on 2
    assert manifest(root / "2")["previous"]["version"] == "1"
    assert manifest(root / "3")["previous"]["version"] == "2"
    assert (root / "LATEST").read_text() == "3\n"


def test_a_refresh_is_not_published_once_latest_moved_under_it(tmp_path, capsys, monkeypatch):
    """A build without ``--previous auto`` (no refresh lock) publishes 3 while the refresh to
    2 runs on 1: the refresh is refused at publish, nothing of it is published."""
    root = tmp_path / "r" / "toy"
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2, 3, 4])
    assert build(tmp_path, lines, "1") == 0
    second = during_first(monkeypatch, lambda: build(tmp_path, lines, "3"))
    capsys.readouterr()
    assert build(tmp_path, lines, "2", "--previous", "auto") == 2  # one line, no traceback
    assert second == [0]
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert ("toy 2 was built on 1 (--previous auto), but LATEST now names 3: another run "
            "published since this one started") in err
    assert not (root / "2").exists()
    assert (root / "LATEST").read_text() == "3\n"
    assert not [name for name in os.listdir(root) if name.endswith(".lock")]


def test_latest_never_moves_back_to_a_lower_version(tmp_path):
    root = tmp_path / "r" / "toy"
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2, 3, 4])
    assert build(tmp_path, lines, "1.10.0") == 0
    assert build(tmp_path, lines, "1.9.0") == 0  # published, LATEST stays
    assert (root / "LATEST").read_text() == "1.10.0\n"
    assert "1.10.0/" in (root / "README.md").read_text()
    assert build(tmp_path, lines, "1.9.0", "--overwrite") == 0
    assert (root / "LATEST").read_text() == "1.10.0\n"


def test_a_stale_refresh_lock_is_taken_over(tmp_path):
    """A killed run's lock file holds no ``flock``: the next run takes it over and removes
    it when done."""
    root = tmp_path / "r" / "toy"
    lines = write_lines(tmp_path / "in.jsonl", [0, 1, 2])
    assert build(tmp_path, lines, "1") == 0
    (root / REFRESH_LOCK).write_text(json.dumps({"pid": 999999, "version": "2"}))
    assert build(tmp_path, lines, "2", "--previous", "auto") == 0
    assert not (root / REFRESH_LOCK).exists()


def test_a_held_lock_names_its_holder_and_waits_no_longer_than_asked(tmp_path):
    path = str(tmp_path / "x.lock")
    held = take_lock(path, {"pid": 1, "host": "h", "version": "3", "since": "then"})
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    with pytest.raises(LockHeld, match=r"held by version 3, pid 1 on host h, since then"):
        take_lock(path, {}, wait=1.0, clock=lambda: now[0], sleep=sleep)
    assert now[0] >= 1.0
    held.release()
    again = take_lock(path, {"pid": 2})
    assert json.loads(open(path).read()) == {"pid": 2}
    again.release()
    assert not os.path.exists(path)


def test_a_lock_path_that_is_a_link_is_refused(tmp_path):
    (tmp_path / "elsewhere").write_text("")
    os.symlink(tmp_path / "elsewhere", tmp_path / "x.lock")
    with pytest.raises(OSError):
        take_lock(str(tmp_path / "x.lock"), {})
    assert locks.MAX_REOPENS > 1 and (tmp_path / "elsewhere").read_text() == ""
