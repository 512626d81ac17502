"""A tiny release-writing pipeline for the release tests: rows, tallies and dead letters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import apache_beam as beam
import pyarrow as pa

from tests.conftest import TEST_RUNNER
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, tally
from transforms.release import (
    ReleaseTarget,
    WriteAccounting,
    WriteShards,
    group_tallies,
    parquet_bytes,
    publish,
    run_release,
)

SCHEMA = pa.schema([pa.field("id", pa.string())])


class Keep(beam.DoFn):
    """Keeps every id; ids starting with ``bad`` are dead-lettered by the ``parse`` stage."""

    def process(self, row_id: str):
        yield tally("rows", "read")
        if row_id.startswith("bad"):
            yield dead_letter("parse", "bad row", id=row_id)
            return
        yield tally("rows", "kept")
        yield {"id": row_id}


def build(pipeline: beam.Pipeline, ids: list[str], target: ReleaseTarget) -> list:
    results = (pipeline
               | "Ids" >> beam.Create(ids)
               | "Keep" >> beam.ParDo(Keep()).with_outputs(*SIDE_OUTPUTS, main="main"))
    rows = (results.main
            | "Key" >> beam.Map(lambda row: ("train", row))
            | "Write" >> WriteShards(target.staging_dir, lambda row: row["id"], parquet_bytes,
                                     "parquet", SCHEMA))
    accounting = pipeline | "Accounting" >> WriteAccounting(target.staging_dir, [results])
    return [rows, accounting]


def run_toy(root: Any, ids: list[str], version: str = "1.0.0", *, overwrite: bool = False,
            skip_existing: bool = False, allow_empty: bool = False,
            **kwargs: Any) -> dict[str, Any]:
    """Build and publish release ``toy`` of ``ids`` under ``root``."""
    target = ReleaseTarget.create(str(root), "toy", version)
    return run_release(target, overwrite, [TEST_RUNNER], lambda p: build(p, ids, target),
                       finish_toy(target, overwrite=overwrite, allow_empty=allow_empty),
                       skip_existing=skip_existing, **kwargs)


def finish_toy(target: ReleaseTarget, *, overwrite: bool = False,
               allow_empty: bool = False) -> Callable[[], dict[str, Any]]:
    """The publish step of release ``toy`` at ``target``."""
    empty = {"allow_empty": True} if allow_empty else {}

    def finish() -> dict[str, Any]:
        return publish(target, overwrite=overwrite, splits=["train"], schema=SCHEMA,
                       field_docs={}, options={}, source={},
                       make_stats=lambda tallies, _: {"counts": group_tallies(tallies)},
                       make_card=lambda manifest, stats: "toy\n", **empty)

    return finish
