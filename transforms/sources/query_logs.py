"""Read search-query logs (TSV, CSV, JSONL, Parquet) and aggregate them per normalized query.

A row is either a raw event (query, timestamp, user or session id) or pre-aggregated (query,
count of events, count of distinct users): a row that has the users field is pre-aggregated.
Column names are options. A malformed row (no query, no user, a bad timestamp or count) is
dead-lettered with its file and line and counted (``log.malformed_rows``; the newer checks also
by reason, ``log.malformed.<reason>``: ``invalid_count``, ``invalid_utf8``, ``invalid_unicode``,
``control_characters``, ``field_too_long`` (a CSV/TSV field past ``csv.field_size_limit()``),
``invalid_csv``, ``too_deeply_nested`` (a JSON line nested deeper than ``safe_json`` allows));
it never stops the job nor costs another row. A file that cannot be read (``unknown_format``,
``unreadable``, ``invalid_parquet``) or whose compressed stream is damaged or too large is
dead-lettered with the number of rows read and counted (``log.unreadable_files``,
``log.unreadable.<reason>``): ``truncated_compression`` keeps the complete rows before the cut
(never a partial last line); ``corrupt_compression`` keeps none, since a stream's checksum is
checked only at its end and the rows before the error may already be garbage;
``decoded_too_large`` (the file decodes to more than ``max_decoded_bytes``; decoding stops at
the cap) and ``unsupported_compression`` keep none.

Text logs (TSV, CSV, JSONL) are streamed a line at a time, never read whole: a compressed
one is first decoded and discarded to find damage (so that a corrupt stream still keeps
none), then read again line by line. A line longer than ``max_line_bytes`` (default
``DEFAULT_MAX_LINE_BYTES``) is never held whole: it is dead-lettered as
``log.malformed.line_too_long`` and the lines after it are read on (a header line that long
makes the file unreadable, ``log.unreadable.line_too_long``). A Parquet file is read whole,
up to ``max_decoded_bytes``.
"""

from __future__ import annotations

import csv
import io
import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes

from filters.nq.queries import (
    max_users_in_window,
    normalize_query,
    parse_count,
    parse_timestamp,
    text_rejection,
)
from filters.text import safe_json
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, tally
from transforms.core.inputs import beam_pattern
from transforms.release.formats import read_parquet
from transforms.sources.compressed import (
    MIB,
    TRUNCATED_COMPRESSION,
    CompressionDamage,
    LongLine,
    check_stream,
    damage_reason,
    iter_complete_lines,
    read_decompressed,
)
from transforms.sources.query_log_counters import (
    LINE_TOO_LONG,
    LOG,
    LOG_MALFORMED,
    LOG_MALFORMED_ROWS,
    LOG_ROWS,
    LOG_UNREADABLE,
    LOG_UNREADABLE_FILES,
)

FORMATS = ("tsv", "csv", "jsonl", "parquet")
FIELD_TOO_LONG = "field_too_long"
DEFAULT_MAX_LINE_BYTES = MIB  # per log line: a query is at most 400 characters
INVALID_CSV = "invalid_csv"
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".lzma", ".zst", ".zstd", ".deflate")
_ESCAPED_BYTES = re.compile("[\udc80-\udcff]")  # undecodable bytes under surrogateescape


class MalformedRow(ValueError):
    """A row rejected for a named ``reason`` (tallied as ``log.malformed.<reason>``)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


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
    """One log row: a raw event (``day`` and ``user`` set) or an aggregate (``day`` None)."""

    query: str
    day: date | None = None
    user: str = ""
    count: int = 1
    users: int = 0


def infer_format(path: str, declared: str | None = None) -> str:
    """The declared format, else the file extension (a compression suffix ignored)."""
    if declared:
        return declared
    name = _without_compression_suffix(path)
    extension = posixpath.splitext(name)[1].lstrip(".").lower()
    extension = {"txt": "tsv", "ndjson": "jsonl", "json": "jsonl", "pq": "parquet"}.get(
        extension, extension)
    if extension not in FORMATS:
        raise ValueError(f"cannot infer the log format of {path}; pass --format")
    return extension


def _without_compression_suffix(path: str) -> str:
    """``path`` without ``.gz``, ``.bz2``, ``.xz``, ``.lzma``, ``.zst``, ``.zstd``, ``.deflate``."""
    stem, extension = posixpath.splitext(path)
    return stem if extension.lower() in _COMPRESSION_SUFFIXES else path


def _invalid_utf8(text: str) -> MalformedRow | None:
    """The error of a line or field holding bytes that are not UTF-8 (a Latin-1 or Shift-JIS
    line in a UTF-8 log): it is never aggregated, since its decoding would be a guess."""
    found = _ESCAPED_BYTES.findall(text)
    if not found:
        return None
    raw = "".join(found).encode("utf-8", "surrogateescape")
    return MalformedRow("invalid_utf8", f"{len(raw)} bytes that are not UTF-8: {raw[:20]!r}")


def iter_rows(data: bytes, fmt: str) -> Iterator[tuple[int, dict | Exception]]:
    """``(line number, row dict)`` per row; a row that cannot be decoded yields the error, and
    the rows after it are still read (a line with bytes that are not UTF-8:
    ``MalformedRow("invalid_utf8")``; a CSV/TSV field too long: ``field_too_long``; a JSON line
    nested too deep: ``too_deeply_nested``). A Parquet file that cannot be read raises."""
    if fmt == "parquet":

        table = read_parquet(io.BytesIO(data))
        yield from enumerate(table.to_pylist(), start=1)
        return
    yield from iter_line_rows(io.BytesIO(data), fmt)


def iter_line_rows(lines: Iterable[bytes | LongLine], fmt: str
                   ) -> Iterator[tuple[int, dict | Exception]]:
    """The rows of a text log (TSV, CSV, JSONL) from its raw lines, as ``iter_rows``; a
    ``LongLine`` (a line past the line cap) is that line's ``line_too_long`` error."""
    if fmt == "jsonl":
        for number, line in enumerate(_text_lines(lines), start=1):
            if isinstance(line, LongLine):
                yield number, _too_long(line)
            else:
                yield from _json_row(number, line.rstrip("\r\n"))
        return
    yield from _delimited_rows(_text_lines(lines), fmt)


def _too_long(line: LongLine) -> MalformedRow:
    return MalformedRow(LINE_TOO_LONG, line.message())


def _text_lines(lines: Iterable[bytes | LongLine]) -> Iterator[str | LongLine]:
    """The ``\n``-terminated lines, each decoded (undecodable bytes escaped), one at a time;
    a UTF-8 byte-order mark is not part of the first. A ``LongLine`` passes as it is."""
    for index, raw in enumerate(lines):
        if isinstance(raw, LongLine):
            yield raw
            continue
        line = raw.decode("utf-8", errors="surrogateescape")
        yield line[1:] if index == 0 and line.startswith("\ufeff") else line


def _json_row(number: int, line: str) -> Iterator[tuple[int, dict | Exception]]:
    if not line.strip():
        return
    invalid = _invalid_utf8(line)
    if invalid:
        yield number, invalid
        return
    try:
        row = safe_json.loads(line)
    except safe_json.JsonTooDeep as error:
        yield number, MalformedRow(error.reason, str(error))
        return
    except ValueError as error:
        yield number, error
        return
    yield number, row if isinstance(row, dict) else ValueError("not a JSON object")


def _delimited_rows(lines: Iterator[str | LongLine], fmt: str
                    ) -> Iterator[tuple[int, dict | Exception]]:
    """Rows of a CSV/TSV; a row the csv module refuses (a field past its size limit) is that
    row's error, and reading goes on with the next line (a header it refuses raises). A
    ``LongLine`` reaches the csv module as an empty line (which it skips) and is yielded as
    its own ``line_too_long`` error, in its place; a header line past the cap raises."""
    skipped: list[LongLine] = []

    def feed() -> Iterator[str]:
        for line in lines:
            if isinstance(line, LongLine):
                skipped.append(line)
                line = "\n"
            yield line

    reader = csv.DictReader(feed(), delimiter="\t" if fmt == "tsv" else ",",
                            quoting=csv.QUOTE_NONE if fmt == "tsv" else csv.QUOTE_MINIMAL)
    _ = reader.fieldnames  # a header the csv module refuses makes the file unreadable
    if skipped:
        raise _too_long(skipped[0])
    number = 1
    while True:
        error: csv.Error | None = None
        row: dict | None = None
        try:
            row = next(reader)
        except StopIteration:
            row = None
        except csv.Error as exc:
            error = exc
        for line in skipped:  # the over-long lines the csv module passed over
            number += 1
            yield number, _too_long(line)
        skipped.clear()
        if row is None and error is None:
            return
        number += 1
        if error is not None:
            reason = FIELD_TOO_LONG if "field limit" in str(error) else INVALID_CSV
            yield number, MalformedRow(reason, f"{reason.replace('_', ' ')}: {error}")
        elif None in row or any(v is None for v in row.values()):
            yield number, ValueError(f"expected {len(reader.fieldnames or [])} columns")
        else:
            yield number, _invalid_utf8("".join(row.values())) or row


def _printable(text: str) -> str:
    """``text`` writable as UTF-8: undecodable bytes and lone surrogates as escapes."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def to_record(row: dict, fields: LogFields) -> QueryRecord:
    """Validate one row; raises ValueError with the reason for a malformed row."""
    query = row.get(fields.query)
    if not isinstance(query, str):
        raise ValueError(f"missing query field {fields.query!r}")
    if not normalize_query(query):
        raise ValueError("empty query")
    reason = text_rejection(query)
    if reason:
        raise MalformedRow(reason, f"query: {reason.replace('_', ' ')}")
    users = row.get(fields.users)
    if users not in (None, ""):
        count = row.get(fields.count)
        try:
            users = parse_count(users)
            count = parse_count(count) if count not in (None, "") else users
        except ValueError as error:
            raise MalformedRow("invalid_count", str(error)) from None
        return QueryRecord(query, count=count, users=users)
    user = row.get(fields.user)
    if user in (None, ""):
        raise ValueError(f"missing user field {fields.user!r} (or users field {fields.users!r})")
    return QueryRecord(query, day=parse_timestamp(row.get(fields.time)).date(), user=str(user))


class _ParseLogFile(beam.DoFn):
    STAGE = LOG

    def __init__(self, fields: LogFields, fmt: str | None,
                 max_decoded_bytes: int | None = None, max_line_bytes: int | None = None):
        self.fields = fields
        self.fmt = fmt
        self.max_decoded_bytes = max_decoded_bytes
        self.max_line_bytes = DEFAULT_MAX_LINE_BYTES if max_line_bytes is None \
            else max_line_bytes

    def _unreadable(self, path: str, reason: str, error: Exception, rows_read: int):
        yield tally(LOG_UNREADABLE_FILES)
        yield tally(LOG_UNREADABLE.member(reason))
        yield dead_letter(self.STAGE, error, source=path, reason=reason, rows_read=rows_read)

    def process(self, readable: fileio.ReadableFile):
        path = readable.metadata.path
        try:
            fmt = infer_format(path, self.fmt)
        except ValueError as error:
            yield from self._unreadable(path, "unknown_format", error, 0)
            return
        if fmt == "parquet":
            yield from self._parquet(readable, path)
        else:
            yield from self._text(readable, path, fmt)

    def _parquet(self, readable: fileio.ReadableFile, path: str):
        """A Parquet log, read whole (its footer is at the end) up to the decoded cap."""
        try:
            data, damage = read_decompressed(readable,
                                             max_decoded_bytes=self.max_decoded_bytes)
        except Exception as error:  # noqa: BLE001 - an unreadable file must not stop the job
            yield from self._unreadable(path, "unreadable", error, 0)
            return
        if damage is not None and damage_reason(damage) != TRUNCATED_COMPRESSION:
            data = b""  # corrupt (a checksum fails only at the end), too large
        yield from self._rows(path, iter_rows(data, "parquet"), damage, "invalid_parquet")

    def _text(self, readable: fileio.ReadableFile, path: str, fmt: str):
        """A text log, streamed: its damage found first (decoded and discarded), then its
        lines read again one at a time, each at most ``max_line_bytes``."""
        try:
            damage = check_stream(readable, max_decoded_bytes=self.max_decoded_bytes)
        except Exception as error:  # noqa: BLE001 - an unreadable file must not stop the job
            yield from self._unreadable(path, "unreadable", error, 0)
            return
        if damage is not None and damage_reason(damage) != TRUNCATED_COMPRESSION:
            yield from self._unreadable(path, damage_reason(damage), damage, 0)
            return  # corrupt (a checksum fails only at the end), too large: keep none
        lines = iter_complete_lines(readable, max_decoded_bytes=self.max_decoded_bytes,
                                    max_line_bytes=self.max_line_bytes)
        yield from self._rows(path, iter_line_rows(lines, fmt), damage, "unreadable")

    def _rows(self, path: str, rows: Iterator[tuple[int, dict | Exception]],
              damage: Exception | None, unreadable: str):
        """Every row, then the file's dead letter when it is damaged (a truncated stream
        keeps the complete rows before the cut) or stops being readable."""
        rows_read = 0
        try:
            for number, row in rows:
                rows_read += 1
                yield from self._row(path, number, row)
        except CompressionDamage as cut:  # the end of a truncated stream, after whole lines
            damage = damage or cut.error
        except Exception as error:  # noqa: BLE001 - a corrupt file must not stop the job
            reason = error.reason if isinstance(error, MalformedRow) else unreadable
            yield from self._unreadable(path, reason, damage or error, rows_read)
            return
        if damage is not None:
            yield from self._unreadable(path, damage_reason(damage), damage, rows_read)

    def _row(self, path: str, number: int, row: dict | Exception):
        yield tally(LOG_ROWS)
        try:
            if isinstance(row, Exception):
                raise row
            yield to_record(row, self.fields)
        except (ValueError, TypeError, OverflowError) as error:
            yield tally(LOG_MALFORMED_ROWS)
            if isinstance(error, MalformedRow):
                yield tally(LOG_MALFORMED.member(error.reason))
                context = {"reason": error.reason}
            else:
                context = {}
            message = str(error)
            if _printable(message) != message:  # a lone surrogate from a JSON escape
                error = ValueError(_printable(message))
            yield dead_letter(self.STAGE, error, source=f"{path}:{number}",
                              row=_printable(str(row)[:500]), **context)


class ReadQueryLog(beam.PTransform):
    """Query-log rows matching a glob (any Beam filesystem) as QueryRecord."""

    def __init__(self, pattern: str, fields: LogFields, fmt: str | None = None,
                 max_decoded_bytes: int | None = None, max_line_bytes: int | None = None):
        super().__init__()
        self.pattern = pattern
        self.fields = fields
        self.fmt = fmt
        self.max_decoded_bytes = max_decoded_bytes  # per file; None: the default cap
        self.max_line_bytes = max_line_bytes  # per line of a text log; None: the default

    def expand(self, pbegin):
        result = (pbegin
                  | "MatchLogs" >> fileio.MatchFiles(beam_pattern(self.pattern))
                  | "OpenLogs" >> fileio.ReadMatches(compression=CompressionTypes.AUTO)
                  | "ParseLogs" >> beam.ParDo(
                      _ParseLogFile(self.fields, self.fmt, self.max_decoded_bytes,
                                    self.max_line_bytes))
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
        if record.day is None:
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
