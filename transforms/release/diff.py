"""Compare two releases of one dataset: rows added, removed, changed and moved, by id.

Every Parquet table of both releases (``train``, ``dev``, ``questions``, ``votes/train``,
``rejected/queries``, ...) is streamed in record batches; a row is kept in memory only as its
id and a 64-bit digest of each column value (``_digest``: xxh3 of a string, an integer
itself, the BLAKE2b of anything else's canonical JSON; the xxh3 of its buffers for a struct
or list, ``nested_digest``), so memory grows with the number of rows, never with their size. The id
column is the first of ``ID_COLUMNS`` a table has; a table without one is compared as a
multiset of row digests (added and removed only).

Tables under the same parent directory with the same id column form a family (``train``,
``dev`` and ``test``; ``votes/train``, ``votes/dev`` ...): a row whose id is in another
table of its family in the new release has *moved between splits*, which must never happen
across versions. Changed rows are counted per column, over the columns both versions have;
moved rows are counted as moved, not compared column by column. Also compared: rows per
split, the manifests' options, every drop-reason count of ``stats.json`` (``counts``) and
every mean of its length statistics (``lengths``).
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from xxhash import xxh3_64_intdigest

from transforms.core.files import FileSystems
from transforms.release.manifest import COMMAND_LINE, read_manifest
from transforms.release.nested_digest import nested_digests
from transforms.release.storage import RAW, read_json
from transforms.release.tables import parquet_directories

ID_COLUMNS = ("id", "qid", "candidate_id", "doc_id", "lemma", "annotation_id", "question")
EXAMPLES = 5
BATCH_ROWS = 4096
BATCH_BYTES = 8 << 20  # of uncompressed column data per batch read


class IncomparableReleasesError(ValueError):
    """The two releases are not versions of the same dataset."""


# Reading release tables (shared with ``leakage``) ------------------------------------------

def parquet_tables(names: Iterable[str], splits: Iterable[str] = ()) -> dict[str, list[str]]:
    """Release-relative Parquet paths grouped by directory (a table), splits first in their
    order, then the other tables by name; files sorted."""
    tables = parquet_directories(names)
    order = list(splits)
    return dict(sorted(tables.items(), key=lambda item: (
        (0, order.index(item[0]), "") if item[0] in order else (1, 0, item[0]))))


def _open(version_dir: str, name: str):
    return FileSystems.open(FileSystems.join(version_dir, *name.split("/")), compression_type=RAW)


def table_schema(version_dir: str, files: list[str]) -> pa.Schema:
    """The schema in the footer of a table's first file."""
    with _open(version_dir, files[0]) as handle:
        return pq.ParquetFile(handle).schema_arrow


def read_batches(version_dir: str, files: list[str], columns: list[str],
                 batch_size: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
    """The given columns (``a.b`` reads field ``b`` of struct ``a`` only) of a table's files,
    in record batches of at most ``batch_size`` rows, and of about ``BATCH_BYTES`` of data
    at most (NQ's rows hold whole pages: 256 of them are hundreds of MB)."""
    top = list(dict.fromkeys(columns))
    for name in files:
        with _open(version_dir, name) as handle:
            parquet = pq.ParquetFile(handle)
            if parquet.metadata.num_rows:
                yield from parquet.iter_batches(batch_size=_rows_per_batch(
                    parquet.metadata, top, batch_size), columns=top)


def _rows_per_batch(metadata: pq.FileMetaData, columns: list[str], limit: int) -> int:
    """At most ``limit`` rows, and as many as hold about ``BATCH_BYTES`` of the uncompressed
    data of ``columns`` (their column chunks' sizes over the file's rows; an ``a.b`` column
    counts all of ``a``, an estimate on the safe side)."""
    wanted = {column.split(".")[0] for column in columns}
    data = sum(group.column(index).total_uncompressed_size
               for group in map(metadata.row_group, range(metadata.num_row_groups))
               for index in range(group.num_columns)
               if group.column(index).path_in_schema.split(".")[0] in wanted)
    return max(1, min(limit, BATCH_BYTES * metadata.num_rows // max(1, data)))


def has_column(schema: pa.Schema, path: str) -> bool:
    """Whether ``path`` (``a`` or ``a.b`` for a struct field) names a column of ``schema``."""
    head, *rest = path.split(".")
    if head not in schema.names:
        return False
    kind = schema.field(head).type
    for part in rest:
        if not pa.types.is_struct(kind) or kind.get_field_index(part) < 0:
            return False
        kind = kind.field(part).type
    return True


def column_array(batch: pa.RecordBatch, path: str) -> pa.Array:
    """Column ``path`` of ``batch`` (``a.b``: field ``b`` of struct ``a``)."""
    head, *rest = path.split(".")
    array: Any = batch.column(batch.schema.get_field_index(head))
    for part in rest:
        array = pc.struct_field(array, part)
    return array


def column_values(batch: pa.RecordBatch, path: str) -> list[Any]:
    """The Python values of column ``path`` (``a.b``: field ``b`` of struct ``a``)."""
    return column_array(batch, path).to_pylist()


def id_column(names: Iterable[str]) -> str | None:
    """The first of ``ID_COLUMNS`` among ``names``."""
    present = set(names)
    return next((name for name in ID_COLUMNS if name in present), None)


# Row digests -------------------------------------------------------------------------------

_STRING_SEED = 0x51  # xxh3 seed of a string's digest (an int's digest is its own 64 bits)
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _digest(value: Any) -> int:
    """A 64-bit digest of a value: a string's is the xxh3 of its UTF-8 bytes, an int's
    (of 64 bits) the int itself, anything else's the BLAKE2b of its canonical JSON (so an
    ``int32`` and an ``int64`` of one value are equal, as their JSON is). ``_column_digests``
    gives the same numbers from the Arrow column without a Python call per value: a refresh
    diffs every row of both releases."""
    kind = type(value)
    if kind is str:
        return xxh3_64_intdigest(value.encode("utf-8", "surrogatepass"), _STRING_SEED)
    if kind is int and _INT64[0] <= value <= _INT64[1]:
        return value & 0xFFFF_FFFF_FFFF_FFFF
    return _json_digest(value)


def _json_digest(value: Any) -> int:
    data = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=str).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def row_digests(version_dir: str, files: list[str], key: str | None,
                columns: list[str]) -> Iterator[tuple[Any, bytes]]:
    """``(id, digests)`` per row: ``digests`` joins 8 bytes per column of ``columns``; the id
    is the row's ``key`` value (the digests themselves when ``key`` is None)."""
    wanted = columns + ([key] if key and key not in columns else [])
    width = 8 * len(columns)
    for batch in read_batches(version_dir, files, wanted):
        if columns:
            matrix = np.column_stack([_column_digests(batch, c) for c in columns])
            data = matrix.astype("<u8", copy=False).tobytes()
            rows = [data[start:start + width] for start in range(0, len(data), width)]
        else:
            rows = [b""] * batch.num_rows
        ids = column_values(batch, key) if key else rows
        yield from zip(ids, rows, strict=True)


def _beyond_int64(array: pa.Array) -> bool:
    """A ``uint64`` column with a value no ``int64`` holds (digested value by value)."""
    return pa.types.is_uint64(array.type) and (pc.max(array).as_py() or 0) > _INT64[1]


def _column_digests(batch: pa.RecordBatch, path: str) -> np.ndarray:
    """``_digest`` of each value of column ``path`` (``uint64``), read from the column: a
    string column's bytes hashed one call a value, an integer column's values as they are,
    and for a nested value (a struct, a list) ``nested_digest``'s digest of its buffers (an
    NQ document made a Python value and dumped as JSON costs milliseconds)."""
    array = column_array(batch, path)
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        null, xxh3 = _json_digest(None), xxh3_64_intdigest
        return np.array([null if value is None else xxh3(value, _STRING_SEED)
                         for value in array.cast(pa.large_binary()).to_pylist()],
                        dtype=np.uint64)
    if pa.types.is_integer(kind) and not _beyond_int64(array):
        values = pc.fill_null(array, 0).cast(pa.int64()).to_numpy(zero_copy_only=False)
        digests = values.view(np.uint64)
        if array.null_count:
            valid = array.is_valid().to_numpy(zero_copy_only=False)
            digests = np.where(valid, digests, np.uint64(_json_digest(None)))
        return digests
    if pa.types.is_nested(kind):
        parts = nested_digests(array, lambda value: _digest(value).to_bytes(8, "little"))
        return np.frombuffer(b"".join(parts), dtype="<u8").astype(np.uint64)
    return np.array([_digest(value) for value in array.to_pylist()], dtype=np.uint64)


# Collecting counts and examples -----------------------------------------------------------

class Examples:
    """The ``limit`` smallest values seen, sorted: deterministic examples of any size."""

    def __init__(self, limit: int = EXAMPLES) -> None:
        self.limit = limit
        self.values: list[Any] = []

    def add(self, value: Any) -> None:
        if len(self.values) < self.limit or value < self.values[-1]:
            bisect.insort(self.values, value)
            del self.values[self.limit:]


@dataclass
class _Count:
    count: int = 0
    examples: Examples = field(default_factory=Examples)

    def add(self, example: Any) -> None:
        self.count += 1
        if example is not None:
            self.examples.add(example)

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "examples": list(self.examples.values)}


@dataclass
class _TableDiff:
    name: str
    id_column: str | None
    rows: dict[str, int]
    only_in: str | None = None
    added: _Count = field(default_factory=_Count)
    removed: _Count = field(default_factory=_Count)
    changed: _Count = field(default_factory=_Count)
    unchanged: int = 0
    moved_in: int = 0
    moved_out: int = 0
    null_ids: dict[str, int] = field(default_factory=lambda: {"old": 0, "new": 0})
    duplicate_ids: dict[str, int] = field(default_factory=lambda: {"old": 0, "new": 0})
    columns: dict[str, Any] = field(default_factory=dict)
    column_changes: dict[str, _Count] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        keyed = self.id_column is not None
        return {
            "table": self.name, "id_column": self.id_column, "only_in": self.only_in,
            "rows": self.rows, "added": self.added.to_dict(), "removed": self.removed.to_dict(),
            "changed": self.changed.to_dict() if keyed else None,
            "unchanged": self.unchanged,
            "moved_in": self.moved_in, "moved_out": self.moved_out,
            "null_ids": self.null_ids, "duplicate_ids": self.duplicate_ids,
            "columns": {**self.columns, "changed": {
                name: count.to_dict() for name, count in self.column_changes.items()
                if count.count}},
        }


# The releases ------------------------------------------------------------------------------

@dataclass
class _Release:
    path: str
    manifest: dict[str, Any]
    stats: dict[str, Any]
    tables: dict[str, list[str]]
    schemas: dict[str, pa.Schema]

    @classmethod
    def read(cls, path: str) -> _Release:
        manifest = read_manifest(path)  # ManifestError when unreadable or of the wrong shape
        stats_path = FileSystems.join(path, "stats.json")
        stats = read_json(stats_path) if FileSystems.exists(stats_path) else {}
        tables = parquet_tables(manifest.get("files", {}), manifest.get("splits", []))
        schemas = {name: table_schema(path, files) for name, files in tables.items()}
        return cls(path, manifest, stats, tables, schemas)


def _type(kind: pa.DataType) -> str:
    return str(kind).replace("element: ", "item: ")


def _schema_changes(old: pa.Schema | None, new: pa.Schema | None) -> dict[str, Any]:
    """Columns added, removed and retyped (nothing when the table is on one side only)."""
    if old is None or new is None:
        return {"added": [], "removed": [], "retyped": []}
    retyped = [{"name": n, "old": _type(old.field(n).type), "new": _type(new.field(n).type)}
               for n in old.names if n in new.names
               and _type(old.field(n).type) != _type(new.field(n).type)]
    return {"added": [n for n in new.names if n not in old.names],
            "removed": [n for n in old.names if n not in new.names], "retyped": retyped}


def _families(old: _Release, new: _Release) -> tuple[dict[str, _TableDiff],
                                                     dict[tuple[str, str | None], list[str]]]:
    order = list(old.tables) + [name for name in new.tables if name not in old.tables]
    diffs: dict[str, _TableDiff] = {}
    families: dict[tuple[str, str | None], list[str]] = {}
    for name in order:
        schemas = [release.schemas[name] for release in (old, new) if name in release.schemas]
        names = [n for n in schemas[0].names if all(n in s.names for s in schemas)]
        key = id_column(names)
        rows = {side: sum(release.manifest["files"][f].get("rows", 0)
                          for f in release.tables.get(name, []))
                for side, release in (("old", old), ("new", new))}
        only_in = None if name in old.tables and name in new.tables else (
            "old" if name in old.tables else "new")
        diffs[name] = _TableDiff(name, key, rows, only_in, columns=_schema_changes(
            old.schemas.get(name), new.schemas.get(name)))
        parent = name.rsplit("/", 1)[0] if "/" in name else ""
        families.setdefault((parent, key) if key else (name, None), []).append(name)
    return diffs, families


def _family_columns(old: _Release, new: _Release, tables: list[str]) -> list[str]:
    schemas = [r.schemas[t] for t in tables for r in (old, new) if t in r.schemas]
    return [n for n in schemas[0].names if all(n in s.names for s in schemas)]


def _compare_keyed(old: _Release, new: _Release, tables: list[str], key: str,
                   diffs: dict[str, _TableDiff], moved: dict[str, Any]) -> None:
    columns = _family_columns(old, new, tables)
    for name in tables:
        diffs[name].column_changes = {c: _Count() for c in columns}
    before: dict[Any, tuple[str, bytes]] = {}
    for name in tables:
        for row_id, digests in row_digests(old.path, old.tables.get(name, []), key, columns):
            if row_id is None:
                diffs[name].null_ids["old"] += 1
            elif row_id in before:
                diffs[name].duplicate_ids["old"] += 1
            else:
                before[row_id] = (name, digests)
    seen: set[Any] = set()
    for name in tables:
        table = diffs[name]
        for row_id, digests in row_digests(new.path, new.tables.get(name, []), key, columns):
            if row_id is None:
                table.null_ids["new"] += 1
                continue
            if row_id in seen:
                table.duplicate_ids["new"] += 1
                continue
            seen.add(row_id)
            previous = before.pop(row_id, None)
            if previous is None:
                table.added.add(row_id)
            elif previous[0] != name:
                table.moved_in += 1
                diffs[previous[0]].moved_out += 1
                moved["count"] += 1
                moved["pairs"][f"{previous[0]} -> {name}"] += 1
                moved["examples"].add((row_id, previous[0], name))
            elif previous[1] == digests:
                table.unchanged += 1
            else:
                table.changed.add(row_id)
                for index, column in enumerate(columns):
                    if digests[index * 8:index * 8 + 8] != previous[1][index * 8:index * 8 + 8]:
                        table.column_changes[column].add(row_id)
    for row_id, (name, _) in before.items():
        diffs[name].removed.add(row_id)


def _compare_unkeyed(old: _Release, new: _Release, name: str, table: _TableDiff) -> None:
    columns = _family_columns(old, new, [name])
    counts: Counter[bytes] = Counter()
    for row, _ in row_digests(old.path, old.tables.get(name, []), None, columns):
        counts[row] += 1
    for row, _ in row_digests(new.path, new.tables.get(name, []), None, columns):
        counts[row] -= 1
    table.removed.count = sum(count for count in counts.values() if count > 0)
    table.added.count = -sum(count for count in counts.values() if count < 0)
    table.unchanged = table.rows["old"] - table.removed.count


def _flat(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for name, inner in value.items():
            yield from _flat(inner, f"{prefix}.{name}" if prefix else str(name))
    else:
        yield prefix, value


def _options(manifest: dict[str, Any]) -> dict[str, Any]:
    """The options a manifest records, without the command line made of them (a change of
    an option is reported once, by its name)."""
    return {k: v for k, v in (manifest.get("options") or {}).items() if k != COMMAND_LINE}


def _changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        entry: dict[str, Any] = {"old": before, "new": after}
        if isinstance(before, (int, float)) and isinstance(after, (int, float)) \
                and not isinstance(before, bool) and not isinstance(after, bool):
            entry["delta"] = round(after - before, 6)
        out[name] = entry
    return out


def _means(lengths: Any) -> dict[str, Any]:
    means: dict[str, Any] = {}
    for path, value in _flat(lengths):
        if path.endswith(".mean"):
            means[path[:-len(".mean")]] = value
    return means


def diff_releases(old_dir: str, new_dir: str) -> dict[str, Any]:
    """What changed from the release at ``old_dir`` to the one at ``new_dir`` (version
    directories; ``IncomparableReleasesError`` when their datasets differ)."""
    return _diff(_Release.read(old_dir), _Release.read(new_dir))


def diff_staged(old_dir: str, staging_dir: str, manifest: dict[str, Any],
                stats: dict[str, Any]) -> dict[str, Any]:
    """``diff_releases`` of a published release and one being published (its manifest and
    stats not written yet): what a refresh's card says changed since its previous release."""
    tables = parquet_tables(manifest.get("files", {}), manifest.get("splits", []))
    new = _Release(staging_dir, manifest, stats, tables,
                   {name: table_schema(staging_dir, files) for name, files in tables.items()})
    return _diff(_Release.read(old_dir), new)


def _diff(old: _Release, new: _Release) -> dict[str, Any]:
    old_dir, new_dir = old.path, new.path
    dataset = old.manifest.get("dataset")
    if dataset != new.manifest.get("dataset"):
        raise IncomparableReleasesError(
            f"{old_dir} is a release of {dataset!r} but {new_dir} of "
            f"{new.manifest.get('dataset')!r}: diff compares two versions of one dataset")
    diffs, families = _families(old, new)
    moved: dict[str, Any] = {"count": 0, "pairs": Counter(), "examples": Examples()}
    for (_, key), tables in families.items():
        if key is None:
            _compare_unkeyed(old, new, tables[0], diffs[tables[0]])
        else:
            _compare_keyed(old, new, tables, key, diffs, moved)
    splits = list(dict.fromkeys(old.manifest.get("splits", []) + new.manifest.get("splits", [])))
    rows_per_split = {s: {"old": old.manifest.get("rows_per_split", {}).get(s),
                          "new": new.manifest.get("rows_per_split", {}).get(s)} for s in splits}
    tables = [d.to_dict() for d in diffs.values()]
    stats = {"counts": _changes(dict(_flat(old.stats.get("counts", {}))),
                                dict(_flat(new.stats.get("counts", {})))),
             "length_means": _changes(_means(old.stats.get("lengths", {})),
                                      _means(new.stats.get("lengths", {})))}
    identical = moved["count"] == 0 and all(
        t["added"]["count"] == 0 and t["removed"]["count"] == 0
        and not (t["changed"] or {}).get("count") and not any(t["columns"][k] for k in
                                                               ("added", "removed", "retyped"))
        for t in tables)
    return {
        "dataset": dataset,
        "old": {"path": old_dir, "version": old.manifest.get("version")},
        "new": {"path": new_dir, "version": new.manifest.get("version")},
        "identical_rows": identical,
        "rows_per_split": rows_per_split,
        "moved_between_splits": {
            "count": moved["count"], "pairs": dict(sorted(moved["pairs"].items())),
            "examples": [{"id": i, "from": a, "to": b} for i, a, b in moved["examples"].values]},
        "tables": tables,
        "options": _changes(_options(old.manifest), _options(new.manifest)),
        "stats": stats,
    }
