"""Every release type, built from the bundled samples, as the tools people use meet it:
``datasets.load_dataset(dir)`` with no other argument (and each config), Croissant, and no
absolute local path in any file."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from transforms.core.paths import PROJECT_ROOT

datasets = pytest.importorskip("datasets")


@pytest.fixture(scope="module")
def releases(sample_releases: dict[str, Path]) -> dict[str, Path]:
    return sample_releases


KINDS = ["nlquad", "nq", "nq_questions", "jnq", "jboolq", "reqa_squad", "search_en",
         "categories", "nq_annotated", "jnq_annotated"]


def _card_yaml(path: Path) -> dict:
    import yaml

    text = (path / "README.md").read_text()
    assert text.startswith("---\n"), "the card has no YAML front matter"
    return yaml.safe_load(text.split("---\n", 2)[1])


@pytest.mark.parametrize("kind", KINDS)
def test_load_dataset_reads_every_config_of_every_release(releases, kind):
    path = releases[kind]
    header = _card_yaml(path)
    manifest = json.loads((path / "dataset_info.json").read_text())
    configs = {c["config_name"]: c for c in header["configs"]}
    default = next((c["config_name"] for c in header["configs"] if c.get("default")),
                   "default")
    assert default in configs
    loaded = datasets.load_dataset(str(path))
    assert set(loaded) == {f["split"] for f in configs[default]["data_files"]}
    for name, config in configs.items():
        data = datasets.load_dataset(str(path), name)
        for entry in config["data_files"]:
            files = sorted(path.glob(entry["path"]))
            assert files, entry
            expected = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
            assert data[entry["split"]].num_rows == expected > 0
            assert all(manifest["files"][f.relative_to(path).as_posix()]["rows"] >= 0
                       for f in files)
    for info in header["dataset_info"]:
        features = datasets.Features._from_yaml_list(info["features"])
        assert datasets.load_dataset(str(path), info["config_name"])[
            info["splits"][0]["name"]].features == features
    for key in ("license", "language", "task_categories", "size_categories", "pretty_name",
                "source_datasets", "annotations_creators"):
        assert header[key], key


def test_an_empty_split_is_left_out_for_datasets_and_kept_for_pyarrow(releases):
    path = releases["nq"]
    assert json.loads((path / "dataset_info.json").read_text())["rows_per_split"]["dev"] == 0
    empty = next((path / "dev").glob("*.parquet"))
    assert pq.ParquetFile(empty).metadata.num_row_groups == 0
    assert pq.read_table(empty).schema == pq.read_schema(next((path / "train").glob("*.parquet")))
    assert "validation" not in datasets.load_dataset(str(path))
    assert "`dev`" in (path / "README.md").read_text()


def test_multi_table_releases_keep_their_tables_apart(releases):
    reqa = releases["reqa_squad"]
    assert set(datasets.load_dataset(str(reqa))) == {"questions"}
    assert "sentence" in datasets.load_dataset(str(reqa), "candidates")["candidates"].features
    index = datasets.load_dataset(str(releases["search_en"]))
    assert set(index) == {"docs"} and "html" in index["docs"].features
    questions = datasets.load_dataset(str(releases["nq_questions"]))
    assert set(questions) == {"questions"}
    assert "rejected_queries" in {c["config_name"] for c in
                                  _card_yaml(releases["nq_questions"])["configs"]}
    annotated = datasets.load_dataset(str(releases["nq_annotated"]))
    yes_no = annotated["validation"].features["annotations"]["yes_no_answer"]
    assert yes_no.feature.names == ["NO", "YES"]


@pytest.mark.parametrize("kind", KINDS)
def test_one_shard_alone_loads_with_the_card_features_and_has_the_page_index(
        releases, kind, tmp_path):
    path = releases[kind]
    for info in _card_yaml(path)["dataset_info"]:
        config = next(c for c in _card_yaml(path)["configs"]
                      if c["config_name"] == info["config_name"])
        shard = sorted(path.glob(config["data_files"][0]["path"]))[0]
        loaded = datasets.load_dataset("parquet", data_files=str(shard), split="train",
                                       cache_dir=str(tmp_path))
        assert loaded.features == datasets.Features._from_yaml_list(info["features"]), shard
        metadata = pq.ParquetFile(shard).metadata
        assert all(metadata.row_group(g).column(c).has_offset_index
                   for g in range(metadata.num_row_groups)
                   for c in range(metadata.num_columns)), shard


def _texts(path: Path):
    if path.suffix == ".parquet":
        yield json.dumps(pq.read_table(path).to_pylist(), default=str)
        yield str(pq.read_schema(path))
    elif path.name.endswith(".gz"):
        yield gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
    else:
        yield path.read_bytes().decode("utf-8", "replace")


@pytest.mark.parametrize("kind", KINDS)
def test_no_release_file_names_an_absolute_local_path(releases, kind):
    path = releases[kind]
    local = [str(path.parents[2]), PROJECT_ROOT, str(Path.home())]
    absolute = re.compile("|".join(rf"(?<![\w.]){re.escape(prefix)}" for prefix in local))
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        for text in _texts(file):
            found = absolute.search(text)
            assert not found, f"{file.relative_to(path)}: {text[found.start() - 60:][:160]}"


@pytest.mark.parametrize("kind", KINDS)
def test_every_card_has_the_sections_a_reader_needs(releases, kind):
    card = (releases[kind] / "README.md").read_text()
    for heading in ("## Fields", "## Example", "## How it was built", "## Loading", "## Browse",
                    "## Limitations and known biases", "## Licence", "## Citation"):
        assert f"\n{heading}\n" in card, heading
    assert "@" in card.split("## Citation", 1)[1]
    loading = card.split("## Loading", 1)[1].split("\n## ", 1)[0]
    assert "`sha256sum -c SHA256SUMS`" in loading and (releases[kind] / "SHA256SUMS").is_file()
    fields = card.split("## Fields", 1)[1].split("\n## ", 1)[0]
    undocumented = re.findall(r"^\| `(\w+)` \| `[^`]*` \| +\|$", fields, re.MULTILINE)
    assert not undocumented, f"columns without a meaning: {undocumented}"


@pytest.mark.parametrize("kind", KINDS)
def test_croissant_json_validates_and_reads_the_main_table(releases, kind):
    mlc = pytest.importorskip("mlcroissant")
    path = releases[kind]
    manifest = json.loads((path / "dataset_info.json").read_text())
    assert "croissant.json" in manifest["files"]
    metadata = json.loads((path / "croissant.json").read_text())
    assert metadata["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    checksums = {f["contentUrl"]: f["sha256"] for f in metadata["distribution"]
                 if f["@type"] == "cr:FileObject"}
    parquet = {name: entry["sha256"] for name, entry in manifest["files"].items()
               if name.endswith(".parquet")}
    assert checksums == parquet
    dataset = mlc.Dataset(str(path / "croissant.json"))
    assert not dataset.metadata.ctx.issues.errors
    main = _card_yaml(path)["configs"][0]
    rows = sum(pq.ParquetFile(f).metadata.num_rows for entry in main["data_files"]
               for f in path.glob(entry["path"]))
    records = list(dataset.records(record_set=main["config_name"]))
    assert len(records) == rows
