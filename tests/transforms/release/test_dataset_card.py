"""The dataset directory's card (``README.md`` next to ``LATEST``): written with ``LATEST``
on a local root and on an object store, repaired by ``--skip-existing``, never written for a
version whose configs cannot be pointed at (the error names the versions)."""

from __future__ import annotations

import os

import pytest
import yaml

from tests.fakes.object_store import local_path, use_bucket
from transforms.release import LatestNotUpdatedError, ReleaseTarget, write_bytes
from transforms.release.commit import finalize_release, read_latest, repair_latest
from transforms.release.storage import read_bytes

CONFIGS = """configs:
- config_name: default
  data_files:
  - split: train
    path: train/*.parquet
  - split: validation
    path: dev/*.parquet
  default: true
- config_name: simplified
  data_files:
  - split: train
    path: simplified/train/*.parquet
"""


def _card(configs: str = CONFIGS) -> bytes:
    return f"---\npretty_name: Toy\n{configs}---\n# Toy\n".encode()


def _publish(root: str, version: str, card: bytes | None = None, overwrite: bool = False,
             ) -> ReleaseTarget:
    target = ReleaseTarget.create(root, "toy", version)
    write_bytes(f"{target.staging_dir}/train/train-00000-of-00001.parquet", b"rows")
    write_bytes(f"{target.staging_dir}/README.md", _card() if card is None else card)
    finalize_release(target, overwrite=overwrite,
                     manifest=b'{"run_id": "%s"}' % target.run_id.encode())
    return target


def _pointer(text: bytes) -> dict:
    assert text.startswith(b"---\n")
    return yaml.safe_load(text.decode().split("---\n")[1])


def _paths(header: dict) -> dict[str, list[tuple[str, str]]]:
    return {c["config_name"]: [(f["split"], f["path"]) for f in c["data_files"]]
            for c in header["configs"]}


def test_the_card_mirrors_every_config_of_latest_and_follows_it(tmp_path):
    root = str(tmp_path)
    card = tmp_path / "toy" / "README.md"
    _publish(root, "1.0.0")
    header = _pointer(card.read_bytes())
    assert _paths(header) == {
        "default": [("train", "1.0.0/train/*.parquet"), ("validation", "1.0.0/dev/*.parquet")],
        "simplified": [("train", "1.0.0/simplified/train/*.parquet")]}
    assert header["configs"][0]["default"] is True
    assert "[1.0.0/README.md](1.0.0/README.md)" in card.read_text()
    _publish(root, "1.1.0")
    assert read_latest(root, "toy") == "1.1.0"
    assert set(_paths(_pointer(card.read_bytes()))["simplified"]) == {
        ("train", "1.1.0/simplified/train/*.parquet")}
    before = card.read_bytes()  # an overwrite of an older version: LATEST never moves back
    _publish(root, "1.0.0", _card(CONFIGS.replace("simplified", "other")), overwrite=True)
    assert read_latest(root, "toy") == "1.1.0" and card.read_bytes() == before
    _publish(root, "1.2.0", _card(CONFIGS.replace("simplified", "boolq")))
    assert read_latest(root, "toy") == "1.2.0"
    assert _paths(_pointer(card.read_bytes()))["boolq"] == [
        ("train", "1.2.0/boolq/train/*.parquet")]
    # the card was replaced through the same temporary as LATEST, and nothing is left over
    assert sorted(os.listdir(tmp_path / "toy")) == ["1.0.0", "1.1.0", "1.2.0", "LATEST",
                                                    "README.md"]


def test_the_card_is_an_object_written_with_latest_on_an_object_store(tmp_path):
    use_bucket(tmp_path / "bucket")
    root = "fakegs://releases"
    _publish(root, "1.0.0")
    _publish(root, "2.0.0")
    assert read_bytes(f"{root}/toy/LATEST") == b"2.0.0\n"
    assert _paths(_pointer(read_bytes(f"{root}/toy/README.md")))["default"][0] == (
        "train", "2.0.0/train/*.parquet")
    _publish(root, "3.0.0", card=b"toy\n")  # a card without configs: no dataset card
    assert read_bytes(f"{root}/toy/LATEST") == b"3.0.0\n"
    assert not os.path.exists(local_path(f"{root}/toy/README.md"))


@pytest.mark.parametrize("configs", [
    CONFIGS.replace("train/*.parquet", "../../elsewhere/*.parquet"),
    CONFIGS.replace("train/*.parquet", "/etc/*.parquet"),
    CONFIGS.replace("train/*.parquet", "gs://bucket/*.parquet"),
    "configs: {default: train}\n",
])
def test_configs_that_cannot_be_pointed_at_leave_latest_and_the_card_and_name_versions(
        tmp_path, configs):
    root = str(tmp_path)
    _publish(root, "1.0.0")
    before = (tmp_path / "toy" / "README.md").read_bytes()
    with pytest.raises(LatestNotUpdatedError) as raised:
        _publish(root, "2.0.0", _card(configs))
    assert "1.0.0, 2.0.0" in str(raised.value) and "2.0.0/README.md" in str(raised.value)
    assert read_latest(root, "toy") == "1.0.0"
    assert (tmp_path / "toy" / "README.md").read_bytes() == before
    assert sorted(os.listdir(tmp_path / "toy")) == ["1.0.0", "2.0.0", "LATEST", "README.md"]


def test_a_card_that_is_a_link_is_replaced_never_followed(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("keep")
    root = tmp_path / "releases"
    _publish(str(root), "1.0.0")
    card = root / "toy" / "README.md"
    card.unlink()
    card.symlink_to(outside)
    _publish(str(root), "2.0.0")
    assert outside.read_text() == "keep"
    assert not card.is_symlink() and "2.0.0/train" in card.read_text()


def test_skip_existing_repairs_a_missing_or_stale_card(tmp_path):
    root = str(tmp_path)
    target = _publish(root, "1.0.0")
    card = tmp_path / "toy" / "README.md"
    expected = card.read_bytes()
    card.unlink()  # a dataset directory published before the card existed
    assert repair_latest(target) is False  # LATEST was right
    assert card.read_bytes() == expected
    card.write_text("stale")
    repair_latest(target)
    assert card.read_bytes() == expected
