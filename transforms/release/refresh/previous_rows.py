"""What the rows of a previous release hold, read before any work: its class labels.

A refresh publishes carried rows again as they are, so a class-label value that is no label
(``7`` of a two-name label: a damaged or hand-edited release) would fail the writer only
after all the work, or be published. ``scan_previous`` reads only the class-label columns
(and ``id``, to name rows) of every Parquet data file, a row group at a time, and raises
``DamagedReleaseError`` (exit 5) naming the file, the column and the rows whose value is no
index of the label (``-1``, "no label", and null are accepted, as the writer accepts them;
a release written before the column was a class label holds names, which must be its
names). It also gives, per top-level class-label column, the label names its rows hold
(``PreviousRows.labels``: a JNQ release's ``variant``, which says what was built whatever
its manifest says) and the ``dataset`` its files' footers record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from transforms.release.features import NO_LABEL, class_labels, label_values, unlabeled_names
from transforms.release.storage import RAW
from transforms.release.verify import DamagedReleaseError

ID = "id"  # the column that names a row in a message, when the table has one
SHOWN = 5  # rows named per bad column


@dataclass(frozen=True)
class PreviousRows:
    """What ``scan_previous`` read: ``labels`` (top-level class-label column -> the names
    its rows hold, sorted), ``names`` (the same columns -> all their label names) and
    ``datasets`` (the footers' ``dataset`` metadata values)."""

    labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    datasets: tuple[str, ...] = ()


def scan_previous(version_dir: str, files: tuple[str, ...],
                  schema: pa.Schema | None) -> PreviousRows:
    """Check the class labels of every Parquet file of ``files`` (release-relative) against
    ``schema``'s (the footer's when ``schema`` is None); see the module docstring."""
    seen: dict[str, set[str]] = {}
    declared: dict[str, tuple[str, ...]] = {}
    datasets: set[str] = set()
    for name in files:
        with FileSystems.open(FileSystems.join(version_dir, *name.split("/")),
                              compression_type=RAW) as handle:
            parquet = pq.ParquetFile(handle)
            footer = parquet.schema_arrow
            tag = (footer.metadata or {}).get(b"dataset")
            if tag:
                datasets.add(tag.decode("utf-8", errors="replace"))
            labels = class_labels(schema if schema is not None else footer)
            unlabeled = unlabeled_names(schema if schema is not None else footer)
            declared.update(labels)
            _scan_file(f"{version_dir}/{name}", parquet, labels, unlabeled, seen)
    return PreviousRows({column: tuple(sorted(names)) for column, names in seen.items()},
                        {column: declared[column] for column in seen},
                        tuple(sorted(datasets)))


def _scan_file(label: str, parquet: pq.ParquetFile, labels: Mapping[str, tuple[str, ...]],
               unlabeled: Mapping[str, str], seen: dict[str, set[str]]) -> None:
    present = set(parquet.schema_arrow.names)
    paths = {path: names for path, names in labels.items() if path.split(".")[0] in present}
    if not paths:
        return
    columns = sorted({path.split(".")[0] for path in paths} | ({ID} & present))
    offset = 0
    for batch in parquet.iter_batches(columns=columns):
        for path, names in paths.items():
            parts = path.split(".")
            values, rows = label_values(batch.column(parts[0]), parts[1:])
            _check(label, path, names, unlabeled.get(path), values, rows, batch, offset)
            if len(parts) == 1 and not _is_list(batch.schema.field(parts[0]).type):
                seen.setdefault(path, set()).update(
                    _names(pc.unique(values).to_pylist(), names, unlabeled.get(path)))
        offset += batch.num_rows


def _is_list(data_type: pa.DataType) -> bool:
    return pa.types.is_list(data_type) or pa.types.is_large_list(data_type)


def _check(label: str, path: str, names: tuple[str, ...], unlabeled: str | None,
           values: pa.Array, rows: np.ndarray, batch: pa.RecordBatch, offset: int) -> None:
    """``DamagedReleaseError`` naming the rows whose value at ``path`` is no label."""
    if pa.types.is_integer(values.type):
        valid = pc.and_(pc.greater_equal(values, NO_LABEL), pc.less(values, len(names)))
    elif pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        allowed = pa.array([*names, *([unlabeled] if unlabeled else [])], values.type)
        valid = pc.is_in(values, value_set=allowed)
    else:
        raise DamagedReleaseError(f"{label}: class label {path} is of type {values.type}, "
                                  "neither indexes nor names")
    bad = pc.indices_nonzero(pc.invert(pc.fill_null(valid, True)))
    if not len(bad):
        return
    bad_rows = sorted(set(rows[bad.to_numpy()].tolist()))
    shown = values.take(bad).to_pylist()
    ids = (batch.column(ID).take(pa.array(bad_rows[:SHOWN])).to_pylist()
           if ID in batch.schema.names else None)
    where = ", ".join(f"row {offset + row}" + (f" (id {ids[i]})" if ids else "")
                      for i, row in enumerate(bad_rows[:SHOWN]))
    more = f" and {len(bad_rows) - SHOWN} more" if len(bad_rows) > SHOWN else ""
    raise DamagedReleaseError(
        f"release file {label}: class label {path} holds {sorted(set(map(str, shown)))[:SHOWN]}"
        f", no label of {list(names)} (indexes {NO_LABEL}..{len(names) - 1}), in "
        f"{len(bad_rows)} row(s): {where}{more}; its rows cannot be carried: rebuild that "
        "release, or build without --previous")


def _names(values: list, names: tuple[str, ...], unlabeled: str | None) -> set[str]:
    """The label names of checked values (indexes or names; null left out)."""
    found = set()
    for value in values:
        if isinstance(value, int):
            found.add(unlabeled or str(NO_LABEL) if value == NO_LABEL else names[value])
        elif value is not None:
            found.add(str(value))
    return found
