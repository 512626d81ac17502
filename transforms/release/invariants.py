"""A release's invariants, checked on its staged files before it is published.

Every row a release publishes must hold them, whether this run made it or a refresh carried
it from ``--previous`` (a previous release whose rows were edited and whose checksums were
all recomputed verifies, yet its rows may be wrong). The release kind declares them
(``transforms.core.spec.TableInvariants``); ``require_invariants`` raises
``ReleaseInvariantError`` (a ``DamagedReleaseError``: exit 5) naming the first rows of each
broken invariant and how many, and ``transforms.release.run.publish`` calls it before
anything is published, so the staged version is discarded and ``LATEST`` is left alone.

* ``duplicate_id``: a value of ``id_column`` in two rows of the declared tables;
* ``missing_id``: a row without an id or group key (null);
* ``group_in_two_splits``: a value of ``group_key`` (the key the split is hashed from: an
  NLQuAD document, an NQ or JNQ question) in two splits;
* ``answer_span_mismatch``: a row breaking one of the ``spans`` checks
  (``transforms.release.invariant_spans``);
* ``dangling_reference``: a row naming, in one of its ``references`` columns, an id no row
  of the referenced tables has (a ReQA question's correct candidate);
* ``class_label_out_of_range``: in any table, a value of a column the file's footer names a
  class label (``transforms.release.features``) outside ``-1 .. len(names) - 1``;
* ``formats_disagree``: an id whose row in the declared tables and its row in another format
  of the same release (``agrees_with``: NQ's HF Parquet and its ``simplified`` rows, made
  from the ``nq_original`` lines) differ in a compared field, or that one format lacks
  (``transforms.release.invariant_formats``);
* ``rows_lost``: rows of a group counted before the shuffle that shards a release did not
  all reach its files (a runner lost rows between stages), checked by the writer itself
  (``transforms.release.shards.checked_rows``) before the publish step runs.

Memory is bounded by the number of rows, not their size: the files are streamed in record
batches of the needed columns only; ids and group keys are kept as 64-bit hashes in numpy
arrays (``key_hashes``, vectorized over Arrow's buffers), and only the values whose hash
repeats are read again and compared exactly, so a hash collision never reports a row.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from transforms.core.spec import SPLIT, TableInvariants
from transforms.release.diff import ID_COLUMNS, column_values, parquet_tables
from transforms.release.features import NO_LABEL, class_labels, label_values
from transforms.release.invariant_spans import (
    SELECTION_MISMATCH,
    BatchValues,
    SpanCheck,
    arrow_column,
)
from transforms.release.storage import RAW, list_files
from transforms.release.verify import DamagedReleaseError

DUPLICATE_ID = "duplicate_id"
MISSING_ID = "missing_id"
GROUP_IN_SPLITS = "group_in_two_splits"
SPAN_MISMATCH = "answer_span_mismatch"
DANGLING_REFERENCE = "dangling_reference"
LABEL_OUT_OF_RANGE = "class_label_out_of_range"
FORMATS_DISAGREE = "formats_disagree"  # transforms.release.invariant_formats
ROWS_LOST = "rows_lost"  # transforms.release.shards.checked_rows
REASONS = (DUPLICATE_ID, MISSING_ID, GROUP_IN_SPLITS, SPAN_MISMATCH, DANGLING_REFERENCE,
           LABEL_OUT_OF_RANGE, FORMATS_DISAGREE, SELECTION_MISMATCH, ROWS_LOST)
EXAMPLES = 5
BATCH_ROWS = 65_536  # rows per batch of key columns
SPAN_BATCH_ROWS = 1_024  # rows per batch of span columns (texts, documents)


class ReleaseInvariantError(DamagedReleaseError):
    """Rows of a staged release break its invariants: nothing was published (exit 5)."""


@dataclass
class Violation:
    """One broken invariant: ``count`` ids, groups or rows (``what`` says which), the
    first few named."""

    reason: str
    what: str
    count: int
    examples: list[str] = field(default_factory=list)

    def describe(self) -> str:
        shown = "; ".join(self.examples[:EXAMPLES])
        more = f"; and {self.count - EXAMPLES} more" if self.count > EXAMPLES else ""
        return f"{self.reason}: {self.what}: {self.count} ({shown}{more})"


# Hashing keys into numpy -------------------------------------------------------------------

_SEED_TABLE = np.random.default_rng(0x5EED).integers(0, 2**64, 256, dtype=np.uint64)
_BASE = np.uint64(0x100000001B3)
_LENGTH = np.uint64(0x9E3779B97F4A7C15)
_NULL = np.uint64(0xFFFFFFFFFFFFFFFF)


def mix64(values: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer, vectorized (uint64 arithmetic wraps)."""
    values = values ^ (values >> np.uint64(30))
    values = values * np.uint64(0xBF58476D1CE4E5B9)
    values = values ^ (values >> np.uint64(27))
    values = values * np.uint64(0x94D049BB133111EB)
    return values ^ (values >> np.uint64(31))


def key_hashes(array: pa.Array) -> np.ndarray:
    """A 64-bit hash of each value of a string, binary or integer array (null: all ones),
    computed over Arrow's buffers without making Python objects. Equal values hash equal;
    unequal ones may collide, so a repeated hash is only a candidate."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    nulls = array.is_null().to_numpy(zero_copy_only=False) if array.null_count else None
    if pa.types.is_integer(array.type):
        hashed = mix64(array.cast(pa.int64()).fill_null(0).to_numpy().view(np.uint64)
                      ^ _LENGTH)
    else:
        hashed = _bytes_hashes(array.cast(pa.large_binary()))
    if nulls is not None:
        hashed[nulls] = _NULL
    return hashed


def _bytes_hashes(array: pa.Array) -> np.ndarray:
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64)[array.offset:
                                                       array.offset + len(array) + 1]
    data = (np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None
            else np.zeros(0, np.uint8))[offsets[0]:offsets[-1]]
    local = offsets - offsets[0]
    lengths = np.diff(local)
    longest = int(lengths.max()) if len(lengths) else 0
    powers = np.cumprod(np.full(max(longest, 1), _BASE, dtype=np.uint64)) // _BASE
    positions = np.arange(len(data), dtype=np.int64) - np.repeat(local[:-1], lengths)
    sums = np.zeros(len(data) + 1, dtype=np.uint64)
    np.cumsum(_SEED_TABLE[data] * powers[positions], out=sums[1:])
    return mix64((sums[local[1:]] - sums[local[:-1]]) ^ (lengths.astype(np.uint64) * _LENGTH))


def _repeated(hashes: np.ndarray) -> np.ndarray:
    """The hashes found more than once, sorted."""
    ordered = np.sort(hashes, kind="stable")
    return np.unique(ordered[1:][ordered[1:] == ordered[:-1]])


# Reading -----------------------------------------------------------------------------------

def _open(version_dir: str, name: str) -> Any:
    return FileSystems.open(FileSystems.join(version_dir, *name.split("/")),
                            compression_type=RAW)


def _parquet(handle: Any) -> pq.ParquetFile:
    """A Parquet file read through a Python file object without pre-buffering: pre-buffered
    column chunks read that way stay held until the file is closed (a 200,000-row file's
    token column, 78 MB, all at once)."""
    return pq.ParquetFile(handle, pre_buffer=False)


def read_batches(version_dir: str, files: Sequence[str], columns: Sequence[str],
             batch_size: int = BATCH_ROWS) -> Iterator[tuple[str, pa.RecordBatch]]:
    """``(file, batch)`` of the given dotted columns (only those leaves are decoded)."""
    wanted = list(dict.fromkeys(columns))
    for name in files:
        with _open(version_dir, name) as handle:
            parquet = _parquet(handle)
            if parquet.metadata.num_rows:
                for batch in parquet.iter_batches(batch_size=batch_size, columns=wanted):
                    yield name, batch


def _table_label(table: str, row_id: Any) -> str:
    return f"{table}: {row_id}"


class _Tables:
    """The staged release's Parquet tables and which ones a declaration covers."""

    def __init__(self, version_dir: str, files: Sequence[str] | None = None):
        self.version_dir = version_dir
        self.tables = parquet_tables(list_files(version_dir) if files is None else files)

    def matching(self, pattern: str) -> dict[str, tuple[str, list[str]]]:
        """``{table: (split or "", files)}`` of the tables ``pattern`` names (``{split}``
        one path segment)."""
        regex = re.compile(re.escape(pattern).replace(re.escape(SPLIT), "(?P<split>[^/]+)"))
        found = {}
        for table, files in self.tables.items():
            match = regex.fullmatch(table)
            if match:
                found[table] = (match.groupdict().get("split") or "", files)
        return found


# Ids and group keys ------------------------------------------------------------------------

def _absent(array: pa.Array) -> np.ndarray | None:
    """Which values are no id: null, or a string of nothing but white space; None when all
    are ids."""
    absent = array.is_null()
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        blank = pc.equal(pc.utf8_trim_whitespace(array), "")
        absent = pc.or_(absent, pc.fill_null(blank, False))
    if not pc.any(absent).as_py():
        return None
    return absent.to_numpy(zero_copy_only=False)


def _hash_pass(tables: _Tables, found: dict[str, tuple[str, list[str]]], column: str
               ) -> tuple[dict[str, list[np.ndarray]], Violation]:
    """The hashes of ``column``'s values by split (``""`` for tables without one), and the
    rows without a value (``missing_id``, named by their position in their table)."""
    by_split: dict[str, list[np.ndarray]] = {}
    missing = Violation(MISSING_ID, f"rows without {column} (null or blank)", 0)
    for table, (split, files) in found.items():
        start = 0
        for _, batch in read_batches(tables.version_dir, files, [column]):
            array = arrow_column(batch, column)
            by_split.setdefault(split, []).append(key_hashes(array))
            absent = _absent(array)
            if absent is not None:
                nulls = np.flatnonzero(absent)
                missing.count += len(nulls)
                room = max(EXAMPLES - len(missing.examples), 0)
                missing.examples += [f"{table}: row {start + int(i)}" for i in nulls[:room]]
            start += batch.num_rows
    return by_split, missing


def _check_ids(tables: _Tables, found: dict[str, tuple[str, list[str]]],
               column: str) -> list[Violation]:
    by_split, missing = _hash_pass(tables, found, column)
    violations = [missing] if missing.count else []
    if not by_split:
        return violations
    candidates = _repeated(np.concatenate([h for parts in by_split.values() for h in parts]))
    candidates = candidates[candidates != _NULL]
    if not len(candidates):
        return violations
    seen: dict[Any, list[str]] = {}
    for table, (_, files) in found.items():
        for _, batch in read_batches(tables.version_dir, files, [column]):
            array = arrow_column(batch, column)
            picked = np.flatnonzero(np.isin(key_hashes(array), candidates))
            for value in array.take(pa.array(picked)).to_pylist() if len(picked) else []:
                if value is not None:
                    seen.setdefault(value, []).append(table)
    repeated = {value: where for value, where in seen.items() if len(where) > 1}
    if repeated:
        examples = [f"{value!r} in {len(where)} rows ({', '.join(where)})"
                    for value, where in sorted(repeated.items(), key=lambda kv: str(kv[0]))]
        violations.append(Violation(DUPLICATE_ID, f"{column} values in two rows or more",
                                    len(repeated), examples))
    return violations


def _check_groups(tables: _Tables, found: dict[str, tuple[str, list[str]]], column: str,
                  id_path: str | None) -> list[Violation]:
    by_split, missing = _hash_pass(tables, found, column)
    violations = [missing] if missing.count else []
    if len(by_split) < 2:
        return violations
    distinct = [np.unique(np.concatenate(parts)) for parts in by_split.values()]
    candidates = _repeated(np.concatenate(distinct))
    candidates = candidates[candidates != _NULL]
    if not len(candidates):
        return violations
    rows: dict[Any, dict[str, list[Any]]] = {}
    columns = [column] + ([id_path] if id_path else [])
    for split, files in found.values():
        start = 0
        for _, batch in read_batches(tables.version_dir, files, columns):
            array = arrow_column(batch, column)
            picked = np.flatnonzero(np.isin(key_hashes(array), candidates))
            if len(picked):
                values = array.take(pa.array(picked)).to_pylist()
                ids = (column_values(batch.take(pa.array(picked)), id_path) if id_path
                       else [f"row {start + int(i)}" for i in picked])
                for value, row_id in zip(values, ids, strict=True):
                    rows.setdefault(value, {}).setdefault(split, []).append(row_id)
            start += batch.num_rows
    shared = {value: splits for value, splits in rows.items()
              if value is not None and len(splits) > 1}
    if not shared:
        return violations
    examples = [f"{value!r} in " + ", ".join(
        f"{split} ({', '.join(map(str, ids[:3]))}{', ...' if len(ids) > 3 else ''})"
        for split, ids in splits.items())
        for value, splits in sorted(shared.items(), key=lambda kv: str(kv[0]))]
    return [*violations, Violation(GROUP_IN_SPLITS, f"{column} values in two splits or more",
                                   len(shared), examples)]


# Answer spans ------------------------------------------------------------------------------

def _check_spans(tables: _Tables, found: dict[str, tuple[str, list[str]]],
                 checks: Sequence[SpanCheck], id_path: str | None) -> list[Violation]:
    bad: dict[str, Violation] = {}

    def report(check: SpanCheck, table: str, ids: list[Any]) -> None:
        violation = bad.setdefault(check.rule, Violation(
            check.reason or SPAN_MISMATCH, f"rows where not {check.rule}", 0))
        violation.count += len(ids)
        room = EXAMPLES - len(violation.examples)
        violation.examples += [_table_label(table, row_id) for row_id in ids[:max(room, 0)]]

    plain = [check for check in checks if not check.select]  # read together
    groups = ([plain] if plain else []) + [[check] for check in checks if check.select]
    for table, (_, files) in found.items():
        for group in groups:
            for batch, rows in _span_batches(tables.version_dir, files, group, id_path):
                values = BatchValues(batch)
                for check in group:
                    wrong = [int(i) for i in check.bad_rows(values)]
                    if wrong:
                        ids = (column_values(batch.take(pa.array(wrong)), id_path) if id_path
                               else [f"row {rows[i]}" for i in wrong])
                        report(check, table, ids)
    return list(bad.values())


def _span_batches(version_dir: str, files: Sequence[str], checks: Sequence[SpanCheck],
                  id_path: str | None) -> Iterator[tuple[pa.RecordBatch, list[int]]]:
    """Batches of the checks' columns (and the id), with each row's index in the table;
    for one check with ``select``, only the rows its ``needs`` picks, row group by row
    group."""
    columns = list(dict.fromkeys([*(c for check in checks for c in check.columns),
                                  *([id_path] if id_path else [])]))
    check = checks[0]
    first = 0
    for name in files:
        with _open(version_dir, name) as handle:
            parquet = _parquet(handle)
            for group in range(parquet.metadata.num_row_groups):
                size = parquet.metadata.row_group(group).num_rows
                wanted = None
                if check.select and check.needs is not None:
                    cheap = parquet.read_row_group(group, columns=list(check.select))
                    wanted = np.asarray(check.needs(BatchValues(cheap)), dtype=bool)
                    if not wanted.any():
                        first += size
                        continue
                offset = 0
                for batch in parquet.iter_batches(batch_size=SPAN_BATCH_ROWS,
                                                  row_groups=[group], columns=columns):
                    count = batch.num_rows
                    rows = np.arange(offset, offset + count)
                    if wanted is not None:
                        rows = rows[wanted[offset:offset + count]]
                        batch = batch.take(pa.array(rows - offset))
                    offset += count
                    if batch.num_rows:
                        yield batch, [first + int(r) for r in rows]
                first += size


# References --------------------------------------------------------------------------------

def _check_references(tables: _Tables, found: dict[str, tuple[str, list[str]]],
                      reference: tuple[str, str, str], id_path: str | None) -> list[Violation]:
    """Rows naming in ``column`` an id the referenced tables do not have. An absent hash is
    an absent id (equal values hash equal), so no second pass is needed."""
    column, pattern, target = reference
    known = [key_hashes(arrow_column(batch, target))
             for _, files in tables.matching(pattern).values()
             for _, batch in read_batches(tables.version_dir, files, [target])]
    ids = np.unique(np.concatenate(known)) if known else np.zeros(0, np.uint64)
    violation = Violation(DANGLING_REFERENCE, f"rows naming a {target} no {pattern} row has",
                          0)
    for table, (_, files) in found.items():
        start = 0
        for _, batch in read_batches(tables.version_dir, files,
                                 [column] + ([id_path] if id_path else [])):
            values = arrow_column(batch, column)
            rows = np.arange(len(values))
            if pa.types.is_list(values.type) or pa.types.is_large_list(values.type):
                rows = pc.list_parent_indices(values).to_numpy()
                values = pc.list_flatten(values)
            hashes = key_hashes(values)
            wrong = np.unique(rows[~np.isin(hashes, ids) | (hashes == _NULL)])
            if len(wrong):
                violation.count += len(wrong)
                room = max(EXAMPLES - len(violation.examples), 0)
                named = (column_values(batch.take(pa.array(wrong[:room])), id_path) if id_path
                         else [f"row {start + int(i)}" for i in wrong[:room]])
                violation.examples += [_table_label(table, row_id) for row_id in named]
            start += batch.num_rows
    return [violation] if violation.count else []


# Class labels ------------------------------------------------------------------------------

def _check_labels(tables: _Tables) -> list[Violation]:
    bad: dict[str, Violation] = {}
    for table, files in tables.tables.items():
        for name in files:
            with _open(tables.version_dir, name) as handle:
                schema = pq.ParquetFile(handle).schema_arrow
            labels = {path: names for path, names in class_labels(schema).items()
                      if path.split(".")[0] in schema.names}
            if not labels:
                continue
            key = next((c for c in ID_COLUMNS if c in schema.names), None)
            heads = [path.split(".")[0] for path in labels] + ([key] if key else [])
            start = 0
            for _, batch in read_batches(tables.version_dir, [name], heads):
                for path, names in labels.items():
                    head, *rest = path.split(".")
                    values, rows = label_values(arrow_column(batch, head), rest)
                    if not pa.types.is_integer(values.type):
                        continue
                    outside = pc.or_(pc.less(values, NO_LABEL),
                                     pc.greater_equal(values, len(names)))
                    wrong = np.unique(rows[outside.fill_null(False).to_numpy(
                        zero_copy_only=False)])
                    if len(wrong):
                        ids = column_values(batch.take(pa.array(wrong)), key) if key else [
                            f"row {start + int(r)}" for r in wrong]
                        violation = bad.setdefault(path, Violation(
                            LABEL_OUT_OF_RANGE,
                            f"rows with {path} outside -1..{len(names) - 1}", 0))
                        violation.count += len(wrong)
                        violation.examples += [_table_label(table, i) for i in ids][
                            :max(EXAMPLES - len(violation.examples), 0)]
                start += batch.num_rows
    return list(bad.values())


# The check ---------------------------------------------------------------------------------

def check_invariants(version_dir: str, invariants: Sequence[TableInvariants],
                     files: Sequence[str] | None = None) -> list[Violation]:
    """Every broken invariant of the release (or staging directory) at ``version_dir``:
    the declared ones and the class labels of every table; ``files`` (release-relative
    names) when already listed."""
    tables = _Tables(version_dir, files)
    violations: list[Violation] = []
    for declared in invariants:
        found = tables.matching(declared.tables)
        if not found:
            continue
        if declared.id_column:
            violations += _check_ids(tables, found, declared.id_column)
        if declared.group_key:
            violations += _check_groups(tables, found, declared.group_key,
                                        declared.id_column)
        if declared.spans:
            violations += _check_spans(tables, found, declared.spans, declared.id_column)
        for reference in declared.references:
            violations += _check_references(tables, found, reference, declared.id_column)
        for agreement in declared.agrees_with:
            violations += agreement.check(tables, found, declared.tables)
    return violations + _check_labels(tables)


def invariant_message(release: str, violations: Sequence[Violation],
                      carried: bool = False) -> str:
    """One line naming each broken invariant, its count and first rows; with ``carried``
    (a refresh), what to do about rows carried as the previous release holds them."""
    hint = (". Rows carried from --previous are as that release holds them: build without "
            "--previous, or with --recompute-all, to make them again" if carried else "")
    return (f"release {release} breaks its invariants, so nothing was published: "
            + "; ".join(v.describe() for v in violations) + hint)


def require_invariants(version_dir: str, invariants: Sequence[TableInvariants],
                       release: str, files: Sequence[str] | None = None,
                       carried: bool = False) -> None:
    """Raise ``ReleaseInvariantError`` naming the broken invariants of the release at
    ``version_dir`` (``check_invariants``); nothing when every row holds them. ``carried``:
    the release carries rows from a previous one (the message says what to do)."""
    violations = check_invariants(version_dir, invariants, files)
    if violations:
        raise ReleaseInvariantError(invariant_message(release, violations, carried))
