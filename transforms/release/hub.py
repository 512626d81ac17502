"""The YAML front matter of a release's card: what the Hugging Face Hub and ``datasets`` read.

``datasets`` (4 and later) has no loading scripts: a directory of Parquet files loads through
the card's ``configs`` (huggingface.co/docs/hub/datasets-manual-configuration). Each table
of the release (``transforms.release.tables``) is listed by config and split, so
``load_dataset(dir)`` loads the main table and never mixes in another table's files (the
candidates of ReQA, ``rejected/queries``, ``bm25/*.json``). A split with no rows is left out of
the YAML: ``datasets`` cannot build an empty split ("corresponds to no data"); its zero-row
Parquet file stays in the release for pyarrow and DuckDB, and the card says so.
``dataset_info`` gives the features of every config, with the class labels its Parquet footer
declares (``features.class_labels``: the card and the footer cannot disagree);
``annotations_creators`` says who annotated (``CardInfo``; ``machine-generated`` for simulated
votes, with the ``simulated-annotations`` tag). A release made from simulated votes also says
so in every config's ``description`` (``config_description``): ``datasets`` reads
``dataset_info``'s into ``Dataset.info.description``, so a training script holding the config
can tell.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import yaml

from transforms.release.card import CardInfo
from transforms.release.features import class_labels
from transforms.release.simulated import SIMULATED_DESCRIPTION, simulated_record, warning_text
from transforms.release.tables import Table

SIZE_CATEGORIES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                   (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"),
                   (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B")]


def size_category(rows: int) -> str:
    """The Hub's ``size_categories`` bucket of a row count."""
    return next((name for limit, name in SIZE_CATEGORIES if rows < limit), "n>1B")


def _class_label(names: tuple[str, ...]) -> dict[str, Any]:
    return {"class_label": {"names": {str(i): name for i, name in enumerate(names)}}}


def feature(data_type: pa.DataType, path: str, labels: dict[str, tuple[str, ...]]) -> Any:
    """The ``datasets`` YAML feature of an Arrow type (``Features._to_yaml_list``'s format);
    ``path`` is the dotted column path that ``labels`` may name as a class label."""
    if path in labels and pa.types.is_integer(_leaf(data_type)):
        return _wrap_lists(data_type, _class_label(labels[path]))
    if pa.types.is_struct(data_type):
        return {"struct": fields(data_type, labels, path)}
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        inner = data_type.value_type
        if pa.types.is_struct(inner):
            return {"list": fields(inner, labels, path)}
        value = feature(inner, path, labels)
        return {"list": value["dtype"] if "dtype" in value else value}
    return {"dtype": _dtype(data_type)}


def _leaf(data_type: pa.DataType) -> pa.DataType:
    while pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        data_type = data_type.value_type
    return data_type


def _wrap_lists(data_type: pa.DataType, leaf: dict[str, Any]) -> dict[str, Any]:
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        inner = _wrap_lists(data_type.value_type, leaf)
        return {"list": inner.get("dtype", inner)}
    return {"dtype": leaf}


def _dtype(data_type: pa.DataType) -> str:
    if pa.types.is_string(data_type):
        return "string"
    if pa.types.is_large_string(data_type):
        return "large_string"
    if pa.types.is_boolean(data_type):
        return "bool"
    if pa.types.is_floating(data_type):
        return {16: "float16", 32: "float32", 64: "float64"}[data_type.bit_width]
    return str(data_type)


def fields(struct: pa.Schema | pa.StructType, labels: dict[str, tuple[str, ...]],
           prefix: str = "") -> list[dict[str, Any]]:
    """The YAML feature list of a schema or struct."""
    items = list(struct) if isinstance(struct, pa.Schema) else [struct.field(i) for i in
                                                                range(struct.num_fields)]
    return [{"name": f.name, **feature(f.type, f"{prefix}.{f.name}" if prefix else f.name,
                                       labels)} for f in items]


def config_description(manifest: dict[str, Any]) -> str | None:
    """What every config of a release made from simulated votes says (``None`` for any
    other): the YAML ``configs`` entry's and ``dataset_info``'s ``description``, the latter
    what ``load_dataset(...)[split].info.description`` gives."""
    record = simulated_record(manifest)
    return None if record is None else f"{SIMULATED_DESCRIPTION} {warning_text(record)}"


def front_matter(manifest: dict[str, Any], info: CardInfo, tables: list[Table]) -> str:
    """The card's ``---``-delimited YAML header."""
    listed = [t for t in tables if t.rows > 0]
    configs: dict[str, list[Table]] = {}
    for table in listed:
        configs.setdefault(table.config, []).append(table)
    main = tables[0].config if tables else None
    description = config_description(manifest)
    config_entries = []
    infos = []
    for name, splits in configs.items():
        entry: dict[str, Any] = {"config_name": name,
                                 "data_files": [{"split": t.split, "path": t.pattern}
                                                for t in splits]}
        if name == main and name != "default":
            entry["default"] = True
        if description:
            entry["description"] = description
        config_entries.append(entry)
        infos.append({"config_name": name,
                      **({"description": description} if description else {}),
                      "features": fields(splits[0].schema, class_labels(splits[0].schema)),
                      "splits": [{"name": t.split, "num_bytes": t.data_bytes,
                                  "num_examples": t.rows} for t in splits]})
    main_rows = sum(t.rows for t in configs.get(main, []))
    header: dict[str, Any] = {
        "pretty_name": info.pretty_name,
        "license": info.license,
        **({"license_name": f"{manifest['dataset'].replace('_', '-')}-source-terms",
            "license_link": "README.md"} if info.license == "other" else {}),
        "language": list(info.language),
        "annotations_creators": list(info.annotations_creators),
        "task_categories": list(info.task_categories),
        "task_ids": list(info.task_ids),
        "size_categories": [size_category(main_rows)],
        "source_datasets": list(info.source_datasets),
        "tags": [f"qa-dataset-toolkit:{manifest['dataset']}",
                 *(["simulated-annotations"] if simulated_record(manifest) is not None
                   else [])],
        "configs": config_entries,
        "dataset_info": infos,
    }
    text = yaml.safe_dump(header, sort_keys=False, allow_unicode=True, width=100)
    return f"---\n{text}---\n"

