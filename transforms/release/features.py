"""The Hugging Face ``datasets`` features of a release table, stored in its Parquet footer.

``datasets`` writes ``{"info": {"features": Features.to_dict()}}`` as JSON under the schema
metadata key ``huggingface`` (``ArrowWriter._build_metadata``, ``Features.arrow_schema``) and
reads it back in ``Features.from_arrow_schema``: so ``Dataset.from_parquet`` or
``load_dataset("parquet", data_files=...)`` on one shard recovers the features, class labels
included, without the card. A schema names its class-label columns with
``with_class_labels`` (dotted paths, as ``CardInfo.class_labels``); the writer
(``transforms.release.formats``) turns that into the ``huggingface`` key.

A class label is stored as the int64 index of its name (``datasets``' ``ClassLabel``), and
``-1`` is "no label", as in ``datasets``: a column may name the value it stores as ``-1``
(``unlabeled``, e.g. ``NONE`` of a yes/no answer). Rows in code hold names: ``encode_row``
turns them into indexes (the writer does it for every file) and ``decode_row`` back into
names. Both accept names and indexes alike, so rows read from a release written before a
column became a class label (names as strings) and from one written after (indexes) give the
same file again. The unlabeled names are kept in the footer too (``UNLABELED_KEY``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

HF_METADATA_KEY = b"huggingface"
CLASS_LABELS_KEY = b"class_labels"
UNLABELED_KEY = b"class_labels_unlabeled"
NO_LABEL = -1


def with_class_labels(schema: pa.Schema, labels: dict[str, tuple[str, ...]],
                      unlabeled: dict[str, str] | None = None) -> pa.Schema:
    """``schema`` declaring the integer columns at ``labels``' dotted paths class labels;
    ``unlabeled`` names, per path, the value stored as ``-1`` (no label)."""
    unknown = set(unlabeled or {}) - set(labels)
    if unknown:
        raise ValueError(f"unlabeled names for columns that are no class label: {unknown}")
    metadata = {**(schema.metadata or {}), CLASS_LABELS_KEY: json.dumps(labels).encode()}
    if unlabeled:
        metadata[UNLABELED_KEY] = json.dumps(unlabeled).encode()
    return schema.with_metadata(metadata)


def label_codes(labels: dict[str, tuple[str, ...]], unlabeled: dict[str, str]
                ) -> dict[str, str]:
    """``{path: "0 EXIST, 1 AMBIGUOUS, 2 NONE"}``: how each class label is stored (``-1
    NONE`` last for a column that names its unlabeled value)."""
    return {path: ", ".join([f"{i} {name}" for i, name in enumerate(names)]
                            + ([f"{NO_LABEL} {unlabeled[path]}"] if path in unlabeled else []))
            for path, names in labels.items()}


def _hf_labels(features: Mapping[str, Any], prefix: str = "") -> dict[str, tuple[str, ...]]:
    labels: dict[str, tuple[str, ...]] = {}
    for name, value in features.items():
        path = f"{prefix}.{name}" if prefix else name
        while isinstance(value, dict) and value.get("_type") in ("List", "Sequence"):
            value = value["feature"]
        if isinstance(value, dict) and value.get("_type") == "ClassLabel":
            labels[path] = tuple(value["names"])
        elif isinstance(value, dict) and "_type" not in value:
            labels.update(_hf_labels(value, path))
    return labels


def class_labels(schema: pa.Schema) -> dict[str, tuple[str, ...]]:
    """The class labels of ``schema``: those ``with_class_labels`` declared, or, on a schema
    read from a release file, the ``ClassLabel`` features of its footer."""
    metadata = schema.metadata or {}
    if CLASS_LABELS_KEY in metadata:
        return {path: tuple(names)
                for path, names in json.loads(metadata[CLASS_LABELS_KEY]).items()}
    if HF_METADATA_KEY in metadata:
        features = json.loads(metadata[HF_METADATA_KEY]).get("info", {}).get("features", {})
        return _hf_labels(features)
    return {}


def unlabeled_names(schema: pa.Schema) -> dict[str, str]:
    """The name stored as ``-1`` (no label) of the class labels that declare one."""
    raw = (schema.metadata or {}).get(UNLABELED_KEY)
    return dict(json.loads(raw)) if raw else {}


def _dtype(data_type: pa.DataType) -> str:
    if pa.types.is_boolean(data_type):
        return "bool"
    if pa.types.is_floating(data_type):
        return {16: "float16", 32: "float32", 64: "float64"}[data_type.bit_width]
    return str(data_type)


def _is_list(data_type: pa.DataType) -> bool:
    return pa.types.is_list(data_type) or pa.types.is_large_list(data_type)


def feature(data_type: pa.DataType, path: str,
            labels: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """The ``Features.to_dict()`` entry of an Arrow type at dotted ``path``."""
    if _is_list(data_type):
        return {"feature": feature(data_type.value_type, path, labels), "_type": "List"}
    if pa.types.is_struct(data_type):
        return {data_type.field(i).name: feature(data_type.field(i).type,
                                                 f"{path}.{data_type.field(i).name}", labels)
                for i in range(data_type.num_fields)}
    if path in labels and pa.types.is_integer(data_type):
        return {"names": list(labels[path]), "_type": "ClassLabel"}
    return {"dtype": _dtype(data_type), "_type": "Value"}


def hf_features(schema: pa.Schema) -> dict[str, Any]:
    """``Features.to_dict()`` of ``schema`` with its declared class labels."""
    labels = class_labels(schema)
    return {f.name: feature(f.type, f.name, labels) for f in schema}


def with_hf_features(schema: pa.Schema) -> pa.Schema:
    """``schema`` as written to Parquet: its features under ``huggingface`` (as ``datasets``
    writes them), the ``class_labels`` declaration folded into them.

    A column holding a class label is written nullable: ``Features.from_arrow_schema`` uses
    the footer's feature of a column only when the column's Arrow field equals the feature's
    own, which ``datasets`` makes nullable; a non-null column would load as a plain int64.
    Its values are never null all the same (the manifest's schema says so)."""
    metadata = {k: v for k, v in (schema.metadata or {}).items()
                if k not in (CLASS_LABELS_KEY, HF_METADATA_KEY)}
    metadata[HF_METADATA_KEY] = json.dumps({"info": {"features": hf_features(schema)}}).encode()
    labelled = {path.split(".")[0] for path in class_labels(schema)}
    return pa.schema([f.with_nullable(True) if f.name in labelled else f for f in schema],
                     metadata=metadata)


def encoder(names: tuple[str, ...], unlabeled: str | None = None) -> Callable[[Any], Any]:
    """Name -> index of one class label (``unlabeled`` -> ``-1``); an index or ``None`` is
    kept, so a row read from a release of either encoding is written the same."""
    codes = {name: index for index, name in enumerate(names)}
    if unlabeled is not None:
        codes[unlabeled] = NO_LABEL

    def encode(value: Any) -> Any:
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            if value is not None and not NO_LABEL <= value < len(names):
                raise ValueError(f"class label index {value} is not in 0..{len(names) - 1}")
            return value
        if value not in codes:
            raise ValueError(f"{value!r} is not one of the class labels {', '.join(codes)}")
        return codes[value]
    return encode


def decoder(names: tuple[str, ...], unlabeled: str | None = None) -> Callable[[Any], Any]:
    """Index -> name of one class label (``-1`` -> ``unlabeled``, when it has one); a name
    (a release written before the column was a class label) or ``None`` is kept."""
    def decode(value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            if value == NO_LABEL and unlabeled is not None:
                return unlabeled
            return names[value] if 0 <= value < len(names) else value
        return value
    return decode


def _apply(value: Any, keys: list[str], convert: Callable[[Any], Any]) -> Any:
    """``value`` with ``convert`` applied at the dotted ``keys`` below it, through lists
    (of structs, or of the leaf values) and structs; absent keys are left alone."""
    if isinstance(value, list):
        return [_apply(item, keys, convert) for item in value]
    if not keys:
        return convert(value)
    if not isinstance(value, dict) or keys[0] not in value:
        return value
    return {**value, keys[0]: _apply(value[keys[0]], keys[1:], convert)}


def _convert_row(row: dict[str, Any], schema: pa.Schema,
                 make: Callable[[tuple[str, ...], str | None], Callable[[Any], Any]]
                 ) -> dict[str, Any]:
    unlabeled = unlabeled_names(schema)
    for path, names in class_labels(schema).items():
        row = _apply(row, path.split("."), make(names, unlabeled.get(path)))
    return row


def encode_row(row: dict[str, Any], schema: pa.Schema) -> dict[str, Any]:
    """``row`` with the names at ``schema``'s class labels as their indexes (a copy of what
    changes; ``row`` itself is not modified)."""
    return _convert_row(row, schema, encoder)


def decode_row(row: dict[str, Any], schema: pa.Schema) -> dict[str, Any]:
    """``row`` with the indexes at ``schema``'s class labels as their names."""
    return _convert_row(row, schema, decoder)


def names_schema(schema: pa.Schema) -> pa.Schema:
    """``schema`` with its top-level and nested class labels as strings (no class labels):
    the layout of a release written before those columns were class labels."""
    labels = class_labels(schema)

    def retype(data_type: pa.DataType, path: str) -> pa.DataType:
        if _is_list(data_type):
            return pa.list_(retype(data_type.value_type, path))
        if pa.types.is_struct(data_type):
            return pa.struct([f.with_type(retype(f.type, f"{path}.{f.name}"))
                              for f in data_type])
        return pa.string() if path in labels else data_type

    metadata = {k: v for k, v in (schema.metadata or {}).items()
                if k not in (CLASS_LABELS_KEY, UNLABELED_KEY, HF_METADATA_KEY)}
    return pa.schema([f.with_type(retype(f.type, f.name)) for f in schema], metadata=metadata)


def label_values(column: pa.Array, parts: list[str]) -> tuple[pa.Array, np.ndarray]:
    """The values at the dotted ``parts`` below ``column`` (a class label's path, as
    ``class_labels`` names it), through lists and structs, with the row of ``column`` each
    comes from; nothing when a part is asked of what is no struct."""
    values, rows = column, np.arange(len(column))
    for part in [*parts, None]:
        while pa.types.is_list(values.type) or pa.types.is_large_list(values.type):
            rows = rows[pc.list_parent_indices(values).to_numpy()]
            values = pc.list_flatten(values)
        if part is not None:
            if not pa.types.is_struct(values.type):
                return pa.array([], pa.int64()), np.arange(0)
            values = pc.struct_field(values, part)
    return values, rows
