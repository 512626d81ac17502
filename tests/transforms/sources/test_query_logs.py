import json
from datetime import date

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from tests.conftest import TEST_RUNNER
from transforms.core.accounting import DEAD_LETTER, TALLY
from transforms.sources.query_logs import (
    AggregateQueryFn,
    LogFields,
    QueryRecord,
    ReadQueryLog,
    infer_format,
    iter_rows,
    key_by_normalized_query,
    to_record,
)

FIELDS = LogFields()


def test_infer_format():
    assert infer_format("logs/a.tsv.gz") == "tsv"
    assert infer_format("a.ndjson") == "jsonl"
    assert infer_format("a.whatever", "csv") == "csv"
    with pytest.raises(ValueError):
        infer_format("a.bin")


def test_rows_of_every_format():
    tsv = b"query\ttimestamp\tuser_id\nwho won\t2018-03-05T10:00:00Z\tu1\nbroken line\n"
    rows = list(iter_rows(tsv, "tsv"))
    assert rows[0] == (2, {"query": "who won", "timestamp": "2018-03-05T10:00:00Z",
                           "user_id": "u1"})
    assert rows[1][0] == 3 and isinstance(rows[1][1], ValueError)
    csv_rows = list(iter_rows(b'query,count,users\n"who won, and when",4,3\n', "csv"))
    assert csv_rows == [(2, {"query": "who won, and when", "count": "4", "users": "3"})]
    jsonl = list(iter_rows(b'{"query": "a", "users": 2}\n\nnot json\n[1]\n', "jsonl"))
    assert jsonl[0] == (1, {"query": "a", "users": 2})
    assert [n for n, r in jsonl if isinstance(r, Exception)] == [3, 4]


def test_to_record_raw_aggregated_and_malformed():
    raw = to_record({"query": "Q", "timestamp": "2018-03-05T23:59:59Z", "user_id": 7}, FIELDS)
    assert raw == QueryRecord("Q", day=date(2018, 3, 5), user="7")
    agg = to_record({"query": "Q", "count": 12, "users": 7}, FIELDS)
    assert (agg.count, agg.users) == (12, 7)
    assert to_record({"query": "Q", "users": "3"}, FIELDS).count == 3
    for bad in ({"timestamp": "2018-03-05T10:00:00Z", "user_id": "u"},
                {"query": "  ", "timestamp": "2018-03-05T10:00:00Z", "user_id": "u"},
                {"query": "Q", "timestamp": "yesterday", "user_id": "u"},
                {"query": "Q", "timestamp": "2018-03-05T10:00:00Z"},
                {"query": "Q", "users": "many"}):
        with pytest.raises(ValueError):
            to_record(bad, FIELDS)


def test_custom_field_names():
    fields = LogFields(query="q", time="ts", user="session")
    record = to_record({"q": "x", "ts": "1520244000", "session": "s1"}, fields)
    assert (record.user, record.day) == ("s1", date(2018, 3, 5))


def test_read_and_aggregate_every_format(tmp_path):
    (tmp_path / "a.tsv").write_text(
        "query\ttimestamp\tuser_id\n"
        "Who won the cup?\t2018-03-05T10:00:00Z\tu1\n"
        "who won the cup\t2018-03-06T10:00:00Z\tu2\n"
        "who won the cup\tyesterday\tu3\n")
    (tmp_path / "b.csv").write_text("query,timestamp,user_id\nwho  WON the cup,2018-03-20,u4\n")
    (tmp_path / "c.jsonl").write_text(json.dumps({"query": "who won the cup", "count": 5,
                                                  "users": 3}) + "\n")
    pq.write_table(pa.table({"query": ["who won the cup"], "timestamp": ["2018-03-05T12:00:00Z"],
                             "user_id": ["u1"]}), tmp_path / "d.parquet")
    with test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        records, results = p | ReadQueryLog(str(tmp_path / "*"), FIELDS)
        stats = (records | beam.Map(key_by_normalized_query)
                 | beam.CombinePerKey(AggregateQueryFn())
                 | beam.Map(lambda kv: (kv[0], kv[1].events, kv[1].distinct_users(),
                                        kv[1].users_in_window(7),
                                        kv[1].variants.most_common(1)[0][0])))
        assert_that(stats, equal_to([("who won the cup", 9, 6, 5, "who won the cup")]),
                    label="aggregate")
        tallies = [r[TALLY] for r in results] | beam.Flatten() | beam.CombinePerKey(sum)
        assert_that(tallies, equal_to([("log.rows", 6), ("log.malformed_rows", 1)]),
                    label="tallies")
        dead = [r[DEAD_LETTER] for r in results] | "Dead" >> beam.Flatten()
        assert_that(dead | beam.Map(lambda d: d["source"].endswith("a.tsv:4")),
                    equal_to([True]), label="dead")


def _dump(path, values):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(values, handle)


def _read(pattern: str, out_dir):
    """Run ReadQueryLog; return (normalized queries, tallies, dead letters without tracebacks)."""
    with test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        records, results = p | ReadQueryLog(pattern, FIELDS)
        queries = records | beam.Map(lambda r: key_by_normalized_query(r)[0])
        tallies = [r[TALLY] for r in results] | beam.Flatten() | beam.CombinePerKey(sum)
        dead = ([r[DEAD_LETTER] for r in results] | "Dead" >> beam.Flatten()
                | beam.Map(lambda d: {k: v for k, v in d.items() if k != "traceback"}))
        for name, pcoll in (("queries", queries), ("tallies", tallies), ("dead", dead)):
            path = str(out_dir / f"{name}.json")
            _ = (pcoll | f"Collect{name}" >> beam.combiners.ToList()
                 | f"Keep{name}" >> beam.Map(lambda values, path=path: _dump(path, values)))
    out = {name: json.loads((out_dir / f"{name}.json").read_text(encoding="utf-8"))
           for name in ("queries", "tallies", "dead")}
    return sorted(out["queries"]), dict(map(tuple, out["tallies"])), out["dead"]


QUESTION = "who won the world cup final in the year 2010"


def test_hostile_rows_are_dead_lettered_with_a_reason(tmp_path):
    (tmp_path / "in").mkdir()
    lines = [json.dumps({"query": QUESTION, "count": 3, "users": 2}),
             '{"query": "who won \\ud800 the cup in south africa", "users": 2}',
             json.dumps({"query": QUESTION, "count": 10**20, "users": 2}),
             json.dumps({"query": QUESTION, "count": 3, "users": -1}),
             json.dumps({"query": "who won\x00 the cup in south africa", "users": 2}),
             json.dumps({"query": QUESTION, "users": 0, "count": 1}),
             json.dumps({"query": QUESTION, "timestamp": "\ud800", "user_id": "u"},
                        ensure_ascii=True)]
    (tmp_path / "in" / "a.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "in" / "b.tsv").write_bytes(
        b"query\ttimestamp\tuser_id\n"
        + "who won the c\u00f4te d'ivoire league in 2010\t2018-03-05\tu1\n".encode("latin-1")
        + "Who won the c\u00f4te d'ivoire league in 2010\t2018-03-05\tu2\n".encode("utf-8"))
    queries, tallies, dead = _read(str(tmp_path / "in" / "*"), tmp_path)
    assert queries == sorted([QUESTION, QUESTION, "who won the c\u00f4te d'ivoire league in 2010"])
    assert tallies == {"log.rows": 9, "log.malformed_rows": 6,
                       "log.malformed.invalid_unicode": 1, "log.malformed.invalid_count": 2,
                       "log.malformed.control_characters": 1,
                       "log.malformed.invalid_utf8": 1}
    by_source = {d["source"].rsplit("/", 1)[1]: d for d in dead}
    assert by_source["a.jsonl:3"]["reason"] == "invalid_count"
    assert by_source["b.tsv:2"]["reason"] == "invalid_utf8"
    assert "\\xf4" in by_source["b.tsv:2"]["row"]
    assert "\\ud800" in by_source["a.jsonl:7"]["error"]  # written escaped, never raw
    json.dumps(dead, ensure_ascii=False).encode("utf-8")  # every dead letter is writable


def test_aggregate_with_zero_users_is_not_a_raw_event():
    acc = AggregateQueryFn().add_input(AggregateQueryFn().create_accumulator(),
                                       QueryRecord("q", count=4, users=0))
    assert (acc.events, acc.distinct_users(), acc.users_in_window(7)) == (4, 0, 0)


def test_corrupt_and_empty_parquet_are_dead_lettered(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "empty.parquet").write_bytes(b"")
    (tmp_path / "in" / "corrupt.parquet").write_bytes(b"PAR1 this is not parquet")
    pq.write_table(pa.table({"query": [QUESTION], "users": [2]}), tmp_path / "in" / "ok.parquet")
    queries, tallies, dead = _read(str(tmp_path / "in" / "*"), tmp_path)
    assert queries == [QUESTION]
    assert tallies == {"log.rows": 1, "log.unreadable_files": 2,
                       "log.unreadable.invalid_parquet": 2}
    assert {d["reason"] for d in dead} == {"invalid_parquet"}


def test_truncated_gzip_is_dead_lettered_with_the_rows_read(tmp_path):
    (tmp_path / "in").mkdir()
    import gzip

    rows = [json.dumps({"query": f"{QUESTION} number {i}", "users": 2}) for i in range(2000)]
    data = gzip.compress(("\n".join(rows) + "\n").encode())
    (tmp_path / "in" / "cut.jsonl.gz").write_bytes(data[:len(data) // 2])
    (tmp_path / "in" / "whole.tsv.gz").write_bytes(gzip.compress(
        f"query\tusers\n{QUESTION}\t3\n".encode()))
    queries, tallies, dead = _read(str(tmp_path / "in" / "*"), tmp_path)
    read = tallies["log.rows"] - 1
    assert 0 < read < 2000 and len(queries) == read + 1
    assert "log.malformed_rows" not in tallies  # no partial last record
    assert QUESTION in queries and all(q.startswith(QUESTION) for q in queries)
    assert tallies["log.unreadable.truncated_compression"] == 1
    [letter] = dead
    assert (letter["reason"], letter["rows_read"], letter["error_type"]) == (
        "truncated_compression", read, "EOFError")


def test_corrupt_gzip_keeps_no_row(tmp_path):
    import gzip

    (tmp_path / "in").mkdir()
    rows = "".join(json.dumps({"query": f"{QUESTION} {i}", "users": 2}) + "\n"
                   for i in range(2000))
    broken = bytearray(gzip.compress(rows.encode()))
    broken[len(broken) // 2:len(broken) // 2 + 8] = b"\xff" * 8
    (tmp_path / "in" / "bad.jsonl.gz").write_bytes(bytes(broken))
    queries, tallies, dead = _read(str(tmp_path / "in" / "*"), tmp_path)
    assert queries == []
    assert tallies == {"log.unreadable_files": 1, "log.unreadable.corrupt_compression": 1}
    assert [(d["reason"], d["rows_read"]) for d in dead] == [("corrupt_compression", 0)]


def test_decompress_keeps_the_prefix_of_a_corrupt_stream():
    import gzip
    import zlib

    from transforms.sources.compressed import complete_lines
    from transforms.sources.compressed import decompress as _decompress

    whole = b"".join(f"line {i}\n".encode() for i in range(50_000))
    data = gzip.compress(whole) + gzip.compress(b"second member\n") + b"\0\0"
    assert _decompress(data, lambda: zlib.decompressobj(wbits=31)) == (
        whole + b"second member\n", None)
    broken = bytearray(gzip.compress(whole))
    broken[len(broken) // 2:len(broken) // 2 + 50] = b"\xff" * 50
    prefix, error = _decompress(bytes(broken), lambda: zlib.decompressobj(wbits=31))
    assert isinstance(error, zlib.error) and prefix[:1000] == whole[:1000]
    prefix, error = _decompress(gzip.compress(whole)[:5000], lambda: zlib.decompressobj(wbits=31))
    assert isinstance(error, EOFError) and whole.startswith(prefix) and prefix
    assert complete_lines(b"a\nb\npart") == b"a\nb\n"
