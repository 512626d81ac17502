"""One hostile query-log row costs only itself; no log decodes past its cap (issue 23 §9, §15)."""

from __future__ import annotations

import bz2
import gzip
import json

import zstandard

from tests.transforms.sources.test_query_logs import _read
from transforms.sources.compressed import DECODED_TOO_LARGE, TRUNCATED_COMPRESSION
from transforms.sources.query_logs import FIELD_TOO_LONG, iter_rows

GOOD = "who won the world cup final in the year {}"


def _tsv_rows(count: int, bad_at: int, bad: str) -> str:
    rows = [f"{GOOD.format(1900 + i)}\t2018-03-05T10:00:00Z\tu{i}" for i in range(count)]
    rows[bad_at] = bad
    return "query\ttimestamp\tuser_id\n" + "\n".join(rows) + "\n"


def test_an_over_long_tsv_field_costs_only_its_row(tmp_path):
    (tmp_path / "in").mkdir()
    long_row = f"{'x' * 200_000}\t2018-03-05T10:00:00Z\tu9"  # past csv's 128 KiB field limit
    (tmp_path / "in" / "log.tsv").write_text(_tsv_rows(6, 2, long_row), encoding="utf-8")
    queries, tallies, dead = _read(str(tmp_path / "in" / "*"), tmp_path)
    assert len(queries) == 5
    assert tallies["log.rows"] == 6 and tallies["log.malformed_rows"] == 1
    assert tallies[f"log.malformed.{FIELD_TOO_LONG}"] == 1
    assert "log.unreadable_files" not in tallies
    assert [d["source"].rsplit(":", 1)[1] for d in dead] == ["4"]
    assert dead[0]["reason"] == FIELD_TOO_LONG


def test_an_over_long_csv_field_costs_only_its_row():
    text = ("query,timestamp,user_id\n"
            f"{GOOD.format(1)},2018-03-05,u1\n"
            f'"{"y" * 200_000}",2018-03-05,u2\n'
            f"{GOOD.format(2)},2018-03-05,u3\n").encode()
    rows = list(iter_rows(text, "csv"))
    assert [number for number, _ in rows] == [2, 3, 4]
    assert isinstance(rows[1][1], ValueError) and rows[1][1].reason == FIELD_TOO_LONG
    assert rows[2][1]["user_id"] == "u3"


def test_a_deeply_nested_json_line_costs_only_its_row(tmp_path):
    (tmp_path / "in").mkdir()
    lines = [json.dumps({"query": GOOD.format(i), "count": 3, "users": 2}) for i in range(4)]
    lines[1] = '{"query": ' + "[" * 100_000 + "]" * 100_000 + "}"
    (tmp_path / "in" / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    queries, tallies, dead = _read(str(tmp_path / "in" / "*"), tmp_path)
    assert len(queries) == 3
    assert tallies["log.malformed.too_deeply_nested"] == 1 and tallies["log.rows"] == 4
    assert "log.unreadable_files" not in tallies
    assert dead[0]["source"].endswith("log.jsonl:2") and dead[0]["reason"] == "too_deeply_nested"


def _bomb_test(tmp_path, name: str, data: bytes):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / name).write_bytes(data)
    (tmp_path / "in" / "ok.jsonl").write_text(
        json.dumps({"query": GOOD.format(1), "count": 3, "users": 2}) + "\n")
    import apache_beam as beam
    from apache_beam.options.pipeline_options import PipelineOptions
    from apache_beam.testing import test_pipeline

    from tests.conftest import TEST_RUNNER
    from tests.transforms.sources.test_query_logs import FIELDS, _dump
    from transforms.core.accounting import DEAD_LETTER, TALLY
    from transforms.sources.query_logs import ReadQueryLog

    with test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        records, results = p | ReadQueryLog(str(tmp_path / "in" / "*"), FIELDS,
                                            max_decoded_bytes=1 << 20)
        tallies = [r[TALLY] for r in results] | beam.Flatten() | beam.CombinePerKey(sum)
        dead = [r[DEAD_LETTER] for r in results] | "Dead" >> beam.Flatten()
        for label, pcoll in (("records", records | beam.Map(lambda r: r.query)),
                             ("tallies", tallies),
                             ("dead", dead | beam.Map(lambda d: [d["reason"], d["rows_read"]]))):
            path = str(tmp_path / f"{label}.json")
            _ = (pcoll | f"List{label}" >> beam.combiners.ToList()
                 | f"Dump{label}" >> beam.Map(lambda values, path=path: _dump(path, values)))
    return {label: json.loads((tmp_path / f"{label}.json").read_text())
            for label in ("records", "tallies", "dead")}


def test_a_gzip_bomb_is_dead_lettered_as_decoded_too_large(tmp_path):
    row = json.dumps({"query": GOOD.format(2), "count": 3, "users": 2}).encode() + b"\n"
    out = _bomb_test(tmp_path, "bomb.jsonl.gz", gzip.compress(row * 200_000))  # ~12 MB
    tallies = dict(map(tuple, out["tallies"]))
    assert out["records"] == [GOOD.format(1)]  # nothing of the oversized file is kept
    assert tallies[f"log.unreadable.{DECODED_TOO_LARGE}"] == 1
    assert out["dead"] == [[DECODED_TOO_LARGE, 0]]


def test_a_bzip2_bomb_of_zeros_is_dead_lettered(tmp_path):
    out = _bomb_test(tmp_path, "bomb.tsv.bz2", bz2.compress(b"\0" * (16 << 20)))
    assert out["dead"] == [[DECODED_TOO_LARGE, 0]] and out["records"] == [GOOD.format(1)]


def test_a_truncated_zstd_log_keeps_only_its_complete_rows(tmp_path):
    rows = b"".join(json.dumps({"query": GOOD.format(i), "count": 3, "users": 2}).encode()
                    + b"\n" for i in range(20_000))
    packed = zstandard.ZstdCompressor().compress(rows)
    out = _bomb_test(tmp_path, "cut.jsonl.zst", packed[:len(packed) // 2])
    (reason, kept), = out["dead"]
    assert reason == TRUNCATED_COMPRESSION and 0 < kept < 20_000
    assert len(out["records"]) == kept + 1
