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
are shuffled for the carry; only keys and counts are joined, to count.

With ``batch_columns`` (the columns ``row_key`` reads) the carried rows of the default
Parquet files are carried by reference (``carried_rows.CarriedRows``: a file's name and the
indices and ``sort_column`` values of its kept rows, ``_CarryFileRows``): the
``WriteShards`` that knows the sort column reads them from the verified file as Arrow data
when it writes a shard, so no carried row becomes a Python dict or crosses a stage boundary
of the job, and the files are the bytes the dict rows give.

Every previous row is then counted once, as ``refresh.carried``, ``refresh.recomputed``
(its key made rows again), or ``refresh.removed`` (its key made none: the input is gone or no
longer kept); rows of keys the previous release did not have are ``refresh.new``.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

import apache_beam as beam
import pyarrow.parquet as pq

from transforms.core.accounting import SIDE_OUTPUTS, tally
from transforms.release.refresh.carried_rows import CarriedRows
from transforms.release.refresh.checked_read import PinnedFiles, Release, read_file
from transforms.release.refresh.counters import (
    CARRIED,
    INPUTS_CARRIED,
    NEW,
    RECOMPUTED,
    REMOVED,
)
from transforms.release.refresh.previous import PreviousRelease

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
                | "Files" >> beam.Create(self.files)
                | "SpreadFiles" >> beam.Reshuffle()
                | "ReadRows" >> beam.ParDo(_ReadFile(self.reader, self.release)))


class _ReadFile(beam.DoFn):
    """What ``reader`` yields for one file of the previous release."""

    def __init__(self, reader: FileReader | KeyReader, release: PinnedFiles):
        self.reader, self.release = reader, release

    def process(self, item: tuple[str, str]):
        yield from self.reader(item, self.release)


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
        wanted = list(dict.fromkeys([*self.columns, self.sort_column]))
        parquet = pq.ParquetFile(io.BytesIO(read_file(self.release, name)))
        table = parquet.read(columns=wanted)
        values = [table.column(column).to_pylist() for column in self.columns]
        sort_keys = table.column(self.sort_column).to_pylist()
        kept = [index for index, row in enumerate(zip(*values, strict=True))
                if self.row_key(dict(zip(self.columns, row, strict=True))) in units]
        if kept:
            yield split, CarriedRows(self.release, name, tuple(kept),
                                     tuple(sort_keys[index] for index in kept))


def _count_key(item: tuple[str, dict[str, list]], recompute_all: bool):
    """``refresh.*`` tallies of one key (see the module docstring), from counts only."""
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


class Carry:
    """The previous release's rows, the filter of fresh units and the refresh counts of one
    job (see the module docstring); ``label`` prefixes its steps; ``files`` and ``reader``
    choose what is read (``ReadPreviousRows``). The previous keys are read on their own
    (``keys``: ``(files or None for the same files, KeyReader)``, by default the rows again;
    ``ParquetKeys`` reads only the key's columns): the rows are filtered by this run's unit
    keys, which depend on the previous keys, and one fused stage cannot both feed and wait
    for a side input (the FnApiRunner refuses such a job). ``batch_columns``: carry the
    Parquet files' rows by reference, with their ``sort_column`` values (see the module
    docstring)."""

    def __init__(self, pbegin, previous: PreviousRelease | None,
                 row_key: Callable[[Row], str], *, recompute_all: bool = False,
                 label: str = "Refresh", files: list[tuple[str, str]] | None = None,
                 reader: FileReader = read_previous_file,
                 keys: tuple[list[tuple[str, str]] | None, KeyReader] | None = None,
                 batch_columns: tuple[str, ...] | None = None, sort_column: str = "id"):
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
            self.rows = (pbegin
                         | f"{label}PreviousFiles" >> beam.Create(
                             files if files is not None else previous.split_files())
                         | f"{label}SpreadPreviousFiles" >> beam.Reshuffle())
        else:
            self.rows = (pbegin
                         | f"{label}ReadPrevious" >> ReadPreviousRows(previous, files, reader)
                         | f"{label}KeyPrevious" >> beam.Map(lambda split_row: (
                             row_key(split_row[1]), split_row)))
        key_files, key_reader = keys or (files, RowKeys(reader, row_key))
        self.keys = (pbegin
                     | f"{label}ReadPreviousKeys" >> ReadPreviousRows(
                         previous, key_files, key_reader)
                     | f"{label}PreviousKeys" >> beam.Map(lambda key: (key, 1)))

    def fresh(self, units, unit_key: Callable[[Any], str]):
        """The units to process: those whose key the previous release has no rows of."""
        if not self.active:
            return units
        label = self.label
        self._unit_keys = (units
                           | f"{label}UnitKeys" >> beam.Map(lambda unit: (unit_key(unit), 1))
                           | f"{label}DistinctUnits" >> beam.CombinePerKey(sum))
        known = (self.keys
                 | f"{label}CountPrevious" >> beam.CombinePerKey(sum))
        return units | f"{label}KeepFresh" >> beam.ParDo(
            _KeepFresh(unit_key, self.recompute_all), beam.pvalue.AsDict(known))

    def units_keyed(self, unit_keys) -> None:
        """Instead of ``fresh``: this run's ``(unit key, count)`` (one per distinct key), for a
        dataset that joins ``keys`` (the previous rows' ``(key, 1)``) with its units itself."""
        self._unit_keys = unit_keys

    def finish(self, fresh_rows) -> tuple[Any, list]:
        """``(every row of the release, [results for WriteAccounting])``: this run's rows
        (``(split, row)``) and the carried ones, and the ``refresh.*`` tallies."""
        if not self.active:
            return fresh_rows, []
        if self._unit_keys is None:
            raise RuntimeError("Carry.finish() needs the units: call fresh() first")
        label, row_key = self.label, self.row_key
        if self.rows is None:
            carried = fresh_rows.pipeline | f"{label}CarryNothing" >> beam.Create([])
        elif self.batch_columns is not None:
            carried = self.rows | f"{label}Carry" >> beam.ParDo(
                _CarryFileRows(self.release, self.batch_columns, self.sort_column, row_key),
                beam.pvalue.AsDict(self._unit_keys))
        else:
            carried = self.rows | f"{label}Carry" >> beam.ParDo(
                _CarryRows(), beam.pvalue.AsDict(self._unit_keys))
        fresh_keys = fresh_rows | f"{label}FreshKeys" >> beam.Map(
            lambda sr: (row_key(sr[1]), 1))
        counted = ({"previous": self.keys, "fresh": fresh_keys, "units": self._unit_keys}
                   | f"{label}JoinCounts" >> beam.CoGroupByKey()
                   | f"{label}Count" >> beam.FlatMap(
                       _count_key, self.recompute_all).with_outputs(*SIDE_OUTPUTS,
                                                                    main="main"))
        self.carried_rows = carried
        rows = (carried, fresh_rows) | f"{label}AllRows" >> beam.Flatten()
        return rows, [counted]
