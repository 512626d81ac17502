"""Committing a staged release: into place, never over a version, LATEST, object stores."""

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from transforms.release import ReleaseExistsError, ReleaseTarget, ensure_empty_splits
from transforms.release.commit import discard_staging, finalize_release

SCHEMA = pa.schema([pa.field("id", pa.string()), pa.field("n", pa.int32())])


def _staged(tmp_path, version="1.0.0"):
    target = ReleaseTarget.create(str(tmp_path), "toy", version)
    ensure_empty_splits(target.staging_dir, ["train", "test"], SCHEMA)
    return target


def test_finalize_moves_staging_into_place(tmp_path):
    target = _staged(tmp_path)
    assert not os.path.exists(target.final_dir)
    path = finalize_release(target, overwrite=False, manifest=b"{}")
    assert path == target.final_dir
    assert sorted(os.listdir(path)) == ["SHA256SUMS", "dataset_info.json", "test", "train"]
    assert pq.read_table(os.path.join(path, "train")).num_rows == 0
    assert not os.path.exists(os.path.join(tmp_path, "toy", ".staging"))


def test_existing_version_is_never_overwritten_without_flag(tmp_path):
    finalize_release(_staged(tmp_path), overwrite=False, manifest=b'{"first": 1}')
    second = _staged(tmp_path)
    with pytest.raises(ReleaseExistsError):
        second.check_writable(overwrite=False)
    with pytest.raises(ReleaseExistsError):
        finalize_release(second, overwrite=False, manifest=b'{"second": 2}')
    final = os.path.join(second.final_dir, "dataset_info.json")
    assert open(final).read() == '{"first": 1}'


def test_overwrite_replaces_whole_version(tmp_path):
    first = _staged(tmp_path)
    with open(os.path.join(first.staging_dir, "stale.txt"), "w") as handle:
        handle.write("old")
    finalize_release(first, overwrite=False, manifest=b"{}")
    finalize_release(_staged(tmp_path), overwrite=True, manifest=b'{"new": 1}')
    assert not os.path.exists(os.path.join(first.final_dir, "stale.txt"))
    assert open(os.path.join(first.final_dir, "dataset_info.json")).read() == '{"new": 1}'


def test_discard_staging_leaves_nothing(tmp_path):
    target = _staged(tmp_path)
    discard_staging(target)
    assert not os.path.exists(target.staging_dir)
    assert not os.path.exists(target.final_dir)


def test_latest_pointer_and_retried_publish_are_safe(tmp_path):
    from transforms.release import latest_path

    target = _staged(tmp_path, "2.0.0")
    finalize_release(target, overwrite=False, manifest=b'{"run_id": "%s"}' % (
        target.run_id.encode()))
    latest = latest_path(str(tmp_path), "toy")
    assert open(latest).read() == "2.0.0\n"
    # the publish step is retried after it succeeded: nothing to move, no error
    assert finalize_release(target, overwrite=False, manifest=b"{}") == target.final_dir
    # another run of the same version is still refused
    with pytest.raises(ReleaseExistsError):
        finalize_release(_staged(tmp_path, "2.0.0"), overwrite=False, manifest=b"{}")


def test_object_store_move_copies_manifest_last_and_resumes(tmp_path):
    from transforms.release import MANIFEST, write_bytes
    from transforms.release.commit import _move_remote
    from transforms.release.target import SUCCESS_MARKER

    target = _staged(tmp_path, "3.0.0")
    write_bytes(os.path.join(target.staging_dir, MANIFEST), b"{}")
    first = os.path.join("train", "train-00000-of-00001.parquet")
    os.makedirs(os.path.join(target.final_dir, "train"))
    os.rename(os.path.join(target.staging_dir, first), os.path.join(target.final_dir, first))
    _move_remote(target)  # resumes after a partial move
    assert sorted(os.listdir(target.final_dir)) == sorted(
        ["train", "test", MANIFEST, SUCCESS_MARKER])
    assert not any(files for _, _, files in os.walk(target.staging_dir))



def test_latest_is_replaced_atomically_never_rewritten_in_place(tmp_path, monkeypatch):
    import transforms.release.commit as commit
    from transforms.release import latest_path

    root = tmp_path / "releases"
    finalize_release(_staged(root, "1.0.0"), overwrite=False, manifest=b"{}")
    latest = latest_path(str(root), "toy")
    reader_copy = os.path.join(tmp_path, "reader_copy")
    os.link(latest, reader_copy)  # another name for the old inode: in-place writes show here
    finalize_release(_staged(root, "2.0.0"), overwrite=False, manifest=b"{}")
    assert open(latest).read() == "2.0.0\n"
    assert open(reader_copy).read() == "1.0.0\n"

    def crash(source, destination):
        raise OSError("simulated crash")

    monkeypatch.setattr(commit.os, "replace", crash)
    with pytest.raises(OSError, match="simulated crash"):
        commit.write_latest(_staged(root, "3.0.0"))
    assert open(latest).read() == "2.0.0\n"
    assert not [n for n in os.listdir(os.path.join(root, "toy")) if n.startswith("LATEST.")]


def test_latest_never_moves_back_to_a_lower_published_version(tmp_path, caplog):
    from transforms.release import latest_path

    root = tmp_path / "releases"
    latest = latest_path(str(root), "toy")
    finalize_release(_staged(root, "1.10.0"), overwrite=False, manifest=b"{}")
    finalize_release(_staged(root, "1.9.0"), overwrite=False, manifest=b"{}")
    assert open(latest).read() == "1.10.0\n"  # 1.10.0 orders after 1.9.0
    assert "LATEST never moves backwards" in caplog.text
    finalize_release(_staged(root, "1.11.0"), overwrite=False, manifest=b"{}")
    assert open(latest).read() == "1.11.0\n"
    with open(latest, "w") as handle:
        handle.write("9.9.9\n")  # names no published version: replaced
    finalize_release(_staged(root, "1.0.0"), overwrite=False, manifest=b"{}")
    assert open(latest).read() == "1.0.0\n"
    assert not [n for n in os.listdir(os.path.join(root, "toy")) if n.endswith(".lock")]


def test_a_previous_auto_build_is_refused_at_publish_once_latest_moved(tmp_path):
    from transforms.release import latest_path
    from transforms.release.commit import LatestMovedError

    root = tmp_path / "releases"
    finalize_release(_staged(root, "1"), overwrite=False, manifest=b"{}")
    finalize_release(_staged(root, "3"), overwrite=False, manifest=b"{}")
    built_on_1 = b'{"options": {"previous": "auto"}, "previous": {"version": "1"}}'
    refresh = _staged(root, "2")
    with pytest.raises(LatestMovedError, match="toy 2 was built on 1 .* LATEST now names 3"):
        finalize_release(refresh, overwrite=False, manifest=built_on_1)
    assert not os.path.exists(refresh.final_dir)
    assert open(latest_path(str(root), "toy")).read() == "3\n"
    built_on_3 = b'{"options": {"previous": "auto"}, "previous": {"version": "3"}}'
    finalize_release(_staged(root, "4"), overwrite=False, manifest=built_on_3)
    assert open(latest_path(str(root), "toy")).read() == "4\n"
