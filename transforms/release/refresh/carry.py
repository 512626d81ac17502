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
``recompute_all``): those rows are carried as they are, in their split. The previous keys
reach the filter as a side input (a dict of short strings), so units are never shuffled;
the previous rows are joined with this run's unit keys by key.

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
from apache_beam.io.filesystems import FileSystems

from transforms.core.accounting import SIDE_OUTPUTS, tally
from transforms.release.refresh.counters import (
    CARRIED,
    INPUTS_CARRIED,
    NEW,
    RECOMPUTED,
    REMOVED,
)
from transforms.release.refresh.previous import PreviousRelease
from transforms.release.storage import RAW

Row = dict[str, Any]
SplitRow = tuple[str, Row]


def read_previous_file(item: tuple[str, str], version_dir: str) -> Iterator[SplitRow]:
    """``(split, row)`` of one data file of the previous release, a row group at a time
    (the release was verified in full before the job, so its sizes are its manifest's)."""
    split, name = item
    with FileSystems.open(FileSystems.join(version_dir, *name.split("/")),
                          compression_type=RAW) as handle:
        parquet = pq.ParquetFile(io.BytesIO(handle.read()))
    for index in range(parquet.num_row_groups):
        for row in parquet.read_row_group(index).to_pylist():
            yield split, row


FileReader = Callable[[tuple[str, str], str], Iterator[SplitRow]]


class ReadPreviousRows(beam.PTransform):
    """``(split, row)`` of every data file of the previous release (none without one):
    by default its Parquet split files; ``files`` (``(split, release-relative name)``) and
    ``reader(item, version_dir)`` read another format (NQ carries its ``nq_original``
    examples, from which both of its formats are written)."""

    def __init__(self, previous: PreviousRelease | None,
                 files: list[tuple[str, str]] | None = None,
                 reader: FileReader = read_previous_file):
        super().__init__()
        self.path = previous.path if previous else ""
        self.files = (files if files is not None
                      else previous.split_files() if previous else [])
        self.reader = reader

    def expand(self, pbegin):
        return (pbegin
                | "Files" >> beam.Create(self.files)
                | "SpreadFiles" >> beam.Reshuffle()
                | "ReadRows" >> beam.FlatMap(self.reader, self.path))


class _KeepFresh(beam.DoFn):
    """Units whose key has no previous rows (every unit with ``recompute_all``)."""

    def __init__(self, unit_key: Callable[[Any], str], recompute_all: bool):
        self.unit_key = unit_key
        self.recompute_all = recompute_all

    def process(self, unit, previous_keys):
        if self.recompute_all or self.unit_key(unit) not in previous_keys:
            yield unit


def _carry_group(item: tuple[str, dict[str, list]], recompute_all: bool):
    """One key's previous rows and whether this run has its unit: carry, or leave them to
    ``count`` (recomputed or removed)."""
    _, grouped = item
    rows, units = grouped["rows"], grouped["units"]
    if rows and units and not recompute_all:
        yield tally(INPUTS_CARRIED)
        yield tally(CARRIED, len(rows))
        yield from rows


def _count_key(item: tuple[str, dict[str, list]]):
    """``refresh.*`` tallies of one key (see the module docstring)."""
    _, grouped = item
    previous = sum(grouped["previous"])
    fresh = sum(grouped["fresh"])
    if grouped["carried"]:
        return
    if fresh:
        yield tally(RECOMPUTED if previous else NEW, fresh)
    elif previous:
        yield tally(REMOVED, previous)


class Carry:
    """The previous release's rows, the filter of fresh units and the refresh counts of one
    job (see the module docstring); ``label`` prefixes its steps; ``files`` and ``reader``
    choose what is read (``ReadPreviousRows``)."""

    def __init__(self, pbegin, previous: PreviousRelease | None,
                 row_key: Callable[[Row], str], *, recompute_all: bool = False,
                 label: str = "Refresh", files: list[tuple[str, str]] | None = None,
                 reader: FileReader = read_previous_file):
        self.active = previous is not None
        self.label = label
        self.row_key = row_key
        self.recompute_all = recompute_all
        self._unit_keys = None
        if not self.active:
            return
        self.rows = (pbegin
                     | f"{label}ReadPrevious" >> ReadPreviousRows(previous, files, reader)
                     | f"{label}KeyPrevious" >> beam.Map(lambda split_row: (
                         row_key(split_row[1]), split_row)))
        self.keys = self.rows | f"{label}PreviousKeys" >> beam.Map(lambda kv: (kv[0], 1))

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

    def finish(self, fresh_rows) -> tuple[Any, list]:
        """``(every row of the release, [results for WriteAccounting])``: this run's rows
        (``(split, row)``) and the carried ones, and the ``refresh.*`` tallies."""
        if not self.active:
            return fresh_rows, []
        if self._unit_keys is None:
            raise RuntimeError("Carry.finish() needs the units: call fresh() first")
        label, row_key = self.label, self.row_key
        carried = ({"rows": self.rows, "units": self._unit_keys}
                   | f"{label}JoinUnits" >> beam.CoGroupByKey()
                   | f"{label}Carry" >> beam.FlatMap(
                       _carry_group, self.recompute_all).with_outputs(*SIDE_OUTPUTS,
                                                                      main="main"))
        carried_keys = (carried.main
                        | f"{label}CarriedKeys" >> beam.Map(lambda sr: (row_key(sr[1]), 1)))
        fresh_keys = fresh_rows | f"{label}FreshKeys" >> beam.Map(
            lambda sr: (row_key(sr[1]), 1))
        counted = ({"previous": self.keys, "fresh": fresh_keys, "carried": carried_keys}
                   | f"{label}JoinCounts" >> beam.CoGroupByKey()
                   | f"{label}Count" >> beam.FlatMap(_count_key).with_outputs(
                       *SIDE_OUTPUTS, main="main"))
        rows = (carried.main, fresh_rows) | f"{label}AllRows" >> beam.Flatten()
        return rows, [carried, counted]
