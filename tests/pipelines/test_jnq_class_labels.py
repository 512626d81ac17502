"""JNQ / JBoolQ enumerations are Hugging Face class labels (issue 28 §4): any loader of one
Parquet shard gets ``ClassLabel`` features from its footer, the card's YAML features are the
footer's, pyarrow reads the indexes, and ``croissant.json`` names each index."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from transforms.jnq.labels import (
    PARAGRAPH_LABELS,
    SHORT_ANSWER_TYPES,
    STAGES,
    VARIANT_NAMES,
    YES_NO_NAMES,
    as_names,
)

datasets = pytest.importorskip("datasets")


def _shard(directory: Path) -> Path:
    """The first Parquet file of a table directory that has rows."""
    return next(p for p in sorted(directory.glob("*.parquet"))
                if pq.ParquetFile(p).metadata.num_rows)


def _features(path: Path, tmp_path: Path) -> datasets.Features:
    return datasets.Dataset.from_parquet(str(path), cache_dir=str(tmp_path / "cache")).features


def _names(feature) -> list[str]:
    assert isinstance(feature, datasets.ClassLabel), feature
    return feature.names


def test_one_annotated_shard_loads_with_its_class_labels(sample_releases, tmp_path):
    release = sample_releases["jnq_annotated"]
    shard = _shard(release / "train")
    features = _features(shard, tmp_path)
    assert _names(features["variant"]) == list(VARIANT_NAMES)
    annotation = features["annotations"].feature
    assert _names(annotation["label"]) == list(PARAGRAPH_LABELS) == ["EXIST", "AMBIGUOUS",
                                                                     "NONE"]
    assert _names(annotation["short_answer_type"]) == list(SHORT_ANSWER_TYPES)
    assert _names(annotation["yes_no_answer"]) == list(YES_NO_NAMES) == ["NO", "YES"]
    assert _names(_features(_shard(release / "votes" / "train"), tmp_path)["stage"]) == list(
        STAGES)
    rows = pq.read_table(shard).to_pylist()  # pyarrow / DuckDB see the indexes
    notes = [a for row in rows for a in row["annotations"]]
    assert {row["variant"] for row in rows} == {0}
    assert {a["label"] for a in notes} <= {0, 1, 2} and {a["label"] for a in notes}
    assert {a["yes_no_answer"] for a in notes} <= {-1, 0, 1}
    named = [a for row in rows for a in as_names(row)["annotations"]]
    assert [annotation["label"].int2str(a["label"]) for a in notes] == [
        a["label"] for a in named]


def test_built_releases_store_the_variant_as_a_class_label(sample_releases, tmp_path):
    for dataset, index in (("jnq", 0), ("jboolq", 1)):
        shard = _shard(sample_releases[dataset] / "train")
        assert _names(_features(shard, tmp_path)["variant"]) == ["jnq", "jboolq"]
        assert set(pq.read_table(shard, columns=["variant"]).column(0).to_pylist()) == {index}


def _card_header(release: Path) -> dict:
    text = (release / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n")[1])


def _card_features(release: Path) -> dict[str, datasets.Features]:
    return {info["config_name"]: datasets.Features._from_yaml_list(info["features"])
            for info in _card_header(release)["dataset_info"]}


def _config_shard(release: Path, config: str) -> Path:
    """A Parquet file of ``config``, found through the card's ``configs`` data files."""
    (entry,) = [c for c in _card_header(release)["configs"] if c["config_name"] == config]
    patterns = [f["path"] for f in entry["data_files"]]
    return next(path for pattern in patterns for path in sorted(release.glob(pattern)))


@pytest.mark.parametrize("dataset", ["jnq", "jboolq", "jnq_annotated"])
def test_the_card_features_are_the_footer_features(sample_releases, dataset):
    release = sample_releases[dataset]
    card = _card_features(release)
    assert card
    for config, features in card.items():
        shard = _config_shard(release, config)
        footer = datasets.Features.from_arrow_schema(pq.read_schema(shard))
        assert features == footer, config
    loaded = datasets.load_dataset(str(release))
    assert _names(next(iter(loaded.values())).features["variant"]) == list(VARIANT_NAMES)


def test_croissant_names_each_class_label(sample_releases):
    metadata = json.loads((sample_releases["jnq_annotated"] / "croissant.json").read_text())
    fields = {}
    stack = [f for record_set in metadata["recordSet"] for f in record_set.get("field", [])]
    while stack:
        field = stack.pop()
        fields[field["@id"]] = field
        stack += field.get("subField", [])
    assert fields["default/variant"]["dataType"] == "cr:Int64"
    assert "Class label: 0 jnq, 1 jboolq." in fields["default/variant"]["description"]
    assert fields["default/annotations/label"]["description"] == (
        "Class label: 0 EXIST, 1 AMBIGUOUS, 2 NONE.")
    assert fields["default/annotations/yes_no_answer"]["description"] == (
        "Class label: 0 NO, 1 YES, -1 NONE.")
    assert "Class label: 0 good_question" in fields["votes/stage"]["description"]
