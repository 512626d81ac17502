"""A release built from simulated votes says so where a trainer looks (issue 38 §2): each
config's description (``Dataset.info.description``, through the version's card and the
dataset directory's), a warning from ``load_release``, and ``release publish --dry-run``,
which also says which files go to large-file storage. A release of people's votes (or none)
says nothing of the kind."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import yaml

from pipelines import release as release_cli
from pipelines.api import load_release
from transforms.release.hub_upload_modes import LFS, REGULAR, UploadMode, upload_mode
from transforms.release.simulated import SIMULATED_DESCRIPTION, SimulatedAnnotationsWarning

datasets = pytest.importorskip("datasets")
TARGET = "hf://datasets/org/jnq-annotated"


def _front_matter(release: Path) -> dict:
    text = (release / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n")[1])


def test_every_config_describes_simulated_annotations(sample_releases):
    release = sample_releases["jnq_annotated"]
    header = _front_matter(release)
    assert {c["config_name"] for c in header["configs"]} >= {"default", "squad_v2", "votes"}
    for entry in [*header["configs"], *header["dataset_info"]]:
        assert entry["description"].startswith(SIMULATED_DESCRIPTION), entry["config_name"]
        assert "never to train or evaluate a model" in entry["description"]
    for path in (release, release.parent):  # the version, and the dataset directory (LATEST)
        squad = datasets.load_dataset(str(path), "squad_v2")
        for split in squad.values():
            assert split.info.description.startswith(SIMULATED_DESCRIPTION)
            assert "pipelines.annotate simulate" in split.info.description


def test_a_release_without_simulated_votes_has_no_description(sample_releases):
    release = sample_releases["nq"]
    header = _front_matter(release)
    assert all("description" not in entry for entry in
               [*header["configs"], *header["dataset_info"]])
    assert "dataset_info" not in _front_matter(release.parent)
    loaded = datasets.load_dataset(str(release), "simplified")
    assert all(not split.info.description for split in loaded.values())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_release(release, table="simplified")


def test_load_release_warns_of_simulated_annotations(sample_releases):
    release = sample_releases["jnq_annotated"]
    with pytest.warns(SimulatedAnnotationsWarning, match="written by `python -m "
                      "pipelines.annotate simulate`") as caught:
        tables = load_release(release, table="squad_v2")
    assert tables and all(t.num_rows >= 0 for t in tables.values())
    assert str(release) in str(caught[0].message)
    assert caught[0].filename == __file__  # points at the caller's line


def test_publish_dry_run_warns_and_lists_lfs_files(sample_releases, capsys):
    release = sample_releases["jnq_annotated"]
    assert release_cli.main(["publish", str(release), "--to", TARGET, "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("WARNING: simulated annotations: The votes of this release")
    assert lines[1].startswith("would send jnq_annotated")
    assert "would go to large-file storage (LFS)" in lines[2]
    modes = {line.split()[-1]: line.split()[1] for line in lines[3:]}
    assert modes["README.md"] == REGULAR and modes["dataset_info.json"] == REGULAR
    parquet = [path for path in modes if path.endswith(".parquet")]
    assert parquet and {modes[path] for path in parquet} == {LFS}
    assert lines[2].startswith(f"{len(parquet)} files (")
    assert release_cli.main(["publish", str(release), "--to", TARGET, "--dry-run",
                             "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["simulated"].startswith("The votes of this release were written by")
    assert report["lfs_files"] == len(parquet)
    assert report["lfs_bytes"] == sum(f["bytes"] for f in report["files"]
                                      if f["upload"] == LFS)
    assert {f["upload_reason"] for f in report["files"] if f["upload"] == LFS} == {"*.parquet"}


def test_publish_dry_run_of_people_votes_has_no_warning(sample_releases, capsys):
    assert release_cli.main(["publish", str(sample_releases["nq"]), "--to", TARGET,
                             "--dry-run", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["simulated"] is None
    gz = [f for f in report["files"] if f["path"].endswith(".jsonl.gz")]
    assert gz and {f["upload"] for f in gz} == {LFS}  # nq_original


@pytest.mark.parametrize(("path", "size", "mode", "reason"), [
    ("train/train-00000-of-00001.parquet", 10, LFS, "*.parquet"),
    ("nq_original/dev/nq-dev-00.jsonl.gz", 10, LFS, "*.gz"),
    ("saved_model/a/b.txt", 10, LFS, "saved_model/**/*"),
    ("README.md", 10, REGULAR, "in the commit"),
    ("rejected/dead_letter/log.jsonl", 11 * 1024 * 1024, LFS, "over 10 MiB"),
    ("stats.json", 10 * 1024 * 1024, REGULAR, "in the commit"),
])
def test_upload_mode(path, size, mode, reason):
    assert upload_mode(path, size) == UploadMode(mode, reason)
