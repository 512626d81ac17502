"""Query-log options (columns, format, users and window), shared by build_nq and build_jnq."""

from __future__ import annotations

import argparse
import re
from typing import Any

from pipelines.cli.http_limits import add_decoded_limit_argument, decoded_limit
from pipelines.cli.options import positive_int
from transforms.sources.compressed import DEFAULT_MAX_DECODED_BYTES, MIB
from transforms.sources.query_logs import FORMATS, LogFields


def parse_window(value: str) -> int:
    """``7d`` or ``7`` -> 7 days (the aggregation is exact at day granularity)."""
    match = re.fullmatch(r"\s*(\d+)\s*d?\s*", value or "")
    if not match or int(match.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"--window must be a number of days like 7d: {value!r}")
    return int(match.group(1))


def add_query_log_arguments(parser: argparse.ArgumentParser, default_input: str,
                            min_users: int) -> None:
    """The query-log options shared by build_nq and build_jnq."""
    parser.add_argument("--input", default=default_input,
                        help="glob of query logs (local or any Beam filesystem); default: "
                             "the bundled sample log")
    parser.add_argument("--format", choices=FORMATS,
                        help="log format; default: from the file extension")
    parser.add_argument("--query-field", default="query", help="column of the query text")
    parser.add_argument("--time-field", default="timestamp",
                        help="column of the event time (ISO 8601 or epoch seconds)")
    parser.add_argument("--user-field", default="user_id", help="column of the user/session id")
    parser.add_argument("--count-field", default="count",
                        help="pre-aggregated logs: column of the number of events")
    parser.add_argument("--users-field", default="users",
                        help="pre-aggregated logs: column of the number of distinct users; a "
                             "row with this field is treated as pre-aggregated")
    parser.add_argument("--min-users", type=positive_int, default=min_users,
                        help="distinct users that must issue a query within --window "
                             f"(default {min_users})")
    parser.add_argument("--window", type=parse_window, default=7,
                        help="length of the period, in days (e.g. 7d); default 7 days")
    add_decoded_limit_argument(parser, DEFAULT_MAX_DECODED_BYTES / MIB,
                               "query-log file (each is read whole)")


def reader_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments of ``IssuedByUsers`` for its log reader: ``max_decoded_bytes`` from
    ``--max-decoded-mib``."""
    return {"max_decoded_bytes": decoded_limit(args)}


def log_fields(args: argparse.Namespace) -> LogFields:
    return LogFields(args.query_field, args.time_field, args.user_field, args.count_field,
                     args.users_field)

