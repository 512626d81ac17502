"""Reading a release's records with mlcroissant logs and warns nothing (issue 38 §3): NQ's
``simplified`` config, whose shards are not named by split (``simplified-nq-train-00.parquet``),
reads its split from the path, once per file and again per record; a regex that only matched
the full path logged "Could not match ..." for every record."""

from __future__ import annotations

import logging
import re
import warnings
from pathlib import Path

import pyarrow as pa
import pytest

from tests.transforms.release.test_croissant import (
    INFO,
    arrow_rows,
    canonical,
    croissant_rows,
    load,
    write_release,
)
from transforms.release.croissant import croissant_metadata
from transforms.release.tables import release_tables

SCHEMA = pa.schema([("example_id", pa.int64()), ("question_text", pa.string())])


def _release(tmp_path: Path) -> tuple[Path, dict, list]:
    """An NQ-like release: the main table named by split, ``simplified`` named otherwise."""
    version_dir = tmp_path / "nq" / "1.0.0"
    rows = {split: [{"example_id": i, "question_text": f"{split} q{i}"} for i in range(n)]
            for split, n in (("train", 4), ("dev", 2), ("test", 1))}
    files = {f"{split}/{split}-00000-of-00001.parquet": (SCHEMA, r) for split, r in rows.items()}
    files.update({f"simplified/{split}/simplified-nq-{split}-00.parquet": (SCHEMA, r)
                  for split, r in rows.items()})
    manifest = write_release(version_dir, files, dataset="nq")
    return version_dir, manifest, release_tables(str(version_dir), manifest["files"])


def test_reading_simplified_records_logs_and_warns_nothing(tmp_path, caplog):
    version_dir, manifest, tables = _release(tmp_path)
    metadata = croissant_metadata(manifest, tables, INFO, {})
    split = next(f for r in metadata["recordSet"] if r["@id"] == "simplified"
                 for f in r["field"] if f["@id"] == "simplified/split")
    assert split["source"]["extract"] == {"fileProperty": "filename"}
    regex = re.compile(split["source"]["transform"]["regex"])
    for value in ("simplified-nq-train-00.parquet", "train"):
        assert regex.match(value).group(1) == "train"  # the path, and the split name alone
    dataset = load(version_dir, metadata, caplog)
    caplog.clear()
    with caplog.at_level(logging.DEBUG), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read = {config: croissant_rows(dataset, config) for config in ("default", "simplified")}
        dev = croissant_rows(dataset, "simplified", **{"simplified/split": "dev"})
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert [str(w.message) for w in caught] == []
    for config, rows in read.items():
        assert canonical(rows) == canonical(
            [row for t in tables if t.config == config
             for row in arrow_rows(version_dir, t, split=t.directory.rsplit("/", 1)[-1])])
    assert sorted(r["question_text"] for r in dev) == ["dev q0", "dev q1"]
    assert {r["split"] for r in dev} == {"dev"}


@pytest.mark.parametrize(("name", "split"), [("simplified-nq-train-00.parquet", "train"),
                                             ("simplified-nq-dev-03.parquet", "dev"),
                                             ("test", "test")])
def test_the_split_regex_takes_the_split_of_a_file_name_or_a_split(tmp_path, name, split):
    _, manifest, tables = _release(tmp_path)
    fields = {f["@id"]: f for r in croissant_metadata(manifest, tables, INFO, {})["recordSet"]
              for f in r["field"]}
    regex = re.compile(fields["simplified/split"]["source"]["transform"]["regex"])
    assert regex.match(name).group(1) == split
    assert regex.match("simplified-nq-validation-00.parquet") is None
    assert fields["default/split"]["source"]["transform"]["regex"] == \
        "^(train|dev|test)(?:-.+\\.parquet)?$"  # the main table's, as before
