"""SHA256SUMS: written with every version, checkable by ``sha256sum -c`` and by verify."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pipelines import release as release_cli
from tests.transforms.release.toy import run_toy
from transforms.release import verify_release
from transforms.release.checksums import ChecksumsError, parse_sums, sums_bytes

SUMS = "SHA256SUMS"


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("releases")
    return Path(run_toy(root, ["a", "b", "bad1"])["path"])


@pytest.fixture
def copy(published, tmp_path) -> Path:
    shutil.copytree(published, tmp_path / published.name)
    return tmp_path / published.name


def _files(version: Path) -> list[str]:
    return sorted(str(p.relative_to(version)) for p in version.rglob("*") if p.is_file())


def test_every_file_but_itself_is_listed_sorted(published):
    text = (published / SUMS).read_text(encoding="utf-8")
    names = [line.split("  ", 1)[1] for line in text.splitlines()]
    assert names == sorted(names) == [n for n in _files(published) if n != SUMS]
    assert "dataset_info.json" in names and "README.md" in names
    assert all(len(line.split("  ", 1)[0]) == 64 for line in text.splitlines())


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="no sha256sum binary")
def test_sha256sum_c_verifies_the_release_and_sees_a_flipped_byte(copy):
    check = [shutil.which("sha256sum"), "-c", "--strict", SUMS]
    ok = subprocess.run(check, cwd=copy, capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.count(": OK") == len(_files(copy)) - 1
    parquet = next(copy.glob("train/*.parquet"))
    data = bytearray(parquet.read_bytes())
    data[100] ^= 1
    parquet.write_bytes(bytes(data))
    bad = subprocess.run(check, cwd=copy, capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and f"{parquet.relative_to(copy)}: FAILED" in bad.stdout


def test_verify_checks_sums_against_manifest_and_files(copy, capsys):
    assert verify_release(str(copy)).to_dict()["sha256sums"] == "checked"
    lines = (copy / SUMS).read_text(encoding="utf-8").splitlines()
    readme = next(i for i, line in enumerate(lines) if line.endswith("  README.md"))
    lines[readme] = "0" * 64 + "  README.md"
    manifest = next(i for i, line in enumerate(lines) if line.endswith("dataset_info.json"))
    lines[manifest] = "1" * 64 + "  dataset_info.json"
    kept = [line for line in lines if not line.endswith("  stats.json")]
    (copy / SUMS).write_text("\n".join(kept) + "\n", encoding="utf-8")
    problems = dict(verify_release(str(copy)).problems)
    assert set(problems) == {"README.md", "dataset_info.json", "stats.json"}
    assert "SHA256SUMS says" in problems["README.md"]
    assert "differs from SHA256SUMS" in problems["dataset_info.json"]
    assert problems["stats.json"] == "not in SHA256SUMS"
    assert release_cli.main(["verify", str(copy)]) == 5
    assert "SHA256SUMS" in capsys.readouterr().out


def test_a_malformed_sums_file_is_a_problem_not_a_traceback(copy):
    (copy / SUMS).write_bytes(b"not a checksum line\n")
    assert dict(verify_release(str(copy)).problems) == {
        SUMS: "unreadable: line 1 is not '<sha256>  <path>'"}


def test_a_release_written_before_sha256sums_still_verifies(copy):
    os.remove(copy / SUMS)
    report = verify_release(str(copy))
    assert report.ok and report.to_dict()["sha256sums"] == "absent"


def test_paths_are_escaped_as_gnu_sha256sum_does():
    digest = "a" * 64
    data = sums_bytes({"b/x": digest, "a\\b\nc": digest})
    assert data == f"\\{digest}  a\\\\b\\nc\n{digest}  b/x\n".encode()
    assert parse_sums(data) == {"a\\b\nc": digest, "b/x": digest}
    for bad in (f"{digest}  ../x\n", f"{digest}  /etc/passwd\n", f"{digest}  x\n" * 2):
        with pytest.raises(ChecksumsError):
            parse_sums(bad.encode())


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="no sha256sum binary")
def test_an_object_store_release_lists_its_success_marker(tmp_path):
    from tests.fakes.object_store import local_path, use_bucket

    use_bucket(tmp_path / "bucket")
    result = run_toy("fakegs://releases", ["a", "b"])
    version = Path(local_path(result["path"]))
    assert "_SUCCESS" in (version / SUMS).read_text(encoding="utf-8")
    assert subprocess.run([shutil.which("sha256sum"), "-c", "--strict", SUMS], cwd=version,
                          capture_output=True, check=False).returncode == 0
    report = verify_release(result["path"])
    assert report.ok and report.sha256sums == "checked"
