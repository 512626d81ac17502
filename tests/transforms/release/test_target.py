"""Release names and roots are checked before any work; nothing outside a version is touched."""

import os

import pytest

from tests.transforms.release.toy import run_toy
from transforms.release import (
    InvalidReleaseName,
    InvalidReleaseRoot,
    ReleaseTarget,
    check_release_root,
)
from transforms.release.commit import finalize_release

BAD_NAMES = ["", ".", "..", "../x", "a/b", "a\\b", ".staging", "LATEST", "latest", "_SUCCESS",
             "1..0", "-x", "x y", "x" * 300, "/abs/dir"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_bad_versions_and_dataset_names_are_refused_up_front(tmp_path, name):
    with pytest.raises(InvalidReleaseName, match="invalid version"):
        ReleaseTarget.create(str(tmp_path), "toy", name)
    with pytest.raises(InvalidReleaseName, match="invalid dataset name"):
        ReleaseTarget.create(str(tmp_path), name, "1.0.0")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ["1.0.0", "2024.01.02", "again", "v1_rc-2", "x" * 64])
def test_ordinary_names_are_accepted(tmp_path, name):
    target = ReleaseTarget.create(str(tmp_path), "search_en", name)
    assert target.final_dir == os.path.join(str(tmp_path), "search_en", name)


def test_overwrite_with_a_path_as_version_never_deletes_it(tmp_path):
    victim = tmp_path / "precious"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    with pytest.raises(InvalidReleaseName):
        run_toy(tmp_path / "out", ["a"], version=str(victim), overwrite=True)
    with pytest.raises(InvalidReleaseName):
        run_toy(tmp_path / "out", ["a"], version="../precious", overwrite=True)
    assert (victim / "keep.txt").read_text() == "mine"
    assert not (tmp_path / "out").exists()


def test_overwrite_refuses_a_version_that_resolves_outside_the_dataset(tmp_path):
    victim = tmp_path / "elsewhere"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    target = ReleaseTarget.create(str(tmp_path / "out"), "toy", "1.0.0")
    os.makedirs(target.staging_dir)
    os.symlink(victim, target.final_dir)
    with pytest.raises(InvalidReleaseRoot, match="outside"):
        finalize_release(target, overwrite=True, manifest=b"{}")
    assert (victim / "keep.txt").read_text() == "mine"
    assert os.path.islink(target.final_dir)


def test_output_that_is_a_file_is_refused(tmp_path):
    output = tmp_path / "releases"
    output.write_text("not a directory")
    with pytest.raises(InvalidReleaseRoot, match="is a file"):
        run_toy(output, ["a"])
    assert output.read_text() == "not a directory"
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "toy").write_text("file where the dataset goes")
    with pytest.raises(InvalidReleaseRoot, match="is a file"):
        check_release_root(str(tmp_path / "root"), "toy")


def test_directory_that_is_not_a_release_root_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InvalidReleaseRoot, match="notes.txt"):
        check_release_root(str(tmp_path), "toy")
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "main.py").write_text("x")
    with pytest.raises(InvalidReleaseRoot, match="src/main.py"):
        ReleaseTarget.create(str(project), "toy", "1.0.0")


def test_release_roots_with_several_datasets_are_accepted(tmp_path):
    check_release_root(str(tmp_path / "missing"), "toy")
    check_release_root(str(tmp_path), "toy")
    for dataset in ("nlquad", "nq", "search_en"):
        (tmp_path / dataset / "1.0.0" / "train").mkdir(parents=True)
        (tmp_path / dataset / "1.0.0" / "dataset_info.json").write_text("{}")
        (tmp_path / dataset / ".staging").mkdir()
        (tmp_path / dataset / "LATEST").write_text("1.0.0\n")
    (tmp_path / "empty_dataset").mkdir()
    (tmp_path / ".DS_Store").write_text("")
    check_release_root(str(tmp_path), "toy")
    check_release_root(str(tmp_path), "nlquad")
