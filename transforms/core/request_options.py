"""The ``--<prefix>-*`` request limits of a network source as typed options, declared once.

``request_limit_options("the archive", limits, group=...)`` gives the seven option fields
(connect and read timeouts, deadline, retries, redirects, body and decoded-body caps) with
their help, by suffix; a spec's options dataclass assigns them to ``<prefix>_<suffix>``
fields, and ``request_limits_of(options, prefix)`` turns them back into the client's
``RequestLimits``. The defaults are the client's own (``limits``), so they live in one place.
"""

from __future__ import annotations

from typing import Any

from transforms.clients.bounded_http import MIB, RequestLimits
from transforms.core.options import (
    mib_to_bytes,
    non_negative_int,
    option,
    positive_float,
)

SUFFIXES = ("connect_timeout", "read_timeout", "deadline", "max_retries", "max_redirects",
            "max_body_mib", "max_decoded_mib")


def request_limit_options(what: str, limits: RequestLimits,
                          group: str | None = None) -> dict[str, Any]:
    """The request-limit option fields of a server named ``what``, by suffix (none changes
    a row's content: ``rows=False``, a refresh carries rows across a change)."""
    connect, read = limits.timeout
    retries = limits.max_retries
    return {
        "connect_timeout": option(
            connect, f"seconds to wait for a connection to {what} (default {connect:g})",
            parse=positive_float, group=group, rows=False),
        "read_timeout": option(
            read, f"seconds to wait for each read from {what} (default {read:g})",
            parse=positive_float, group=group, rows=False),
        "deadline": option(
            limits.deadline, "total seconds per request attempt, redirects included, however "
                             f"slowly bytes arrive (default {limits.deadline:g}; failure kind "
                             "deadline_exceeded, retried)", parse=positive_float, group=group,
            rows=False),
        "max_retries": option(
            retries, f"retries after the first attempt of a request (default {retries})",
            parse=non_negative_int, group=group, rows=False),
        "max_redirects": option(
            limits.max_redirects, "redirect hops followed per request, each rate-limited and "
                                  f"counted (default {limits.max_redirects}; failure kind "
                                  "too_many_redirects)", parse=non_negative_int, group=group,
            rows=False),
        "max_body_mib": option(
            limits.max_body_bytes / MIB, "largest response body as sent, in MiB (default "
                                         f"{limits.max_body_bytes // MIB}; failure kind "
                                         "body_too_large, not retried)",
            parse=positive_float, group=group, rows=False),
        "max_decoded_mib": option(
            limits.max_decoded_bytes / MIB, "largest body once gzip/deflate is undone, in MiB "
                                            f"(default {limits.max_decoded_bytes // MIB}; "
                                            "failure kind body_too_large, not retried)",
            parse=positive_float, group=group, rows=False),
    }


def request_limits_of(options: Any, prefix: str) -> RequestLimits:
    """The ``RequestLimits`` of the ``<prefix>_*`` option fields of ``options``."""
    def value(suffix: str) -> Any:
        return getattr(options, f"{prefix}_{suffix}")

    return RequestLimits(
        timeout=(value("connect_timeout"), value("read_timeout")),
        deadline=value("deadline"),
        max_retries=value("max_retries"),
        max_redirects=value("max_redirects"),
        max_body_bytes=mib_to_bytes(value("max_body_mib")),
        max_decoded_bytes=mib_to_bytes(value("max_decoded_mib")),
    )
