"""Carry the rows of unchanged inputs from the previous release (the Beam side of a refresh).

A dataset's transform uses one ``Carry`` per job, around the stages that do the work::

    carry = Carry(pbegin, plan.previous, row_key, recompute_all=options.recompute_all)
    units = carry.fresh(units, unit_key)          # only these are processed
    rows = units | ...stages...                   # (split, row), as before
    rows, results = carry.finish(rows)            # + the carried rows; refresh.* tallies
    ... WriteShards(rows); WriteAccounting(staging, [..., *results])

Without a previous release (``plan.previous`` is None) ``fresh`` and ``finish`` return what
they are given: a full build's pipeline is the one it always was.

The *unit* is what the dataset calls one input (a capture, a normalized question, a source
example); ``unit_key(unit)`` and ``row_key(row)`` give the same key for a unit and the rows
it made. A unit whose key has rows in the previous release is not processed (unless
``recompute_all``): those rows are carried as they are, in their split. Keys travel as side
inputs (dicts of short strings) both ways: the previous keys filter this run's units, and
this run's unit keys filter the previous rows as they are read, so neither units nor rows
are shuffled for the carry; only keys and counts are joined, to count. Rows that are small
references (NQ's examples, ``join_rows``) are instead joined with the counts: one read of
the previous files, one shuffle of references (an older NQ release's shard that does not
pair up is parsed, and its examples are joined whole).

With ``batch_columns`` (the columns ``row_key`` reads) the carried rows of the default
Parquet files are carried by reference (``carried_rows.CarriedRows``: a file's name and the
indices and ``sort_column`` values of its kept rows, ``_CarryFileRows``): the
``WriteShards`` that knows the sort column reads them from the verified file as Arrow data
when it writes a shard, so no carried row becomes a Python dict or crosses a stage boundary
of the job, and the files are the bytes the dict rows give.

Every previous row is then counted once, as ``refresh.carried``, ``refresh.recomputed``
(its key made rows again), or ``refresh.removed`` (its key made none: the input is gone or no
longer kept); rows of keys the previous release did not have are ``refresh.new``. Carrying by
reference, the keys are counted where the rows are carried (``_CarryCountedFileRows``: one
tally and one key set per file), and only the keys of no carried row are joined with this
run's row keys; otherwise the previous keys (``(key, rows)`` per file), this run's unit keys
and row keys are joined.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import apache_beam as beam
import pyarrow.parquet as pq

from transforms.core.accounting import SIDE_OUTPUTS, tally
from transforms.release.refresh.carried_rows import CarriedRows
from transforms.release.refresh.checked_read import PinnedFiles, Release, read_file
from transforms.release.refresh.combine_one import combine_one
from transforms.release.refresh.counters import (
    CARRIED,
    INPUTS_CARRIED,
    NEW,
    RECOMPUTED,
    REMOVED,
)
from transforms.release.refresh.previous import PreviousRelease

# More previous files than this are spread over the workers by Create's Reshuffle; fewer are
# read where they are listed: the Reshuffle is five more transforms, each costing its
# construction and bundle set-up (about 15 ms of CPU apiece on the DirectRunner), for files
# whose carried keys take milliseconds to read.
SPREAD_FILES = 8

Row = dict[str, Any]
SplitRow = tuple[str, Row]


def read_previous_file(item: tuple[str, str], release: Release) -> Iterator[SplitRow]:
    """``(split, row)`` of one data file of the previous release, a row group at a time
    (its bytes checked against the verified manifest first: ``checked_read``)."""
    split, name = item
    parquet = pq.ParquetFile(io.BytesIO(read_file(release, name)))
    for index in range(parquet.num_row_groups):
        for row in parquet.read_row_group(index).to_pylist():
            yield split, row


FileReader = Callable[[tuple[str, str], Release], Iterator[SplitRow]]
KeyReader = Callable[[tuple[str, str], Release], Iterator[str]]


class RowKeys:
    """A ``KeyReader`` that reads whole rows with ``reader`` and keys them with ``row_key``
    (what ``Carry`` uses unless told of a cheaper way)."""

    def __init__(self, reader: FileReader, row_key: Callable[[Row], str]):
        self.reader, self.row_key = reader, row_key

    def __call__(self, item: tuple[str, str], release: Release) -> Iterator[str]:
        for _, row in self.reader(item, release):
            yield self.row_key(row)


class ParquetKeys:
    """A ``KeyReader`` of Parquet files that reads only ``columns`` (the ones ``row_key``
    needs), a row group at a time."""

    def __init__(self, columns: tuple[str, ...], row_key: Callable[[Row], str]):
        self.columns, self.row_key = list(columns), row_key

    def __call__(self, item: tuple[str, str], release: Release) -> Iterator[str]:
        _, name = item
        parquet = pq.ParquetFile(io.BytesIO(read_file(release, name)))
        for index in range(parquet.num_row_groups):
            for row in parquet.read_row_group(index, columns=self.columns).to_pylist():
                yield self.row_key(row)


class ReadPreviousRows(beam.PTransform):
    """``(split, row)`` of every data file of the previous release (none without one):
    by default its Parquet split files; ``files`` (``(split, release-relative name)``) and
    ``reader(item, release)`` read another format (NQ carries its ``nq_original``
    examples, from which both of its formats are written); ``release`` is the previous
    release's ``PinnedFiles``: every read is checked against its verified manifest."""

    def __init__(self, previous: PreviousRelease | None,
                 files: list[tuple[str, str]] | None = None,
                 reader: FileReader = read_previous_file):
        super().__init__()
        self.release = previous.pinned if previous else PinnedFiles("")
        self.files = (files if files is not None
                      else previous.split_files() if previous else [])
        self.reader = reader

    def expand(self, pbegin):
        return (pbegin
                | "Files" >> beam.Create(self.files, reshuffle=len(self.files) > SPREAD_FILES)
                | "ReadRows" >> beam.ParDo(_ReadFile(self.reader, self.release)))


class _ReadFile(beam.DoFn):
    """What ``reader`` yields for one file of the previous release."""

    def __init__(self, reader: FileReader | KeyReader, release: PinnedFiles):
        self.reader, self.release = reader, release

    def process(self, item: tuple[str, str]):
        yield from self.reader(item, self.release)


class _CountedKeys:
    """A ``KeyReader`` wrapper that yields ``(key, rows)`` once per distinct key of a file,
    not every row's key."""

    def __init__(self, reader: KeyReader):
        self.reader = reader

    def __call__(self, item: tuple[str, str], release: Release) -> Iterator[tuple[str, int]]:
        yield from Counter(self.reader(item, release)).items()


class _KeepFresh(beam.DoFn):
    """Units whose key has no previous rows (every unit with ``recompute_all``)."""

    def __init__(self, unit_key: Callable[[Any], str], recompute_all: bool):
        self.unit_key = unit_key
        self.recompute_all = recompute_all

    def process(self, unit, previous_keys):
        if self.recompute_all or self.unit_key(unit) not in previous_keys:
            yield unit


class _CarryRows(beam.DoFn):
    """The previous rows whose key is among this run's units (a side input of keys): the
    rows are filtered where they are read, never grouped."""

    def process(self, keyed: tuple[str, SplitRow], units):
        key, split_row = keyed
        if key in units:
            yield split_row


class _CarryFileRows(beam.DoFn):
    """``(split, CarriedRows)`` of one previous file: the rows whose key (``row_key`` of the
    key ``columns``) is among this run's units, by reference (``carried_rows.CarriedRows``:
    their indices and ``sort_column`` values; only those columns are read here)."""

    def __init__(self, release: PinnedFiles, columns: tuple[str, ...], sort_column: str,
                 row_key: Callable[[Row], str]):
        self.release, self.columns, self.row_key = release, columns, row_key
        self.sort_column = sort_column

    def process(self, item: tuple[str, str], units):
        split, name = item
        reference, _ = self._read(name, units)
        if reference is not None:
            yield split, reference

    def _read(self, name: str, units) -> tuple[CarriedRows | None, list[str]]:
        """The reference to the rows of ``name`` whose key is among ``units`` (None when
        none is) and every row's key, in file order."""
        wanted = list(dict.fromkeys([*self.columns, self.sort_column]))
        parquet = pq.ParquetFile(io.BytesIO(read_file(self.release, name)))
        table = parquet.read(columns=wanted)
        values = [table.column(column).to_pylist() for column in self.columns]
        keys = [self.row_key(dict(zip(self.columns, row, strict=True)))
                for row in zip(*values, strict=True)]
        kept = [index for index, key in enumerate(keys) if key in units]
        if not kept:
            return None, keys
        sort_keys = table.column(self.sort_column).to_pylist()
        return CarriedRows(self.release, name, tuple(kept),
                           tuple(sort_keys[index] for index in kept)), keys


CARRIED_KEYS = "carried_keys"  # _CarryCountedFileRows: the keys of a file's carried rows
OTHER_KEYS = "other_keys"  # _CarryCountedFileRows: (key, rows) of a file's other keys


class _CarryCountedFileRows(_CarryFileRows):
    """``_CarryFileRows`` that also counts what it read, so that no key of a carried row
    travels on its own: ``refresh.carried`` (the file's carried rows, one tally), the set of
    their keys (``CARRIED_KEYS``, one element per file: ``refresh.inputs_carried`` is their
    number across files) and ``(key, rows)`` of every other key (``OTHER_KEYS``)."""

    def process(self, item: tuple[str, str], units):
        split, name = item
        reference, keys = self._read(name, units)
        if reference is not None:
            yield split, reference
            yield tally(CARRIED, len(reference.indices))
            yield beam.pvalue.TaggedOutput(CARRIED_KEYS, frozenset(
                keys[index] for index in reference.indices))
        others = Counter(key for key in keys if key not in units)
        for key, rows in others.items():
            yield beam.pvalue.TaggedOutput(OTHER_KEYS, (key, rows))


class _Union(beam.CombineFn):
    """The union of sets of keys."""

    def create_accumulator(self) -> set[str]:
        return set()

    def add_input(self, accumulator: set[str], keys: frozenset[str]) -> set[str]:
        accumulator.update(keys)
        return accumulator

    def merge_accumulators(self, accumulators) -> set[str]:
        return set().union(*accumulators)

    def extract_output(self, accumulator: set[str]) -> frozenset[str]:
        return frozenset(accumulator)


def _inputs_carried(keys: frozenset[str]):
    """``refresh.inputs_carried``: the distinct keys of the carried rows (none: no tally)."""
    if keys:
        yield tally(INPUTS_CARRIED, len(keys))


def _not_carried(split_row: tuple[str, Row], carried: frozenset[str],
                 row_key: Callable[[Row], str]):
    """A fresh row's ``(key, 1)`` unless its key's rows were carried (then its input counts
    as carried, as ``_count_key`` has it)."""
    key = row_key(split_row[1])
    if key not in carried:
        yield key, 1


def _count_other_key(item: tuple[str, dict[str, list]]):
    """``_count_key`` of a key with no carried rows (no unit of this run has it)."""
    _, grouped = item
    yield from _count_key((None, {**grouped, "units": []}), False)


def _count_key(item: tuple[str, dict[str, list]], recompute_all: bool,
               also: Callable[[dict[str, list]], Iterable] | None = None):
    """``refresh.*`` tallies of one key (see the module docstring), from counts only, then
    what ``also`` yields for the key (``AlsoJoined.emit``)."""
    _, grouped = item
    previous = sum(grouped["previous"])
    fresh = sum(grouped["fresh"])
    if previous and grouped["units"] and not recompute_all:
        yield tally(INPUTS_CARRIED)
        yield tally(CARRIED, previous)
    elif fresh:
        yield tally(RECOMPUTED if previous else NEW, fresh)
    elif previous:
        yield tally(REMOVED, previous)
    if also is not None:
        yield from also(grouped)


def _count_and_carry(item: tuple[str, dict[str, list]], recompute_all: bool,
                     also: Callable[[dict[str, list]], Iterable] | None = None):
    """``_count_key`` of a key whose previous rows were joined (``Carry(join_rows=True)``),
    then those rows, ``(split, row)``, when they are carried."""
    key, grouped = item
    rows = grouped["previous"]
    counts = {**grouped, "previous": [len(rows)] if rows else []}  # as _count_key reads them
    yield from _count_key((key, counts), recompute_all, also)
    if rows and grouped["units"] and not recompute_all:
        yield from rows


@dataclass(frozen=True)
class AlsoJoined:
    """More ``(key, value)`` collections a dataset joins with this run's keys, in the join
    that counts the refresh (one shuffle for both): ``inputs`` by name, and ``emit``, which
    gets one key's grouped values (``previous``, ``fresh`` and ``units`` too, as counts) and
    yields accounting outputs (``SIDE_OUTPUTS``)."""

    inputs: dict[str, Any]
    emit: Callable[[dict[str, list]], Iterable]


class Carry:
    """The previous release's rows, the filter of fresh units and the refresh counts of one
    job (see the module docstring); ``label`` prefixes its steps; ``files`` and ``reader``
    choose what is read (``ReadPreviousRows``). The previous keys are read on their own
    (``keys``: ``(files or None for the same files, KeyReader)``, by default the rows again;
    ``ParquetKeys`` reads only the key's columns): the rows are filtered by this run's unit
    keys, which depend on the previous keys, and one fused stage cannot both feed and wait
    for a side input (the FnApiRunner refuses such a job). ``batch_columns``: carry the
    Parquet files' rows by reference, with their ``sort_column`` values (see the module
    docstring). ``join_rows``, for rows that are small references (NQ's ``PackedExample``):
    the previous files are read once, their keys taken from the rows, and the rows joined
    with this run's keys in the step that counts the refresh, which carries those of the
    units it has (one shuffle of references, instead of a second read of every file's keys
    and a side input of this run's unit keys). ``rows``: the previous rows, ``(split, row)``,
    when the dataset reads them itself (in a step that reads other files of the previous
    release too: ``transforms.nq.previous_read``)."""

    def __init__(self, pbegin, previous: PreviousRelease | None,
                 row_key: Callable[[Row], str], *, recompute_all: bool = False,
                 label: str = "Refresh", files: list[tuple[str, str]] | None = None,
                 reader: FileReader = read_previous_file,
                 keys: tuple[list[tuple[str, str]] | None, KeyReader] | None = None,
                 batch_columns: tuple[str, ...] | None = None, sort_column: str = "id",
                 join_rows: bool = False, rows=None):
        self.active = previous is not None
        self.batch_columns, self.sort_column = batch_columns, sort_column
        self.label = label
        self.row_key = row_key
        self.recompute_all = recompute_all
        self._unit_keys = None
        self.carried_rows = None  # (split, row or batch) carried, once finish() has run
        if not self.active:
            return
        if recompute_all:  # nothing is carried: only keys are read
            self.rows = None
        elif batch_columns is not None:
            self.release = previous.pinned
            listed = files if files is not None else previous.split_files()
            self.rows = (pbegin  # spread over workers (a Reshuffle) when there are many
                         | f"{label}PreviousFiles" >> beam.Create(
                             listed, reshuffle=len(listed) > SPREAD_FILES))
        else:
            if rows is None:
                rows = pbegin | f"{label}ReadPrevious" >> ReadPreviousRows(previous, files,
                                                                           reader)
            self.rows = rows | f"{label}KeyPrevious" >> beam.Map(lambda split_row: (
                row_key(split_row[1]), split_row))
        self._pbegin, self._previous = pbegin, previous
        self._key_source = keys or (files, RowKeys(reader, row_key))
        self._keys = None
        self.join_rows = join_rows and self.rows is not None and batch_columns is None

    @property
    def keys(self):
        """``(key, rows)`` of the previous release, counted per file (read on first use: a
        refresh that carries by reference counts its keys as it carries them; with
        ``join_rows``, ``(key, 1)`` of each row read)."""
        if self._keys is None and self.join_rows:
            self._keys = self.rows | f"{self.label}PreviousKeys" >> beam.Map(
                lambda keyed: (keyed[0], 1))
        if self._keys is None:
            key_files, key_reader = self._key_source
            self._keys = (self._pbegin
                          | f"{self.label}ReadPreviousKeys" >> ReadPreviousRows(
                              self._previous, key_files, _CountedKeys(key_reader)))
        return self._keys

    def fresh(self, units, unit_key: Callable[[Any], str]):
        """The units to process: those whose key the previous release has no rows of."""
        if not self.active:
            return units
        label = self.label
        self._unit_keys = units | f"{label}UnitKeys" >> beam.Map(  # a key may repeat
            lambda unit: (unit_key(unit), 1))
        return units | f"{label}KeepFresh" >> beam.ParDo(  # a key's presence is enough
            _KeepFresh(unit_key, self.recompute_all), beam.pvalue.AsDict(self.keys))

    def units_keyed(self, unit_keys) -> None:
        """Instead of ``fresh``: this run's ``(unit key, count)``, for a dataset that joins
        ``keys`` (the previous rows' ``(key, rows)``) with its units itself."""
        self._unit_keys = unit_keys

    def finish(self, fresh_rows, also: AlsoJoined | None = None) -> tuple[Any, list]:
        """``(every row of the release, [results for WriteAccounting])``: this run's rows
        (``(split, row)``) and the carried ones, and the ``refresh.*`` tallies (with what
        ``also`` yields, joined in the same step; not when carrying by reference)."""
        if not self.active:
            return fresh_rows, []
        if self._unit_keys is None:
            raise RuntimeError("Carry.finish() needs the units: call fresh() first")
        label = self.label
        if self.rows is not None and self.batch_columns is not None:
            if also is not None:
                raise TypeError("Carry.finish(also=...) joins this run's unit keys, which a "
                                "carry by reference (batch_columns) does not")
            return self._finish_references(fresh_rows)
        if self.join_rows:
            return self._finish_joined(fresh_rows, also)
        if self.rows is None:
            carried = fresh_rows.pipeline | f"{label}CarryNothing" >> beam.Create([])
        else:
            carried = self.rows | f"{label}Carry" >> beam.ParDo(
                _CarryRows(), beam.pvalue.AsDict(self._unit_keys))
        counted = self._count(fresh_rows, self.keys, _count_key, also, "JoinCounts", "Count")
        self.carried_rows = carried
        rows = (carried, fresh_rows) | f"{label}AllRows" >> beam.Flatten()
        return rows, [counted]

    def _finish_joined(self, fresh_rows, also: AlsoJoined | None) -> tuple[Any, list]:
        """``finish`` with ``join_rows``: the previous rows are grouped with this run's keys
        by key, counted, and carried where this run has the unit (``_count_and_carry``)."""
        counted = self._count(fresh_rows, self.rows, _count_and_carry, also, "JoinRows",
                              "CountAndCarry")
        self.carried_rows = counted.main
        rows = (counted.main, fresh_rows) | f"{self.label}AllRows" >> beam.Flatten()
        return rows, [counted]

    def _count(self, fresh_rows, previous, count, also: AlsoJoined | None, join: str,
               step: str):
        """``previous`` (keyed) joined with this run's row and unit keys (and ``also``'s
        inputs) by key, and ``count`` of each key: its tagged outputs."""
        row_key = self.row_key
        fresh_keys = fresh_rows | f"{self.label}FreshKeys" >> beam.Map(
            lambda sr: (row_key(sr[1]), 1))
        joined = {"previous": previous, "fresh": fresh_keys, "units": self._unit_keys,
                  **(also.inputs if also else {})}
        return (joined
                | f"{self.label}{join}" >> beam.CoGroupByKey()
                | f"{self.label}{step}" >> beam.FlatMap(
                    count, self.recompute_all, also.emit if also else None
                ).with_outputs(*SIDE_OUTPUTS, main="main"))

    def _finish_references(self, fresh_rows) -> tuple[Any, list]:
        """``finish`` carrying by reference: the files' keys are counted where their rows
        are carried (``_CarryCountedFileRows``), and only the keys of no carried row (gone,
        recomputed) are joined with this run's row keys to be counted."""
        label, row_key = self.label, self.row_key
        read = self.rows | f"{label}Carry" >> beam.ParDo(
            _CarryCountedFileRows(self.release, self.batch_columns, self.sort_column, row_key),
            beam.pvalue.AsDict(self._unit_keys)).with_outputs(
                *SIDE_OUTPUTS, CARRIED_KEYS, OTHER_KEYS, main="main")
        carried_keys = combine_one(read[CARRIED_KEYS], _Union(), f"{label}CarriedKeys")
        inputs = carried_keys | f"{label}InputsCarried" >> beam.FlatMap(
            _inputs_carried).with_outputs(*SIDE_OUTPUTS, main="main")
        fresh_keys = fresh_rows | f"{label}FreshNotCarried" >> beam.FlatMap(
            _not_carried, beam.pvalue.AsSingleton(carried_keys), row_key)
        counted = ({"previous": read[OTHER_KEYS], "fresh": fresh_keys}
                   | f"{label}JoinCounts" >> beam.CoGroupByKey()
                   | f"{label}Count" >> beam.FlatMap(_count_other_key).with_outputs(
                       *SIDE_OUTPUTS, main="main"))
        self.carried_rows = read.main
        rows = (read.main, fresh_rows) | f"{label}AllRows" >> beam.Flatten()
        return rows, [read, inputs, counted]
