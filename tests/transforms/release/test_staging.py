"""Abandoned staging directories are removed; live ones (concurrent runs) never are."""

import json
import os
import socket
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

from tests.fakes.object_store import local_path, use_bucket
from tests.transforms.release.toy import SCHEMA, run_toy
from transforms.release import ReleaseTarget, ensure_empty_splits, latest_path, write_bytes
from transforms.release.staging import DEFAULT_STALE_AFTER, claim_staging, clean_abandoned
from transforms.release.target import MANIFEST

DAY = 24 * 3600


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _staged(root, version="1.0.0", **owner) -> ReleaseTarget:
    """A staged run; ``owner`` overrides fields of its ownership marker (None: no marker)."""
    target = ReleaseTarget.create(str(root), "toy", version)
    ensure_empty_splits(target.staging_dir, ["train"], SCHEMA)
    if owner.get("marker", True):
        claim_staging(target)
        marker = target.staging_dir + ".owner"
        content = json.loads(open(marker).read())
        content.update({k: v for k, v in owner.items() if k != "marker"})
        with open(marker, "w") as handle:
            json.dump(content, handle)
    return target


def _age(path, seconds):
    old = time.time() - seconds
    for directory, _, files in os.walk(path):
        for name in files:
            os.utime(os.path.join(directory, name), (old, old))
        os.utime(directory, (old, old))


def test_only_abandoned_staging_directories_are_removed(tmp_path):
    dead_here = _staged(tmp_path, pid=_dead_pid())
    live_here = _staged(tmp_path)  # a concurrent build of the same version, still running
    reused_pid = _staged(tmp_path, pid=os.getpid(), started=1.0)
    fresh_unowned = _staged(tmp_path, marker=False)
    old_unowned = _staged(tmp_path, marker=False)
    _age(old_unowned.staging_dir, 2 * DAY)
    old_remote = _staged(tmp_path, host="worker-elsewhere", started=time.time() - 2 * DAY)
    young_remote = _staged(tmp_path, host="worker-elsewhere", started=time.time() - 60)

    removed = clean_abandoned(ReleaseTarget.create(str(tmp_path), "toy", "1.0.0"))

    gone = [dead_here, old_unowned, old_remote]
    if os.path.exists("/proc/self/stat"):
        gone.append(reused_pid)
    kept = [live_here, fresh_unowned, young_remote]
    assert removed == len(gone)
    assert not any(os.path.exists(t.staging_dir) for t in gone)
    assert not any(os.path.exists(t.staging_dir + ".owner") for t in gone)
    assert all(os.path.exists(t.staging_dir) for t in kept)
    assert socket.gethostname() != "worker-elsewhere"


def test_stale_after_is_configurable(tmp_path):
    unowned = _staged(tmp_path, marker=False)
    other = ReleaseTarget.create(str(tmp_path), "toy", "1.0.0")
    assert clean_abandoned(other, stale_after=DEFAULT_STALE_AFTER) == 0
    assert clean_abandoned(other, stale_after=-1) == 1
    assert not os.path.exists(unowned.staging_dir)
    assert not os.path.exists(os.path.join(tmp_path, "toy", ".staging"))


def test_run_removes_abandoned_staging_and_counts_it_in_stats(tmp_path):
    killed = _staged(tmp_path, "0.9.0", pid=_dead_pid())
    result = run_toy(tmp_path, ["a"])
    assert not os.path.exists(killed.staging_dir)
    assert result["stats"]["release"] == {"abandoned_staging_removed": 1}
    assert not os.path.exists(os.path.join(tmp_path, "toy", ".staging"))
    again = run_toy(tmp_path, ["a"], version="1.0.1")
    assert "release" not in again["stats"]


KILLED_OVERWRITE = """
import os, sys
from transforms.release import ReleaseTarget, ensure_empty_splits
from transforms.release.commit import finalize_release
from transforms.release.staging import claim_staging
from tests.transforms.release.toy import SCHEMA

target = ReleaseTarget.create(sys.argv[1], "toy", "1.0.0")
ensure_empty_splits(target.staging_dir, ["train"], SCHEMA)
claim_staging(target)
rename = os.rename

def rename_then_die(source, destination):
    if source == target.staging_dir:
        os._exit(9)  # killed between retiring the old version and moving the new one in
    rename(source, destination)

os.rename = rename_then_die
finalize_release(target, overwrite=True, manifest=b'{"second": 2}')
"""


def test_overwrite_killed_between_renames_is_restored_by_the_next_run(tmp_path):
    first = run_toy(tmp_path, ["a", "b"])
    final = first["path"]
    killed = subprocess.run([sys.executable, "-c", KILLED_OVERWRITE, str(tmp_path)],
                            cwd=os.getcwd(), check=False)
    assert killed.returncode == 9
    assert not os.path.exists(final)  # the old version is retired, the new one not in place
    leftovers = os.listdir(os.path.join(tmp_path, "toy", ".staging"))
    assert any(name.endswith(".replaced") for name in leftovers)

    again = run_toy(tmp_path, ["c"], skip_existing=True)
    assert again["manifest"]["run_id"] == first["manifest"]["run_id"]
    assert pq.read_table(os.path.join(final, "train")).num_rows == 2
    assert os.path.exists(os.path.join(final, MANIFEST))
    assert not os.path.exists(os.path.join(tmp_path, "toy", ".staging"))
    assert open(latest_path(str(tmp_path), "toy")).read() == "1.0.0\n"


@pytest.mark.parametrize("fail_rollback", [False, True])
def test_overwrite_failing_between_renames_keeps_the_old_version(tmp_path, monkeypatch,
                                                                 fail_rollback):
    import transforms.release.commit as commit

    first = run_toy(tmp_path, ["a", "b"])
    rename, calls = os.rename, []

    def flaky(source, destination):
        calls.append(source)
        if len(calls) == 2 or (fail_rollback and len(calls) == 3):
            raise OSError("simulated crash")
        rename(source, destination)

    monkeypatch.setattr(commit.os, "rename", flaky)
    with pytest.raises(Exception, match="simulated crash"):
        run_toy(tmp_path, ["c"], overwrite=True)
    monkeypatch.setattr(commit.os, "rename", rename)
    assert pq.read_table(os.path.join(first["path"], "train")).num_rows == 2
    assert json.loads(open(os.path.join(first["path"], MANIFEST)).read())["run_id"] == (
        first["manifest"]["run_id"])
    assert not os.path.exists(os.path.join(tmp_path, "toy", ".staging"))


BUCKET = "fakegs://releases"


def _remote_staged(dataset="toy", mtime=None, **owner) -> ReleaseTarget:
    """A run staged on the fake object store (two objects); ``owner`` is its ownership
    marker's content (none when empty); ``mtime`` sets the objects' modification time."""
    target = ReleaseTarget.create(BUCKET, dataset, "1.0.0")
    objects = [f"{target.staging_dir}/train/part-0.parquet", f"{target.staging_dir}/stats.json"]
    if owner:
        objects.append(target.staging_dir + ".owner")
        write_bytes(objects[-1], json.dumps({"run_id": target.run_id, **owner}).encode())
    for name in objects[:2]:
        write_bytes(name, b"x")
    if mtime is not None:
        for name in objects:
            os.utime(local_path(name), (mtime, mtime))
    return target


def _objects(bucket, target) -> list[str]:
    staging = local_path(target.staging_root)
    stem = os.path.basename(target.staging_dir)
    return sorted(os.path.relpath(os.path.join(d, f), bucket)
                  for d, _, files in os.walk(staging) for f in files
                  if os.path.relpath(os.path.join(d, f), staging).startswith(stem))


def test_object_store_staging_is_removed_by_age_and_live_runs_are_kept(tmp_path):
    bucket = tmp_path / "bucket"
    use_bucket(bucket)
    then = time.time()
    now = then + 2 * DAY  # every entry below is two days old, unless made fresh
    fresh = now - 60
    here = socket.gethostname()
    old_remote = _remote_staged(host="worker-elsewhere", pid=1, started=then)
    old_unowned = _remote_staged(mtime=then)
    dead_here_old = _remote_staged(host=here, pid=_dead_pid(), started=then)
    young_remote = _remote_staged(host="worker-elsewhere", pid=1, started=fresh)
    fresh_unowned = _remote_staged(mtime=fresh)
    # a dead launcher of this host may have left a Dataflow job running: kept while young
    dead_here_young = _remote_staged(host=here, pid=_dead_pid(), started=fresh)
    # a concurrent run of this host, still running: never touched, however old
    live_here = _remote_staged(host=here, pid=os.getpid(), started=then)
    other_dataset = _remote_staged(dataset="toy2", host="worker-elsewhere", pid=1, started=then)
    published = "fakegs://releases/toy/0.9.0/MANIFEST.json"
    write_bytes(published, b"{}")
    os.utime(local_path(published), (then, then))
    gone = [old_remote, old_unowned, dead_here_old]
    kept = [young_remote, fresh_unowned, dead_here_young, live_here]
    before = {t.run_id: _objects(bucket, t) for t in gone + kept + [other_dataset]}
    assert all(len(files) >= 2 for files in before.values())

    removed = clean_abandoned(ReleaseTarget.create(BUCKET, "toy", "1.0.0"), now=now)

    assert removed == len(gone)
    assert all(_objects(bucket, t) == [] for t in gone)  # markers included
    assert all(_objects(bucket, t) == before[t.run_id] for t in kept + [other_dataset])
    assert os.path.exists(local_path(published))
    # nothing left to do: a second pass removes nothing
    assert clean_abandoned(ReleaseTarget.create(BUCKET, "toy", "1.0.0"), now=now) == 0


def test_object_store_without_staging_and_own_entries(tmp_path):
    use_bucket(tmp_path / "bucket")
    assert clean_abandoned(ReleaseTarget.create(BUCKET, "toy", "1.0.0")) == 0
    mine = _remote_staged(mtime=time.time() - 2 * DAY)
    assert clean_abandoned(mine) == 0  # a run's own staging is never abandoned
    assert clean_abandoned(ReleaseTarget.create(BUCKET, "toy", "1.0.0")) == 1
    assert not os.path.exists(local_path(mine.staging_root))


def test_object_store_replaced_prefix_is_removed(tmp_path):
    use_bucket(tmp_path / "bucket")
    old = time.time() - 2 * DAY
    target = _remote_staged(host="worker-elsewhere", pid=1, started=old)
    retired = target.staging_dir + ".replaced/train/part-0.parquet"
    write_bytes(retired, b"x")
    os.utime(local_path(retired), (old, old))
    assert clean_abandoned(ReleaseTarget.create(BUCKET, "toy", "1.0.0")) == 2
    assert not os.path.exists(local_path(retired))
    assert not os.path.exists(local_path(target.staging_root))


def test_failed_run_on_an_object_store_discards_its_staging(tmp_path):
    from transforms.release.commit import discard_staging

    use_bucket(tmp_path / "bucket")
    target = ReleaseTarget.create(BUCKET, "toy", "1.0.0")
    for name in ("train/train-00000-of-00001.parquet", "_tallies.json"):
        write_bytes(f"{target.staging_dir}/{name}", b"x")
    discard_staging(target)
    assert not os.path.exists(local_path(target.staging_dir))
    assert not os.path.exists(local_path(f"{BUCKET}/toy/1.0.0"))
