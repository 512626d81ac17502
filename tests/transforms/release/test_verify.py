"""verify_release / list_releases and the ``python -m pipelines.release`` commands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipelines import build_jnq
from pipelines import release as release_cli
from tests.conftest import TEST_RUNNER
from transforms.release import (
    DamagedReleaseError,
    NotAReleaseError,
    list_releases,
    require_intact,
    resolve_release,
    verify_release,
)


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("releases")
    result = build_jnq.run([TEST_RUNNER, "--output", str(root), "--stop-after", "questions"])
    return Path(result["path"])


@pytest.fixture
def copy(published, tmp_path) -> Path:
    """A private copy of the release (root/dataset/version, with LATEST)."""
    root = tmp_path / "root"
    shutil.copytree(published.parent, root / published.parent.name)
    return root / published.parent.name / published.name


def _parquet(path: Path) -> Path:
    return next(path.glob("questions/*.parquet"))


def test_an_intact_release_verifies(copy):
    report = verify_release(str(copy))
    assert report.ok and report.files >= 4
    require_intact(str(copy))
    assert resolve_release(str(copy.parent)) == str(copy)


@pytest.mark.parametrize("offset", [100, -40])
def test_a_flipped_byte_is_named(copy, offset):
    data = bytearray(_parquet(copy).read_bytes())
    data[offset] ^= 0x01
    _parquet(copy).write_bytes(bytes(data))
    report = verify_release(str(copy))
    assert [f for f, _ in report.problems] == [f"questions/{_parquet(copy).name}"]
    assert "sha256" in report.problems[0][1]
    with pytest.raises(DamagedReleaseError, match=_parquet(copy).name):
        require_intact(str(copy))


def test_missing_and_unlisted_files_are_named(copy):
    (copy / "stats.json").unlink()
    (copy / "notes.txt").write_text("added after publishing", encoding="utf-8")
    problems = dict(verify_release(str(copy)).problems)
    assert problems == {"stats.json": "missing", "notes.txt": "not in the manifest"}


def test_a_size_only_check_still_sees_truncation(copy):
    data = _parquet(copy).read_bytes()
    _parquet(copy).write_bytes(data[:-10])
    assert not verify_release(str(copy), deep=False).ok


def test_list_shows_status_latest_and_staging(copy):
    root = copy.parent.parent
    (copy.parent / ".staging" / "2.0.0-abc").mkdir(parents=True)
    (copy.parent / ".staging" / "2.0.0-abc" / "part").write_text("x", encoding="utf-8")
    damaged = copy.parent / "0.9.0"
    shutil.copytree(copy, damaged)
    (damaged / "README.md").write_text("edited", encoding="utf-8")
    entries = {(e["version"], e["status"], e["latest"]) for e in list_releases(str(root))}
    assert entries == {("1.0.0", "complete", True), ("0.9.0", "damaged", False),
                       ("2.0.0-abc", "staging", False)}


def test_cli_exit_codes_and_json(copy, capsys):
    assert release_cli.main(["verify", str(copy)]) == 0
    assert "ok:" in capsys.readouterr().out
    (copy / "stats.json").write_text("{}", encoding="utf-8")
    assert release_cli.main(["verify", str(copy), "--json"]) == 5
    report = json.loads(capsys.readouterr().out)["releases"][0]
    assert [p["file"] for p in report["problems"]] == ["stats.json"]
    assert release_cli.main(["verify", str(copy.parent.parent)]) == 2
    assert "not a release" in capsys.readouterr().err
    assert release_cli.main(["list", str(copy.parent.parent), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["releases"][0]["status"] == "damaged"


def test_not_a_release(tmp_path):
    with pytest.raises(NotAReleaseError):
        resolve_release(str(tmp_path))


def test_consumers_refuse_a_damaged_release(copy, tmp_path, capsys):
    """--skip-existing, build_reqa and evaluate check a release before they read it."""
    from pipelines import build_reqa, evaluate

    root = copy.parent.parent
    (copy / "README.md").write_text("edited after publishing", encoding="utf-8")
    assert build_jnq.main([TEST_RUNNER, "--output", str(root), "--stop-after", "questions",
                           "--skip-existing"]) == 5
    assert "README.md" in capsys.readouterr().err
    gold = tmp_path / "p.json"
    gold.write_text("{}", encoding="utf-8")
    assert evaluate.main(["jnq", "--gold", str(copy), "--predictions", str(gold)]) == 5
    assert "does not match its manifest" in capsys.readouterr().err
    assert build_reqa.main(["--source", "nlquad", "--input", str(copy), "--output",
                            str(tmp_path / "out"), TEST_RUNNER]) == 5
