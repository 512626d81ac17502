"""The MLCommons Croissant 1.1 metadata of a release (``croissant.json``), written by hand.

Croissant (docs.mlcommons.org/croissant) is JSON-LD: what the dataset is, its licence and
citation, its files (``distribution``) and the structure of their records (``recordSet``).
A release describes itself as:

- a ``FileObject`` per Parquet file: the release-relative path as ``contentUrl``, with the
  manifest's ``sha256`` and size;
- a ``FileSet`` per table config (``default``, ``questions``, ``votes``, ...) that lists
  exactly those files; the config's ``RecordSet`` reads them;
- a ``RecordSet`` per config with a ``Field`` per column. A list is an array (``isArray``,
  ``arrayShape``); a struct has a ``subField`` per member, read with ``jsonPath``
  transforms, one per list crossed, each applied to every element of the list (the
  convention of the Hub's own Croissant files and of ``mlcroissant``). ``mlcroissant``
  cannot read a struct inside two levels of lists; such members are left out and the record
  set's description names them;
- a class label (``features.class_labels`` of the Parquet footer) as the integer field it
  is, its description listing the names (``0 EXIST, 1 AMBIGUOUS, 2 NONE``): Croissant 1.1's
  ``sc:Enumeration`` record sets are joined through ``references``, which mlcroissant cannot
  do inside lists of structs nor for ``-1`` (no label);
- a ``split`` field in configs with train/dev/test files, read from the file's name and
  referencing the ``splits`` RecordSet (``cr:Split``: dev is ``cr:ValidationSplit``);
- the RAI properties of the card: collection, preprocessing, limitations and, for an annotated
  release, annotation protocol, platform and annotations per item.

The tests validate and read this metadata with ``mlcroissant`` (a dev dependency); nothing
here imports it, so Dataflow workers need nothing more.
"""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa

from transforms.release.card import CardInfo
from transforms.release.features import class_labels, label_codes, unlabeled_names
from transforms.release.tables import SPLIT_NAMES, Table

CROISSANT_1_1 = "http://mlcommons.org/croissant/1.1"
PARQUET = "application/x-parquet"

# The Croissant JSON-LD context: mlcroissant's standard keys (it warns when one is missing)
# and the Croissant 1.1 terms (arrayShape, containedIn, isArray).
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "arrayShape": "cr:arrayShape",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "containedIn": "cr:containedIn",
    "cr": "http://mlcommons.org/croissant/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileObject": "cr:fileObject",
    "fileProperty": "cr:fileProperty",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isArray": "cr:isArray",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}

LICENSE_URLS = {
    "apache-2.0": "https://www.apache.org/licenses/LICENSE-2.0",
    "cc0-1.0": "https://creativecommons.org/publicdomain/zero/1.0/",
    "cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/",
    "cc-by-sa-3.0": "https://creativecommons.org/licenses/by-sa/3.0/",
    "cc-by-sa-4.0": "https://creativecommons.org/licenses/by-sa/4.0/",
    "cc-by-nc-4.0": "https://creativecommons.org/licenses/by-nc/4.0/",
    "cc-by-nc-sa-4.0": "https://creativecommons.org/licenses/by-nc-sa/4.0/",
    "mit": "https://opensource.org/license/mit",
}

SPLIT_URLS = {"train": "cr:TrainingSplit", "dev": "cr:ValidationSplit", "test": "cr:TestSplit"}


def croissant_metadata(manifest: dict[str, Any], tables: list[Table], info: CardInfo,
                       stats: dict[str, Any]) -> dict[str, Any]:
    """MLCommons Croissant 1.1 JSON-LD of a release (JSON-serializable dict).

    ``tables`` are the release's Parquet tables (``release_tables``), main config first;
    the manifest gives each file's sha256 and size and the column descriptions; ``stats``
    says whether votes were simulated. The same inputs give the same JSON; like the card and
    the manifest it carries the publication time (``datePublished``, the manifest's
    ``created``), so a rebuild differs from the first build there only."""
    configs: dict[str, list[Table]] = {}
    for table in tables:
        configs.setdefault(table.config, []).append(table)
    descriptions = {(c["name"], _type_name(c.get("type", ""))): c["description"]
                    for c in manifest.get("schema", []) if c.get("description")}
    split_dirs = [name for name in SPLIT_URLS if any(_split_dir(t) == name for t in tables)]
    distribution = [_file_object(path, manifest["files"][path])
                    for table in tables for path in table.files]
    distribution += [_file_set(config, members) for config, members in configs.items()]
    record_sets = [_splits_record_set(split_dirs)] if split_dirs else []
    record_sets += [_record_set(config, members, descriptions)
                    for config, members in configs.items()]
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CROISSANT_1_1,
        "name": manifest["dataset"],
        "alternateName": info.pretty_name,
        "description": info.summary,
        "license": _license(info),
        "citeAs": info.citation,
        "version": manifest["version"],
        "datePublished": manifest["created"],
        "inLanguage": list(info.language),
        "keywords": [*info.task_categories, *info.task_ids],
        "distribution": distribution,
        "recordSet": record_sets,
        **_rai(manifest, info, stats),
    }


def _license(info: CardInfo) -> str | dict[str, Any]:
    """A licence URL for a known Hub licence id, else a CreativeWork with the card's text."""
    if info.license in LICENSE_URLS:
        return LICENSE_URLS[info.license]
    return {"@type": "sc:CreativeWork", "name": info.license, "description": info.license_text}


def _rai(manifest: dict[str, Any], info: CardInfo, stats: dict[str, Any]) -> dict[str, Any]:
    """The Croissant RAI properties that apply."""
    rai: dict[str, Any] = {}
    if info.collection:
        rai["rai:dataCollection"] = info.collection
    if info.preprocessing:
        rai["rai:dataPreprocessingProtocol"] = [info.preprocessing]
    if info.limitations:
        rai["rai:dataLimitations"] = list(info.limitations)
    if info.annotation:
        rai["rai:dataAnnotationProtocol"] = [info.annotation]
        rai["rai:dataAnnotationPlatform"] = [
            "simulated annotators (pipelines.annotate simulate), not human judgments"
            if stats.get("simulated_votes") else
            "votes imported with pipelines.annotate import (Label Studio exports or a crowd "
            "platform's votes)"]
        per_item = annotations_per_item(manifest)
        if per_item:
            rai["rai:annotationsPerItem"] = per_item
    return rai


def annotations_per_item(manifest: dict[str, Any]) -> str:
    """The judgments per item by split, e.g. ``"train: 1, dev: 5, test: 5"``, from the
    annotation options' ``ways``; ``""`` when they are not recorded."""
    ways = manifest.get("options", {}).get("ways")
    if not isinstance(ways, dict) or not ways:
        return ""
    order = [s for s in SPLIT_NAMES if s in ways] + sorted(set(ways) - set(SPLIT_NAMES))
    return ", ".join(f"{split}: {ways[split]}" for split in order)


def _split_dir(table: Table) -> str:
    """The split directory (``train``, ``dev``, ``test``) of a split table, else ``""``."""
    last = table.directory.rsplit("/", 1)[-1]
    return last if SPLIT_NAMES.get(last) == table.split else ""


def _file_object(path: str, entry: dict[str, Any]) -> dict[str, Any]:
    return {"@type": "cr:FileObject", "@id": path, "name": path, "contentUrl": path,
            "contentSize": f"{entry['bytes']} B", "encodingFormat": PARQUET,
            "sha256": entry["sha256"]}


def _file_set_id(config: str) -> str:
    return f"{config}-parquet-files"


def _file_set(config: str, tables: list[Table]) -> dict[str, Any]:
    return {"@type": "cr:FileSet", "@id": _file_set_id(config), "name": _file_set_id(config),
            "description": f"The Parquet files of the {config} table, as the FileObjects.",
            "encodingFormat": PARQUET, "includes": [p for t in tables for p in t.files]}


def _splits_record_set(split_dirs: list[str]) -> dict[str, Any]:
    return {
        "@type": "cr:RecordSet", "@id": "splits", "name": "splits", "dataType": "cr:Split",
        "description": "The splits of the release; dev is the validation split.",
        "key": {"@id": "splits/name"},
        "field": [
            {"@type": "cr:Field", "@id": "splits/name", "name": "name", "dataType": "sc:Text"},
            {"@type": "cr:Field", "@id": "splits/url", "name": "url", "dataType": "sc:URL"},
        ],
        "data": [{"splits/name": name, "splits/url": SPLIT_URLS[name]} for name in split_dirs],
    }


def _type_name(arrow_type: str) -> str:
    """An Arrow type's name, the same whether it was read from Parquet or not."""
    return arrow_type.replace("element: ", "item: ")


def _record_set(config: str, tables: list[Table],
                descriptions: dict[tuple[str, str], str]) -> dict[str, Any]:
    """The RecordSet of a config; a column has the manifest's description of the column of
    that name and type (the manifest's schema is the main table's, or all tables')."""
    file_set = _file_set_id(config)
    left_out: list[str] = []
    schema = tables[0].schema
    codes = {f"{config}/{path.replace('.', '/')}": f"Class label: {text}."
             for path, text in label_codes(class_labels(schema),
                                           unlabeled_names(schema)).items()}
    fields = [_field(f"{config}/{column.name}", column.name, column.type,
                     {"fileSet": {"@id": file_set}, "extract": {"column": column.name}},
                     [], 0, left_out,
                     descriptions.get((column.name, _type_name(str(column.type))), ""), codes)
              for column in schema]
    fields = [field for field in fields if field]
    split_tables = [t for t in tables if _split_dir(t)]
    if split_tables:
        fields.insert(0, _split_field(config, split_tables, set(tables[0].schema.names)))
    rows = ", ".join(f"{t.split}: {t.rows}" for t in tables)
    description = f"The {config} table, one record per row ({rows} rows)."
    if left_out:
        description += (" Not described (lists nested in lists of structs, which mlcroissant "
                        "cannot read): " + ", ".join(left_out) + ".")
    return {"@type": "cr:RecordSet", "@id": config, "name": config,
            "description": description, "field": fields}


def _shard_prefix(tables: list[Table]) -> str | None:
    """The prefix every shard's file name has before ``<split>-`` (``""`` for shards named
    ``<split>-00000-of-00001.parquet``, ``"simplified-nq-"`` for NQ's simplified files), or
    ``None`` when the files are named otherwise."""
    first = tables[0]
    name = first.files[0].rsplit("/", 1)[-1] if first.files else ""
    marker = f"{_split_dir(first)}-"
    if not _split_dir(first) or marker not in name:
        return None
    prefix = name[:name.index(marker)]
    named = all(_split_dir(t) and path.rsplit("/", 1)[-1].startswith(f"{prefix}{_split_dir(t)}-")
                for t in tables for path in t.files)
    return prefix if named else None


def _split_field(config: str, tables: list[Table], columns: set[str]) -> dict[str, Any]:
    """The split of a record, from its file, referencing the ``splits`` RecordSet.

    Shards are named ``<split>-00000-of-00001.parquet``, so the split is read from the file
    name: mlcroissant applies the regex twice to a field that references another record set
    (when joining, then when reading), so it also matches the split name alone; and a filter
    (``filters={"default/split": "dev"}``) turns it into file globs that cannot pick another
    config's ``dev`` files. Shards named ``<prefix><split>-...`` with one prefix for all
    (NQ's ``simplified/<split>/simplified-nq-<split>-00.parquet``) are read the same way, the
    prefix optional, so the split name alone matches too and reading is quiet (a regex that only
    matched the full path logged "Could not match" once per record). Files named otherwise
    fall back to the path's directory (the rest of the path optional for a table at the
    release's root). In a table with a ``split`` column, this field is ``file_split``."""
    name = "split"
    while name in columns:
        name = f"file_{name}"
    choices = "|".join(re.escape(_split_dir(t)) for t in tables)
    prefix = _shard_prefix(tables)
    if prefix is not None:
        optional = f"(?:{re.escape(prefix)})?" if prefix else ""
        extract, regex = "filename", f"^{optional}({choices})(?:-.+\\.parquet)?$"
    else:
        parent = tables[0].directory.rpartition("/")[0]
        extract, regex = "fullpath", (f"^{re.escape(parent)}/({choices})/.+$" if parent
                                      else f"^({choices})(?:/.+)?$")
    return {"@type": "cr:Field", "@id": f"{config}/{name}", "name": name,
            "description": "The split of the record: train, dev (validation) or test.",
            "dataType": "sc:Text",
            "source": {"fileSet": {"@id": _file_set_id(config)},
                       "extract": {"fileProperty": extract},
                       "transform": {"regex": regex}},
            "references": {"field": {"@id": "splits/name"}}}


def _field(field_id: str, name: str, data_type: pa.DataType, source: dict[str, Any],
           json_paths: list[str], lists_above: int, left_out: list[str],
           description: str = "", codes: dict[str, str] | None = None) -> dict[str, Any]:
    """The Field of a column (``json_paths`` empty) or of a struct member inside it, or ``{}``
    (appending its id to ``left_out``) when mlcroissant could not read it. A class label
    (``codes``, by field id) is an integer field whose description lists its names."""
    field: dict[str, Any] = {"@type": "cr:Field", "@id": field_id, "name": name}
    codes = codes or {}
    description = " ".join(text for text in (description, codes.get(field_id, "")) if text)
    if description:
        field["description"] = description
    shape = []
    while pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        shape.append("-1")
        data_type = data_type.value_type
    if pa.types.is_struct(data_type):
        if lists_above + len(shape) > 1:  # mlcroissant maps a jsonPath over one list only
            left_out.append(field_id)
            return {}
        # A member after a list is a new jsonPath, applied to each element of the list.
        members = [
            _field(f"{field_id}/{member.name}", member.name, member.type, source,
                   [*json_paths, member.name] if shape or not json_paths
                   else [*json_paths[:-1], f"{json_paths[-1]}.{member.name}"],
                   lists_above + len(shape), left_out, codes=codes)
            for member in data_type]
        field["subField"] = [member for member in members if member]
        if not field["subField"]:
            left_out.append(field_id)
            return {}
    else:
        field["dataType"] = data_type_of(data_type)
        field["source"] = source
        if json_paths:
            field["source"] = {**source, "transform": [{"jsonPath": p} for p in json_paths]}
    if shape:
        field["isArray"] = True
        field["arrayShape"] = ",".join(shape)
    return field


def data_type_of(data_type: pa.DataType) -> str:
    """The Croissant dataType of an Arrow scalar type."""
    if pa.types.is_boolean(data_type):
        return "sc:Boolean"
    if pa.types.is_integer(data_type):
        kind = "UInt" if pa.types.is_unsigned_integer(data_type) else "Int"
        return f"cr:{kind}{data_type.bit_width}"
    if pa.types.is_floating(data_type):
        return f"cr:Float{data_type.bit_width}"
    if pa.types.is_timestamp(data_type):
        return "sc:DateTime"
    if pa.types.is_date(data_type):
        return "sc:Date"
    return "sc:Text"
