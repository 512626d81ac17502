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
