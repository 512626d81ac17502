"""croissant.json: valid Croissant 1.1 for mlcroissant, whose records equal pyarrow's."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import mlcroissant as mlc
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from transforms.release.card import CardInfo
from transforms.release.croissant import croissant_metadata, data_type_of
from transforms.release.tables import Table, release_tables

INFO = CardInfo(
    pretty_name="Toy QA", summary="A toy **QA** dataset.", license="cc-by-sa-3.0",
    license_text="Wikipedia text: CC BY-SA 3.0.", language=("en",),
    task_categories=("question-answering",), task_ids=("extractive-qa",),
    source_datasets=("original",), citation="@article{toy, title={Toy}, year={2026}}",
    limitations=("Toy questions only.", "One annotator."), collection="Written by hand.",
    preprocessing="Deduplicated by id.", annotations_creators=("expert-generated",))
ANNOTATED = replace(INFO, annotation="Five workers judge each answer.")

ANSWERS = pa.struct([("text", pa.list_(pa.string())), ("answer_start", pa.list_(pa.int32()))])
PARAGRAPH = pa.struct([("id", pa.int32()), ("text", pa.string())])
DOCUMENT = pa.struct([("title", pa.string()), ("tokens", pa.struct(
    [("token", pa.list_(pa.string())), ("is_html", pa.list_(pa.bool_()))]))])
SPAN = pa.struct([("start", pa.int64()), ("end", pa.int64())])
SHORT = pa.struct([("start", pa.list_(pa.int64())), ("text", pa.list_(pa.string()))])
ANNOTATIONS = pa.struct([("id", pa.list_(pa.string())), ("long_answer", pa.list_(SPAN)),
                         ("short_answers", pa.list_(SHORT))])
NESTED = pa.schema([
    ("id", pa.string()), ("n", pa.int32()), ("score", pa.float64()), ("ok", pa.bool_()),
    ("note", pa.string()), ("tags", pa.list_(pa.string())), ("answers", ANSWERS),
    ("paragraphs", pa.list_(PARAGRAPH)), ("document", DOCUMENT), ("annotations", ANNOTATIONS)])


def nested_row(i: int) -> dict[str, Any]:
    return {
        "id": f"q{i}", "n": None if i == 2 else i, "score": i / 4, "ok": i % 2 == 0,
        "note": None if i == 1 else f"note {i}", "tags": [f"t{j}" for j in range(i % 3)],
        "answers": {"text": [f"a{i}", "b"], "answer_start": [i, 2 * i]},
        "paragraphs": [{"id": j, "text": f"p{j} of {i}"} for j in range(i % 3)],
        "document": {"title": f"Doc {i}", "tokens": {"token": ["<P>", f"w{i}"],
                                                     "is_html": [True, False]}},
        "annotations": {"id": [f"ann{i}"] if i % 2 else [],
                        "long_answer": [{"start": i, "end": i + 5}] if i % 2 else [],
                        "short_answers": [{"start": [i, i + 1], "text": ["x", "y"]}]
                        if i % 2 else []},
    }


def write_release(version_dir: Path, files: dict[str, tuple[pa.Schema, list[dict]]],
                  dataset: str = "toy", **manifest: Any) -> dict[str, Any]:
    """Write the Parquet ``files`` (no rows: a file with no row group, as releases do) and
    return the manifest ``publish`` would write."""
    entries = {}
    for path, (schema, rows) in files.items():
        target = version_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if rows:
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), target)
        else:
            pq.ParquetWriter(target, schema).close()
        data = target.read_bytes()
        entries[path] = {"bytes": len(data), "rows": len(rows),
                         "sha256": hashlib.sha256(data).hexdigest()}
    return {"dataset": dataset, "version": "1.0.0", "created": "2026-01-02T03:04:05Z",
            "files": entries, "options": {}, **manifest}


def load(version_dir: Path, metadata: dict[str, Any], caplog) -> mlc.Dataset:
    """``croissant.json`` as mlcroissant loads it: no errors, warnings or log warnings."""
    path = version_dir / "croissant.json"
    path.write_text(json.dumps(metadata, indent=2))
    with caplog.at_level(logging.WARNING):
        dataset = mlc.Dataset(str(path))
    assert not dataset.metadata.ctx.issues.errors
    assert not dataset.metadata.ctx.issues.warnings
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    return dataset


def plain(value: Any) -> Any:
    """An mlcroissant value as pyarrow gives it: str for bytes, Python scalars, member names."""
    if isinstance(value, dict):
        return {key.rsplit("/", 1)[-1]: plain(v) for key, v in value.items()}
    if isinstance(value, (list, np.ndarray)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode()
    return value.item() if isinstance(value, np.generic) else value


def nest(record: dict[str, Any], config: str) -> dict[str, Any]:
    """mlcroissant puts the members of a struct's struct (or list of structs) member at the
    record's top level, keyed by that member's id: put them back inside their parent."""
    record = dict(record)
    for key in sorted(record, key=lambda k: -k.count("/")):
        parent = key.rsplit("/", 1)[0]
        if parent != config:
            record.setdefault(parent, {})[key] = record.pop(key)
    return record


def croissant_rows(dataset: mlc.Dataset, config: str, **filters: str) -> list[dict]:
    records = dataset.records(record_set=config, filters=filters or None)
    return [plain(nest(record, config)) for record in records]


def arrow_rows(version_dir: Path, table: Table, **extra: str) -> list[dict]:
    rows = pa.concat_tables(pq.read_table(version_dir / path) for path in table.files)
    return [{**row, **extra} for row in rows.to_pylist()]


def canonical(rows: list[dict]) -> list[str]:
    return sorted(json.dumps(row, sort_keys=True) for row in rows)


@pytest.fixture
def split_release(tmp_path) -> tuple[Path, dict[str, Any], list[Table]]:
    """Train in two shards, an empty dev (no row group), test; nested columns."""
    version_dir = tmp_path / "toy" / "1.0.0"
    manifest = write_release(version_dir, {
        "train/train-00000-of-00002.parquet": (NESTED, [nested_row(i) for i in range(3)]),
        "train/train-00001-of-00002.parquet": (NESTED, [nested_row(i) for i in range(3, 5)]),
        "dev/dev-00000-of-00001.parquet": (NESTED, []),
        "test/test-00000-of-00001.parquet": (NESTED, [nested_row(5)]),
    }, schema=[{"name": "id", "type": "string", "nullable": "false",
                "description": "stable id"}])
    return version_dir, manifest, release_tables(str(version_dir), manifest["files"])


def test_split_release_reads_through_mlcroissant_as_pyarrow(split_release, caplog):
    version_dir, manifest, tables = split_release
    dataset = load(version_dir, croissant_metadata(manifest, tables, INFO, {}), caplog)
    expected = [row for t in tables for row in arrow_rows(version_dir, t,
                                                          split=t.directory)]
    got = croissant_rows(dataset, "default")
    assert len(got) == 6
    assert canonical(got) == canonical(expected)
    assert canonical(croissant_rows(dataset, "default", **{"default/split": "train"})) == \
        canonical(arrow_rows(version_dir, tables[0], split="train"))
    assert croissant_rows(dataset, "default", **{"default/split": "dev"}) == []
    splits = [plain(r) for r in dataset.records(record_set="splits")]
    assert splits == [{"name": "train", "url": "cr:TrainingSplit"},
                      {"name": "dev", "url": "cr:ValidationSplit"},
                      {"name": "test", "url": "cr:TestSplit"}]


def test_a_field_per_column_with_types_and_sub_fields(split_release):
    version_dir, manifest, tables = split_release
    record_set = croissant_metadata(manifest, tables, INFO, {})["recordSet"][1]
    fields = {f["name"]: f for f in record_set["field"]}
    assert list(fields) == ["split", *NESTED.names]
    assert fields["id"]["description"] == "stable id"
    assert fields["split"]["references"] == {"field": {"@id": "splits/name"}}
    assert [fields[c]["dataType"] for c in ("id", "n", "score", "ok")] == \
        ["sc:Text", "cr:Int32", "cr:Float64", "sc:Boolean"]
    assert (fields["tags"]["isArray"], fields["tags"]["arrayShape"]) == (True, "-1")
    long_answer = fields["annotations"]["subField"][1]
    assert long_answer["@id"] == "default/annotations/long_answer"
    assert long_answer["isArray"] is True
    assert long_answer["subField"][0]["source"]["transform"] == [
        {"jsonPath": "long_answer"}, {"jsonPath": "start"}]
    token = fields["document"]["subField"][1]["subField"][0]
    assert token["source"]["transform"] == [{"jsonPath": "tokens.token"}]
    assert "(train: 5, validation: 0, test: 1 rows)" in record_set["description"]


def test_files_are_relative_with_their_checksums(split_release):
    version_dir, manifest, tables = split_release
    metadata = croissant_metadata(manifest, tables, INFO, {})
    objects = [d for d in metadata["distribution"] if d["@type"] == "cr:FileObject"]
    assert [o["contentUrl"] for o in objects] == [p for t in tables for p in t.files]
    for entry in objects:
        data = (version_dir / entry["contentUrl"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert entry["contentSize"] == f"{len(data)} B"
        assert entry["encodingFormat"] == "application/x-parquet"
    [file_set] = [d for d in metadata["distribution"] if d["@type"] == "cr:FileSet"]
    assert file_set["includes"] == [o["contentUrl"] for o in objects]
    assert str(version_dir.parent.parent) not in json.dumps(metadata)


def test_same_inputs_give_the_same_json(split_release):
    _, manifest, tables = split_release
    first = json.dumps(croissant_metadata(manifest, tables, INFO, {}))
    assert json.dumps(croissant_metadata(manifest, tables, INFO, {})) == first


def test_dataset_level_properties(split_release):
    _, manifest, tables = split_release
    metadata = croissant_metadata(manifest, tables, INFO, {})
    assert metadata["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    assert (metadata["name"], metadata["alternateName"]) == ("toy", "Toy QA")
    assert metadata["license"] == "https://creativecommons.org/licenses/by-sa/3.0/"
    assert (metadata["version"], metadata["datePublished"]) == ("1.0.0",
                                                                "2026-01-02T03:04:05Z")
    assert metadata["citeAs"] == INFO.citation
    assert metadata["rai:dataCollection"] == "Written by hand."
    assert metadata["rai:dataPreprocessingProtocol"] == ["Deduplicated by id."]
    assert metadata["rai:dataLimitations"] == list(INFO.limitations)
    assert not [key for key in metadata if "nnotation" in key]
    other = replace(INFO, license="other", license_text="BBC text.")
    assert croissant_metadata(manifest, tables, other, {})["license"] == {
        "@type": "sc:CreativeWork", "name": "other", "description": "BBC text."}


def test_multi_table_release(tmp_path, caplog):
    questions = pa.schema([("qid", pa.string()), ("question", pa.string()),
                           ("correct_candidate_ids", pa.list_(pa.string()))])
    candidates = pa.schema([("candidate_id", pa.string()), ("sentence", pa.string()),
                            ("sentence_start", pa.int32())])
    version_dir = tmp_path / "reqa" / "1.0.0"
    manifest = write_release(version_dir, {
        "questions/questions-00000-of-00001.parquet": (questions, [
            {"qid": "a", "question": "Why?", "correct_candidate_ids": ["c1", "c2"]},
            {"qid": "b", "question": "How?", "correct_candidate_ids": []}]),
        "candidates/candidates-00000-of-00001.parquet": (candidates, [
            {"candidate_id": "c1", "sentence": "Because.", "sentence_start": 0},
            {"candidate_id": "c2", "sentence": "So.", "sentence_start": 9}]),
    }, dataset="reqa", schema=[
        {"name": "qid", "type": "string", "description": "question id"},
        {"name": "sentence_start", "type": "int64", "description": "of another table"}])
    tables = release_tables(str(version_dir), manifest["files"], main="questions")
    metadata = croissant_metadata(manifest, tables, INFO, {})
    assert [r["@id"] for r in metadata["recordSet"]] == ["questions", "candidates"]
    fields = {f["@id"]: f for r in metadata["recordSet"] for f in r["field"]}
    assert fields["questions/qid"]["description"] == "question id"
    assert "description" not in fields["candidates/sentence_start"]
    assert "split" not in str(fields)
    dataset = load(version_dir, metadata, caplog)
    for table in tables:
        assert canonical(croissant_rows(dataset, table.config)) == \
            canonical(arrow_rows(version_dir, table))


def test_annotated_release_with_votes(tmp_path, caplog):
    rows = pa.schema([("id", pa.string()), ("gold", pa.list_(pa.int32()))])
    votes = pa.schema([("question_id", pa.string()), ("split", pa.string()),
                       ("paragraph", pa.int32()), ("value", pa.string())])
    files: dict[str, tuple[pa.Schema, list[dict]]] = {}
    for split, n in (("train", 2), ("dev", 1), ("test", 0)):
        files[f"{split}/{split}-00000-of-00001.parquet"] = (
            rows, [{"id": f"{split}{i}", "gold": [i]} for i in range(n)])
        files[f"votes/{split}/{split}-00000-of-00001.parquet"] = (votes, [
            {"question_id": f"{split}{i}", "split": split, "paragraph": None if w else i,
             "value": "yes"} for i in range(n) for w in range(2)])
    version_dir = tmp_path / "nq_annotated" / "1.0.0"
    manifest = write_release(version_dir, files, dataset="nq_annotated",
                             options={"ways": {"test": 5, "train": 1, "dev": 5}})
    tables = release_tables(str(version_dir), manifest["files"])
    metadata = croissant_metadata(manifest, tables, ANNOTATED, {"simulated_votes": 6})
    assert metadata["rai:dataAnnotationProtocol"] == ["Five workers judge each answer."]
    assert metadata["rai:annotationsPerItem"] == "train: 1, dev: 5, test: 5"
    assert "simulated" in metadata["rai:dataAnnotationPlatform"][0]
    dataset = load(version_dir, metadata, caplog)
    votes_tables = [t for t in tables if t.config == "votes"]
    expected = [r for t in votes_tables
                for r in arrow_rows(version_dir, t, file_split=t.directory.split("/")[1])]
    assert canonical(croissant_rows(dataset, "votes")) == canonical(expected)
    dev_votes = croissant_rows(dataset, "votes", **{"votes/file_split": "dev"})
    assert canonical(dev_votes) == canonical(arrow_rows(version_dir, votes_tables[1],
                                                        file_split="dev"))
    assert canonical(croissant_rows(dataset, "default")) == canonical(
        [r for t in tables if t.config == "default"
         for r in arrow_rows(version_dir, t, split=t.directory)])


def test_members_mlcroissant_cannot_read_are_left_out_and_named(tmp_path, caplog):
    inner = pa.struct([("y", pa.int32())])
    schema = pa.schema([("id", pa.string()),
                        ("grid", pa.list_(pa.list_(inner))),
                        ("items", pa.list_(pa.struct([("x", pa.int32()),
                                                      ("inner", pa.list_(inner))])))])
    version_dir = tmp_path / "deep" / "1.0.0"
    manifest = write_release(version_dir, {"train/train-00000-of-00001.parquet": (schema, [
        {"id": "a", "grid": [[{"y": 1}]], "items": [{"x": 1, "inner": [{"y": 2}]}]}])})
    tables = release_tables(str(version_dir), manifest["files"])
    metadata = croissant_metadata(manifest, tables, INFO, {})
    record_set = metadata["recordSet"][1]
    assert [f["name"] for f in record_set["field"]] == ["split", "id", "items"]
    assert record_set["description"].endswith(
        "cannot read): default/grid, default/items/inner.")
    dataset = load(version_dir, metadata, caplog)
    assert croissant_rows(dataset, "default") == [
        {"split": "train", "id": "a", "items": [{"x": 1}]}]


def test_files_not_named_by_split_read_the_split_from_the_directory(tmp_path, caplog):
    schema = pa.schema([("id", pa.string())])
    version_dir = tmp_path / "odd" / "1.0.0"
    manifest = write_release(version_dir, {
        "train/part-0.parquet": (schema, [{"id": "a"}, {"id": "b"}]),
        "test/part-0.parquet": (schema, [{"id": "c"}])})
    tables = release_tables(str(version_dir), manifest["files"])
    metadata = croissant_metadata(manifest, tables, INFO, {})
    assert metadata["recordSet"][1]["field"][0]["source"]["extract"] == {
        "fileProperty": "fullpath"}
    dataset = load(version_dir, metadata, caplog)
    assert croissant_rows(dataset, "default", **{"default/split": "test"}) == [
        {"split": "test", "id": "c"}]


@pytest.mark.parametrize(("arrow", "croissant"), [
    (pa.string(), "sc:Text"), (pa.large_string(), "sc:Text"), (pa.bool_(), "sc:Boolean"),
    (pa.int8(), "cr:Int8"), (pa.int64(), "cr:Int64"), (pa.uint16(), "cr:UInt16"),
    (pa.float32(), "cr:Float32"), (pa.float64(), "cr:Float64"),
    (pa.timestamp("s"), "sc:DateTime"), (pa.date32(), "sc:Date")])
def test_data_types(arrow, croissant):
    assert data_type_of(arrow) == croissant
