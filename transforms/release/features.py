"""The Hugging Face ``datasets`` features of a release table, stored in its Parquet footer.

``datasets`` writes ``{"info": {"features": Features.to_dict()}}`` as JSON under the schema
metadata key ``huggingface`` (``ArrowWriter._build_metadata``, ``Features.arrow_schema``) and
reads it back in ``Features.from_arrow_schema``: so ``Dataset.from_parquet`` or
``load_dataset("parquet", data_files=...)`` on one shard recovers the features, class labels
included, without the card. A schema names its class-label columns with
``with_class_labels`` (dotted paths, as ``CardInfo.class_labels``); the writer
(``transforms.release.formats``) turns that into the ``huggingface`` key.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

HF_METADATA_KEY = b"huggingface"
CLASS_LABELS_KEY = b"class_labels"


def with_class_labels(schema: pa.Schema, labels: dict[str, tuple[str, ...]]) -> pa.Schema:
    """``schema`` declaring the integer columns at ``labels``' dotted paths class labels."""
    return schema.with_metadata({**(schema.metadata or {}),
                                 CLASS_LABELS_KEY: json.dumps(labels).encode()})


def class_labels(schema: pa.Schema) -> dict[str, tuple[str, ...]]:
    """The class labels ``with_class_labels`` declared on ``schema``."""
    raw = (schema.metadata or {}).get(CLASS_LABELS_KEY)
    return {path: tuple(names) for path, names in json.loads(raw).items()} if raw else {}


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
    writes them), the ``class_labels`` declaration folded into them."""
    metadata = {k: v for k, v in (schema.metadata or {}).items()
                if k not in (CLASS_LABELS_KEY, HF_METADATA_KEY)}
    metadata[HF_METADATA_KEY] = json.dumps({"info": {"features": hf_features(schema)}}).encode()
    return schema.with_metadata(metadata)
