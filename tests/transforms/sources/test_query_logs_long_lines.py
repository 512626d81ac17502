"""A query-log line past the line cap is never held whole: it is dead-lettered
``line_too_long`` and the rest of the file is read (issue 35 §13: a ~1 KB ``.bz2`` log holding
one 1 GiB line passed 1 GB RSS in 5 s). Each bomb is built in the test, with a small cap;
asserted on what the reader holds (traced allocations, the dead letter), not on the
machine's RSS or speed."""

from __future__ import annotations

import bz2
import gzip
import json
import tracemalloc
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing import test_pipeline

from tests.conftest import TEST_RUNNER
from tests.transforms.sources.test_query_logs import FIELDS, _dump
from transforms.core.accounting import DEAD_LETTER, TALLY
from transforms.sources.compressed import LONG_LINE_HEAD, LongLine, iter_path_lines
from transforms.sources.query_log_counters import LINE_TOO_LONG
from transforms.sources.query_logs import ReadQueryLog, iter_rows

GOOD = "who won the world cup final in the year {}"
CAP = 4096
MIB = 1 << 20


def _tsv(lines: list[bytes]) -> bytes:
    return b"query\ttimestamp\tuser_id\n" + b"".join(line + b"\n" for line in lines)


def _row(i: int) -> bytes:
    return f"{GOOD.format(1900 + i)}\t2018-03-05T10:00:00Z\tu{i}".encode()


def _read(directory: Path, out: Path, max_line_bytes: int | None = CAP) -> dict:
    with test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        records, results = p | ReadQueryLog(str(directory / "*"), FIELDS,
                                            max_line_bytes=max_line_bytes)
        tallies = [r[TALLY] for r in results] | beam.Flatten() | beam.CombinePerKey(sum)
        dead = ([r[DEAD_LETTER] for r in results] | "Dead" >> beam.Flatten()
                | beam.Map(lambda d: {k: v for k, v in d.items() if k != "traceback"}))
        for label, pcoll in (("records", records | beam.Map(lambda r: r.query)),
                             ("tallies", tallies), ("dead", dead)):
            path = str(out / f"{label}.json")
            _ = (pcoll | f"List{label}" >> beam.combiners.ToList()
                 | f"Dump{label}" >> beam.Map(lambda values, path=path: _dump(path, values)))
    found = {label: json.loads((out / f"{label}.json").read_text())
             for label in ("records", "tallies", "dead")}
    found["tallies"] = dict(map(tuple, found["tallies"]))
    return found


def test_the_line_reader_never_holds_more_than_the_cap_of_a_bz2_bomb_line(tmp_path):
    """32 MiB of ``a`` on one line, compressed to a few hundred bytes: the reader's traced
    peak stays near its decoding pieces, far below the line, and the line is a LongLine."""
    line = 32 * MIB
    path = tmp_path / "bomb.tsv.bz2"
    path.write_bytes(bz2.compress(b"short\n" + b"a" * line + b"\nafter\n"))
    assert path.stat().st_size < 2048
    tracemalloc.start()
    try:
        found = list(iter_path_lines(str(path), max_line_bytes=CAP))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found[0] == b"short\n" and found[2] == b"after\n"
    long = found[1]
    assert isinstance(long, LongLine) and long.reason == LINE_TOO_LONG
    assert long.length == line + 1 and long.head == b"a" * LONG_LINE_HEAD and long.limit == CAP
    assert peak < 2 * MIB  # pieces of 64 KiB; the 32 MiB line was never joined


def test_without_a_cap_the_line_is_whole():
    """Other readers (NQ's multi-megabyte lines) keep the uncapped behaviour."""
    assert list(iter_rows(b'{"query": "' + b"q" * 10_000 + b'", "users": 2}\n', "jsonl"))[0][1][
        "query"] == "q" * 10_000


@pytest.mark.parametrize("name, pack", [
    ("log.tsv.bz2", bz2.compress), ("log.tsv.gz", gzip.compress), ("log.tsv", bytes)])
def test_a_long_line_costs_only_itself_and_is_dead_lettered(tmp_path, name, pack):
    (tmp_path / "in").mkdir()
    lines = [_row(i) for i in range(6)]
    lines[2] = b"x" * (2 * MIB)  # one line past the cap, in the middle of the file
    (tmp_path / "in" / name).write_bytes(pack(_tsv(lines)))
    out = _read(tmp_path / "in", tmp_path)
    assert sorted(out["records"]) == sorted(GOOD.format(1900 + i) for i in (0, 1, 3, 4, 5))
    assert out["tallies"][f"log.malformed.{LINE_TOO_LONG}"] == 1
    assert out["tallies"]["log.rows"] == 6 and out["tallies"]["log.malformed_rows"] == 1
    assert "log.unreadable_files" not in out["tallies"]
    (dead,) = out["dead"]
    assert dead["reason"] == LINE_TOO_LONG and dead["source"].endswith(f"{name}:4")
    assert f"{2 * MIB + 1} bytes is longer than the {CAP}-byte line cap" in dead["error"]


def test_a_long_jsonl_line_in_a_bz2_log_and_the_default_cap(tmp_path):
    (tmp_path / "in").mkdir()
    rows = [json.dumps({"query": GOOD.format(i), "count": 3, "users": 2}).encode()
            for i in range(4)]
    rows[1] = b'{"query": "' + b"a" * (3 * MIB) + b'", "users": 2}'
    (tmp_path / "in" / "log.jsonl.bz2").write_bytes(bz2.compress(b"\n".join(rows) + b"\n"))
    out = _read(tmp_path / "in", tmp_path, max_line_bytes=None)  # the default: 1 MiB
    assert sorted(out["records"]) == sorted(GOOD.format(i) for i in (0, 2, 3))
    assert [(d["reason"], d["source"].rsplit(":", 1)[1]) for d in out["dead"]] == [
        (LINE_TOO_LONG, "2")]


def test_a_header_past_the_cap_makes_the_file_unreadable(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "log.tsv.bz2").write_bytes(bz2.compress(
        b"query\t" + b"h" * (CAP * 2) + b"\n" + _row(1) + b"\n"))
    out = _read(tmp_path / "in", tmp_path)
    assert out["records"] == []
    assert out["tallies"][f"log.unreadable.{LINE_TOO_LONG}"] == 1
    assert [d["reason"] for d in out["dead"]] == [LINE_TOO_LONG]


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_a_first_row_the_csv_module_refuses_costs_only_itself(fmt):
    """A field past the csv module's limit (128 KiB) in the first data row is that row's
    error, not the file's: it raised UnboundLocalError and lost every row after it."""
    sep = "," if fmt == "csv" else "\t"
    head = sep.join(["query", "timestamp", "user_id"])
    rows = [sep.join([GOOD.format(i), "2018-03-05T10:00:00Z", f"u{i}"]) for i in range(3)]
    data = "\n".join([head, sep.join(["q" * (200 * 1024), "2018", "u"]), *rows]) + "\n"
    found = list(iter_rows(data.encode(), fmt))
    assert [n for n, _ in found] == [2, 3, 4, 5]
    assert getattr(found[0][1], "reason", None) == "field_too_long"
    assert [row["query"] for _, row in found[1:]] == [GOOD.format(i) for i in range(3)]
