"""Read search-query logs (TSV, CSV, JSONL, Parquet) and aggregate them per normalized query.

A row is either a raw event (query, timestamp, user or session id) or pre-aggregated (query,
count of events, count of distinct users): a row that has the users field is pre-aggregated.
Column names are options. A malformed row (no query, no user, a bad timestamp or count) is
dead-lettered with its file and line and counted; it never stops the job.
"""

from __future__ import annotations

import csv
import io
import json
import posixpath
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes

from filters.nq.queries import max_users_in_window, normalize_query, parse_timestamp
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, tally

FORMATS = ("tsv", "csv", "jsonl", "parquet")


@dataclass(frozen=True)
class LogFields:
    """Column names of a query log."""

    query: str = "query"
    time: str = "timestamp"
    user: str = "user_id"
    count: str = "count"
    users: str = "users"


@dataclass(frozen=True)
class QueryRecord:
    """One log row: a raw event (``day`` and ``user`` set) or an aggregate (``users`` set)."""

    query: str
    day: date | None = None
    user: str = ""
    count: int = 1
    users: int = 0


def infer_format(path: str, declared: str | None = None) -> str:
    """The declared format, else the file extension (``.gz`` ignored)."""
    if declared:
        return declared
    name = path[:-3] if path.endswith(".gz") else path
    extension = posixpath.splitext(name)[1].lstrip(".").lower()
    extension = {"txt": "tsv", "ndjson": "jsonl", "json": "jsonl", "pq": "parquet"}.get(
        extension, extension)
    if extension not in FORMATS:
        raise ValueError(f"cannot infer the log format of {path}; pass --format")
    return extension


def iter_rows(data: bytes, fmt: str) -> Iterator[tuple[int, dict | Exception]]:
    """``(line number, row dict)`` per row; a row that cannot be decoded yields the error."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(io.BytesIO(data))
        for number, row in enumerate(table.to_pylist(), start=1):
            yield number, row
        return
    text = data.decode("utf-8", errors="replace")
    if fmt == "jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                yield number, row if isinstance(row, dict) else ValueError("not a JSON object")
            except json.JSONDecodeError as error:
                yield number, error
        return
    reader = csv.DictReader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ",",
                            quoting=csv.QUOTE_NONE if fmt == "tsv" else csv.QUOTE_MINIMAL)
    for number, row in enumerate(reader, start=2):
        if None in row or any(v is None for v in row.values()):
            yield number, ValueError(f"expected {len(reader.fieldnames or [])} columns")
        else:
            yield number, row


def to_record(row: dict, fields: LogFields) -> QueryRecord:
    """Validate one row; raises ValueError with the reason for a malformed row."""
    query = row.get(fields.query)
    if not isinstance(query, str):
        raise ValueError(f"missing query field {fields.query!r}")
    if not normalize_query(query):
        raise ValueError("empty query")
    users = row.get(fields.users)
    if users not in (None, ""):
        count = row.get(fields.count)
        return QueryRecord(query, count=int(count) if count not in (None, "") else int(users),
                           users=int(users))
    user = row.get(fields.user)
    if user in (None, ""):
        raise ValueError(f"missing user field {fields.user!r} (or users field {fields.users!r})")
    return QueryRecord(query, day=parse_timestamp(row.get(fields.time)).date(), user=str(user))


class _ParseLogFile(beam.DoFn):
    STAGE = "log"

    def __init__(self, fields: LogFields, fmt: str | None):
        self.fields = fields
        self.fmt = fmt

    def process(self, readable: fileio.ReadableFile):
        path = readable.metadata.path
        try:
            fmt = infer_format(path, self.fmt)
            data = readable.read()
        except Exception as error:  # noqa: BLE001 - an unreadable file must not stop the job
            yield dead_letter(self.STAGE, error, source=path)
            return
        for number, row in iter_rows(data, fmt):
            yield tally(self.STAGE, "rows")
            try:
                if isinstance(row, Exception):
                    raise row
                yield to_record(row, self.fields)
            except (ValueError, TypeError, OverflowError) as error:
                yield tally(self.STAGE, "malformed_rows")
                yield dead_letter(self.STAGE, error, source=f"{path}:{number}",
                                  row=str(row)[:500])


class ReadQueryLog(beam.PTransform):
    """Query-log rows matching a glob (any Beam filesystem) as QueryRecord."""

    def __init__(self, pattern: str, fields: LogFields, fmt: str | None = None):
        super().__init__()
        self.pattern = pattern
        self.fields = fields
        self.fmt = fmt

    def expand(self, pbegin):
        result = (pbegin
                  | "MatchLogs" >> fileio.MatchFiles(self.pattern)
                  | "OpenLogs" >> fileio.ReadMatches(compression=CompressionTypes.AUTO)
                  | "ParseLogs" >> beam.ParDo(_ParseLogFile(self.fields, self.fmt))
                  .with_outputs(*SIDE_OUTPUTS, main="main"))
        return result.main, [result]


@dataclass
class QueryStats:
    """Aggregate of one normalized query: variants, events, users and their active days."""

    variants: Counter = field(default_factory=Counter)
    events: int = 0
    user_days: dict[str, set[date]] = field(default_factory=dict)
    reported_users: int = 0

    def distinct_users(self) -> int:
        return len(self.user_days) + self.reported_users

    def users_in_window(self, window_days: int) -> int:
        """Distinct users within ``window_days``; pre-aggregated users count as in-window."""
        return max_users_in_window(self.user_days, window_days) + self.reported_users


class AggregateQueryFn(beam.CombineFn):
    """Merge QueryRecords of one normalized query into QueryStats."""

    def create_accumulator(self):
        return QueryStats()

    def add_input(self, acc: QueryStats, record: QueryRecord):
        acc.variants[record.query] += record.count
        acc.events += record.count
        if record.users:
            acc.reported_users += record.users
        else:
            acc.user_days.setdefault(record.user, set()).add(record.day)
        return acc

    def merge_accumulators(self, accumulators):
        merged = QueryStats()
        for acc in accumulators:
            merged.variants.update(acc.variants)
            merged.events += acc.events
            merged.reported_users += acc.reported_users
            for user, days in acc.user_days.items():
                merged.user_days.setdefault(user, set()).update(days)
        return merged

    def extract_output(self, acc):
        return acc


def key_by_normalized_query(record: QueryRecord):
    """``(normalized query, record)``; the empty string for queries that normalize to nothing."""
    return normalize_query(record.query), record
