"""resolve_release: the one reader of ``LATEST`` (issue 24 §4). A version directory is
itself, a dataset directory means the sibling version its ``LATEST`` names, ``auto`` the
latest version of ``<output>/<dataset>`` or None, anything else is not a release."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tests.fakes.object_store import PREFIX, use_bucket
from transforms.release import (
    AUTO,
    MANIFEST,
    InvalidLatestError,
    NotAReleaseError,
    latest_version,
    resolve,
    resolve_release,
)
from transforms.release.resolve import MAX_LATEST_BYTES


def _version(directory: Path) -> Path:
    directory.mkdir(parents=True)
    (directory / MANIFEST).write_text("{}", encoding="utf-8")
    return directory


@pytest.fixture
def dataset(tmp_path) -> Path:
    """``out/toy/{0.9.0,1.0.0}`` with ``LATEST`` naming 1.0.0, and ``out/elsewhere/1.0.0``."""
    _version(tmp_path / "out" / "toy" / "0.9.0")
    _version(tmp_path / "out" / "toy" / "1.0.0")
    _version(tmp_path / "out" / "elsewhere" / "1.0.0")
    (tmp_path / "out" / "toy" / "LATEST").write_text("1.0.0\n", encoding="utf-8")
    return tmp_path / "out" / "toy"


def test_a_version_directory_is_itself(dataset):
    version = dataset / "0.9.0"
    assert resolve_release(str(version)) == str(version)
    assert resolve_release(f"{version}/") == str(version)


def test_a_dataset_directory_means_the_version_latest_names(dataset):
    assert resolve_release(str(dataset)) == str(dataset / "1.0.0")
    assert resolve_release(f"{dataset}/") == str(dataset / "1.0.0")
    assert latest_version(str(dataset)) == "1.0.0"


@pytest.mark.parametrize("named", ["../elsewhere/1.0.0", "<abs>", "1.0.0/../../elsewhere/1.0.0",
                                   "..", ".", "", "  \n", "LATEST", "2.0.0", "linked",
                                   "a-file", "bare"])
def test_latest_must_name_a_sibling_release(dataset, named):
    elsewhere = dataset.parent / "elsewhere" / "1.0.0"
    os.symlink(elsewhere, dataset / "linked")
    (dataset / "a-file").write_text("1.0.0", encoding="utf-8")
    (dataset / "bare").mkdir()  # a directory without a manifest
    (dataset / "LATEST").write_text(named.replace("<abs>", str(elsewhere)), encoding="utf-8")
    with pytest.raises(InvalidLatestError, match="LATEST") as caught:
        resolve_release(str(dataset))
    assert caught.value.named == named.replace("<abs>", str(elsewhere)).strip()
    assert isinstance(caught.value, NotAReleaseError)  # every caller's except still holds


def test_a_bare_sibling_directory_only_without_require_manifest(dataset):
    (dataset / "bare").mkdir()
    (dataset / "LATEST").write_text("bare", encoding="utf-8")
    assert resolve_release(str(dataset), require_manifest=False) == str(dataset / "bare")
    (dataset / "LATEST").write_text("2.0.0", encoding="utf-8")  # still must exist
    with pytest.raises(InvalidLatestError, match="not a version directory"):
        resolve_release(str(dataset), require_manifest=False)


def test_latest_that_is_a_link_a_directory_or_too_large(dataset, tmp_path):
    latest = dataset / "LATEST"
    target = tmp_path / "target"
    target.write_text("1.0.0", encoding="utf-8")
    latest.unlink()
    os.symlink(target, latest)
    with pytest.raises(InvalidLatestError, match="link or a special file"):
        resolve_release(str(dataset))
    latest.unlink()
    latest.mkdir()
    with pytest.raises(InvalidLatestError, match="link or a special file"):
        resolve_release(str(dataset))
    latest.rmdir()
    latest.write_text("1.0.0" + " " * MAX_LATEST_BYTES, encoding="utf-8")
    with pytest.raises(InvalidLatestError, match="larger than"):
        resolve_release(str(dataset))


def test_an_unreadable_latest_is_invalid(dataset, monkeypatch):
    def denied(path: str, flags: int) -> int:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(resolve.os, "open", denied)
    with pytest.raises(InvalidLatestError, match="unreadable: Permission denied"):
        resolve_release(str(dataset))


def test_a_fifo_latest_is_refused_without_blocking(dataset):
    latest = dataset / "LATEST"
    latest.unlink()
    os.mkfifo(latest)
    outcome: list[BaseException | str] = []

    def resolve() -> None:
        try:
            outcome.append(resolve_release(str(dataset)))
        except BaseException as error:  # noqa: BLE001 - handed to the test thread
            outcome.append(error)

    worker = threading.Thread(target=resolve, daemon=True)
    worker.start()
    worker.join(timeout=20)
    if worker.is_alive():  # unblock the reader so the thread ends, then fail
        with open(latest, "w", encoding="utf-8") as handle:
            handle.write("1.0.0")
        pytest.fail("reading a FIFO LATEST blocked")
    assert len(outcome) == 1 and isinstance(outcome[0], InvalidLatestError)


def test_auto_means_the_latest_version_or_none(dataset):
    output = str(dataset.parent)
    assert resolve_release(AUTO, output=output, dataset="toy") == str(dataset / "1.0.0")
    assert resolve_release(AUTO, output=output, dataset="new") is None  # no dataset directory
    (dataset.parent / "elsewhere" / "LATEST").write_text("0.1.0", encoding="utf-8")
    with pytest.raises(InvalidLatestError, match="LATEST"):
        resolve_release(AUTO, output=output, dataset="elsewhere")
    (dataset / "LATEST").unlink()  # versions, but none published as LATEST
    assert resolve_release(AUTO, output=output, dataset="toy") is None


def test_auto_needs_output_and_dataset(dataset, monkeypatch):
    with pytest.raises(TypeError):
        resolve_release(AUTO, output=str(dataset.parent))  # type: ignore[call-overload]
    monkeypatch.chdir(dataset.parent)
    with pytest.raises(NotAReleaseError, match="auto"):  # a plain path named "auto"
        resolve_release(AUTO)


def test_anything_else_is_not_a_release(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "file.json").write_text("{}", encoding="utf-8")
    cases = {str(empty): "no dataset_info.json, no LATEST",
             str(tmp_path / "file.json"): "is a file",
             str(tmp_path / "missing"): "not a release directory",
             str(tmp_path / "*.parquet"): "not a release directory",
             "": "empty path"}
    for path, message in cases.items():
        with pytest.raises(NotAReleaseError, match=message) as caught:
            resolve_release(path)
        assert not isinstance(caught.value, InvalidLatestError)
        assert path in str(caught.value)


def test_object_store_paths(tmp_path):
    use_bucket(tmp_path)
    _version(tmp_path / "bucket" / "toy" / "1.0.0")
    (tmp_path / "bucket" / "toy" / "bare").mkdir()
    (tmp_path / "bucket" / "toy" / "bare" / "dev.parquet").write_bytes(b"")
    (tmp_path / "bucket" / "toy" / "LATEST").write_text("1.0.0\n", encoding="utf-8")
    root = f"{PREFIX}bucket"
    assert resolve_release(f"{root}/toy/1.0.0/") == f"{root}/toy/1.0.0"
    assert resolve_release(f"{root}/toy") == f"{root}/toy/1.0.0"
    assert resolve_release(AUTO, output=root, dataset="toy") == f"{root}/toy/1.0.0"
    assert resolve_release(AUTO, output=root, dataset="other") is None
    with pytest.raises(NotAReleaseError, match="not a release directory"):
        resolve_release(f"{root}/other")
    for named in ("2.0.0", "../other/1.0.0", ""):
        (tmp_path / "bucket" / "toy" / "LATEST").write_text(named, encoding="utf-8")
        with pytest.raises(InvalidLatestError, match="LATEST"):
            resolve_release(f"{root}/toy")
    (tmp_path / "bucket" / "toy" / "LATEST").write_text("bare", encoding="utf-8")
    with pytest.raises(InvalidLatestError, match="not a release"):
        resolve_release(f"{root}/toy")
    assert resolve_release(f"{root}/toy", require_manifest=False) == f"{root}/toy/bare"


@pytest.mark.parametrize("lower, higher", [
    ("1.9.0", "1.10.0"),  # numbers as numbers
    ("2026.9.30", "2026.11.23"),
    ("1.0.0-rc.1", "1.0.0-rc.2"),
    ("1.0.0-rc.2", "1.0.0"),  # a pre-release before its release (Semantic Versioning)
    ("1.0.0-rc1", "1.0.0"),
    ("1.0.0", "1.0.0.1"),  # a longer version that is no pre-release after
    ("1.0.0", "1.0.1-alpha"),
])
def test_version_order(lower: str, higher: str) -> None:
    assert resolve.version_order(lower) < resolve.version_order(higher)
    assert sorted([higher, lower], key=resolve.version_order) == [lower, higher]
