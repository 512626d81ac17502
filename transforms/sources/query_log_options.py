"""Query-log options (columns, format, users and window), shared by build_nq and build_jnq.

``QueryLogOptions`` is an options dataclass mixin (``transforms.core.options``): a dataset's
options class derives from it and redefines ``input`` and ``min_users`` with its own defaults
(``input_option``, ``min_users_option``); a redefined field keeps its place in ``--help``.
``log_fields`` and ``reader_options`` give the reader's arguments (``IssuedByUsers``).

Where the logs are and how their rows are read (``--input``, ``--format``, the column names,
``--max-decoded-mib``) never change a published row: they are ``rows=False``, so a refresh
(``--previous``) carries rows across a change of them. ``--min-users`` and ``--window`` are
selection thresholds and stay row options.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from typing import Any

from transforms.core.options import (
    max_decoded_option,
    mib_to_bytes,
    option,
    positive_int,
)
from transforms.sources.compressed import DEFAULT_MAX_DECODED_BYTES, MIB
from transforms.sources.query_logs import FORMATS, LogFields


def parse_window(value: str) -> int:
    """``7d`` or ``7`` -> 7 days (the aggregation is exact at day granularity)."""
    match = re.fullmatch(r"\s*(\d+)\s*d?\s*", value or "")
    if not match or int(match.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"--window must be a number of days like 7d: {value!r}")
    return int(match.group(1))


def input_option(default: str) -> Any:
    """``--input``, defaulting to a dataset's bundled sample log."""
    return option(default, "glob of query logs (local or any Beam filesystem); default: the "
                           "bundled sample log", rows=False)


def min_users_option(default: int) -> Any:
    """``--min-users`` with a dataset's default (NQ 2, JNQ 1), named in its help."""
    return option(default, "distinct users that must issue a query within --window "
                           f"(default {default})", parse=positive_int)


@dataclass(frozen=True)
class QueryLogOptions:
    """Where the query logs are and how their rows are read and aggregated."""

    input: str = input_option("")
    format: str | None = option(None, "log format; default: from the file extension",
                                choices=FORMATS, rows=False)
    query_field: str = option("query", "column of the query text", rows=False)
    time_field: str = option("timestamp",
                             "column of the event time (ISO 8601 or epoch seconds)", rows=False)
    user_field: str = option("user_id", "column of the user/session id", rows=False)
    count_field: str = option("count", "pre-aggregated logs: column of the number of events",
                              rows=False)
    users_field: str = option("users", "pre-aggregated logs: column of the number of distinct "
                                       "users; a row with this field is treated as "
                                       "pre-aggregated", rows=False)
    min_users: int = min_users_option(1)
    window: int = option(7, "length of the period, in days (e.g. 7d); default 7 days",
                         parse=parse_window)
    max_decoded_mib: float = max_decoded_option(
        DEFAULT_MAX_DECODED_BYTES / MIB, "query-log file (each is read whole)")


def log_fields(options: Any) -> LogFields:
    """The log columns of ``options`` (a ``QueryLogOptions`` or a parsed namespace)."""
    return LogFields(options.query_field, options.time_field, options.user_field,
                     options.count_field, options.users_field)


def reader_options(options: Any) -> dict[str, Any]:
    """Keyword arguments of ``IssuedByUsers`` for its log reader: ``max_decoded_bytes`` from
    ``--max-decoded-mib``."""
    return {"max_decoded_bytes": mib_to_bytes(options.max_decoded_mib)}
