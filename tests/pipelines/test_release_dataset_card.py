"""``datasets.load_dataset(<root>/<dataset>)``, the directory holding ``LATEST`` and the
versions, loads the version ``LATEST`` names: never two versions merged, never a
``CastError`` from mixing a version's tables; ``release list`` still shows versions only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from pipelines import build_nlquad
from pipelines import release as release_cli
from tests.conftest import TEST_RUNNER

datasets = pytest.importorskip("datasets")


def _rows(path: Path, cache: Path, name: str | None = None) -> dict[str, int]:
    loaded = datasets.load_dataset(str(path), name, cache_dir=str(cache))
    return {split: data.num_rows for split, data in loaded.items()}


def _configs(card: Path) -> dict[str, list[tuple[str, str]]]:
    header = yaml.safe_load(card.read_text().split("---\n")[1])
    return {c["config_name"]: [(f["split"], f["path"]) for f in c["data_files"]]
            for c in header["configs"]}


def test_a_dataset_directory_with_two_versions_loads_latest_only(sample_build, tmp_path,
                                                                 capsys):
    _, published = sample_build("nlquad")
    root = tmp_path / "releases"
    shutil.copytree(published, root / "nlquad" / "1.0.0")  # the first version, as built
    build_nlquad.run([TEST_RUNNER, "--output", str(root), "--version", "1.1.0"])
    dataset_dir = root / "nlquad"
    expected = _rows(dataset_dir / "1.1.0", tmp_path / "cache")
    assert expected == {"train": 36, "validation": 3, "test": 4}
    assert _rows(dataset_dir, tmp_path / "cache") == expected  # was 72/6/8: both versions
    assert all(path.startswith("1.1.0/") for files in _configs(dataset_dir / "README.md")
               .values() for _, path in files)

    build_nlquad.run([TEST_RUNNER, "--output", str(root), "--version", "1.2.0",
                      "--split-ratios", "train=50,dev=25,test=25"])
    assert (dataset_dir / "LATEST").read_text() == "1.2.0\n"
    newer = _rows(dataset_dir / "1.2.0", tmp_path / "cache")
    assert newer != expected
    assert _rows(dataset_dir, tmp_path / "cache") == newer
    capsys.readouterr()
    assert release_cli.main(["list", str(root)]) == 0
    listed = [line.split()[:2] for line in capsys.readouterr().out.splitlines()]
    assert listed == [["nlquad", "1.0.0"], ["nlquad", "1.1.0"],  # README.md is no version
                      ["nlquad", "1.2.0"]]
    assert release_cli.main(["verify", str(dataset_dir)]) == 0


@pytest.mark.parametrize("kind", ["nq_annotated", "reqa_squad", "nq_questions", "nq", "jnq",
                                  "jboolq", "jnq_annotated"])
def test_every_config_of_a_version_loads_from_its_dataset_directory(sample_releases, kind,
                                                                    tmp_path):
    version_dir = sample_releases[kind]
    dataset_dir, version = version_dir.parent, version_dir.name
    assert _rows(dataset_dir, tmp_path) == _rows(version_dir, tmp_path)  # was a CastError
    own = _configs(version_dir / "README.md")
    assert _configs(dataset_dir / "README.md") == {
        name: [(split, f"{version}/{path}") for split, path in files]
        for name, files in own.items()}
    for name in own:  # default, simplified, squad_v2, boolq, votes, candidates, ...
        assert _rows(dataset_dir, tmp_path, name) == _rows(version_dir, tmp_path, name)
