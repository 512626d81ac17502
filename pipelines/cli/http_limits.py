"""Time, size, redirect and retry limits of HTTP requests, and the decoded-size cap of input
files, as options.

``add_limit_arguments`` adds one family of ``--<prefix>-*`` options (the Wayback source's
``--wayback-*`` here, the linking stage's ``--http-*`` in ``linking``), with the defaults
of the client's :class:`~transforms.clients.bounded_http.RequestLimits`, and
``limit_options`` turns the parsed values back into a ``RequestLimits``; ``wayback_policy``
gives the Wayback source its whole :class:`~transforms.clients.wayback.WaybackPolicy`.
``add_decoded_limit_argument`` adds ``--max-decoded-mib`` (each builder's input files) and
``decoded_limit`` gives it in bytes.
Names use dashes; each pipeline's ``add_underscore_aliases`` makes them Flex Template
parameters too.
"""

from __future__ import annotations

import argparse
from typing import Any

from pipelines.cli.options import non_negative_int, positive_float
from transforms.clients.bounded_http import MIB, RequestLimits
from transforms.clients.wayback.policy import WaybackPolicy


def add_limit_arguments(parser: Any, prefix: str, what: str, limits: RequestLimits) -> None:
    """``--<prefix>-connect-timeout``, ``-read-timeout``, ``-deadline``, ``-max-retries``,
    ``-max-redirects``, ``-max-body-mib`` and ``-max-decoded-mib`` on ``parser`` (a parser or
    an argument group); ``what`` names the server in the help, ``limits`` gives the defaults."""
    connect, read = limits.timeout
    retries = limits.max_retries
    parser.add_argument(f"--{prefix}-connect-timeout", type=positive_float, default=connect,
                        help=f"seconds to wait for a connection to {what} (default {connect:g})")
    parser.add_argument(f"--{prefix}-read-timeout", type=positive_float, default=read,
                        help=f"seconds to wait for each read from {what} (default {read:g})")
    parser.add_argument(f"--{prefix}-deadline", type=positive_float, default=limits.deadline,
                        help="total seconds per request attempt, redirects included, however "
                             f"slowly bytes arrive (default {limits.deadline:g}; failure kind "
                             "deadline_exceeded, retried)")
    parser.add_argument(f"--{prefix}-max-retries", type=non_negative_int, default=retries,
                        help=f"retries after the first attempt of a request (default {retries})")
    parser.add_argument(f"--{prefix}-max-redirects", type=non_negative_int,
                        default=limits.max_redirects,
                        help="redirect hops followed per request, each rate-limited and "
                             f"counted (default {limits.max_redirects}; failure kind "
                             "too_many_redirects)")
    parser.add_argument(f"--{prefix}-max-body-mib", type=positive_float,
                        default=limits.max_body_bytes / MIB,
                        help="largest response body as sent, in MiB (default "
                             f"{limits.max_body_bytes // MIB}; failure kind body_too_large, "
                             "not retried)")
    parser.add_argument(f"--{prefix}-max-decoded-mib", type=positive_float,
                        default=limits.max_decoded_bytes / MIB,
                        help="largest body once gzip/deflate is undone, in MiB (default "
                             f"{limits.max_decoded_bytes // MIB}; failure kind body_too_large, "
                             "not retried)")


def limit_options(args: argparse.Namespace, prefix: str) -> RequestLimits:
    """The :class:`RequestLimits` (frozen, picklable) of the parsed ``--<prefix>-*``."""
    def value(name: str) -> Any:
        return getattr(args, f"{prefix}_{name}")

    return RequestLimits(
        timeout=(value("connect_timeout"), value("read_timeout")),
        deadline=value("deadline"),
        max_retries=value("max_retries"),
        max_redirects=value("max_redirects"),
        max_body_bytes=mib_to_bytes(value("max_body_mib")),
        max_decoded_bytes=mib_to_bytes(value("max_decoded_mib")),
    )


def add_wayback_limit_arguments(parser: Any) -> None:
    """The Wayback source's ``--wayback-*`` limits."""
    add_limit_arguments(parser, "wayback", "the archive", WaybackPolicy().limits)


def wayback_limit_options(args: argparse.Namespace) -> RequestLimits:
    """The Wayback request limits of the parsed ``--wayback-*`` options."""
    return limit_options(args, "wayback")


def wayback_policy(args: argparse.Namespace) -> WaybackPolicy:
    """The ``ReadWaybackPages`` policy of the parsed Wayback source options: ``--cache-dir``,
    ``--fetch-workers``, ``--fetches-per-minute``, ``--cdx-per-minute``,
    ``--rate-limit-pause`` and the ``--wayback-*`` limits."""
    return WaybackPolicy(cdx_per_minute=args.cdx_per_minute,
                         fetches_per_minute=args.fetches_per_minute,
                         rate_limit_pause=args.rate_limit_pause,
                         fetch_workers=args.fetch_workers, cache_dir=args.cache_dir,
                         limits=wayback_limit_options(args))


def add_decoded_limit_argument(parser: Any, default_mib: float | None, what: str,
                               default_text: str = "") -> None:
    """``--max-decoded-mib``: the largest ``what`` once decompressed (uncompressed files
    count their own size); ``default_text`` describes a default that depends on other
    options (``default_mib`` None)."""
    shown = default_text or f"{default_mib:g}"
    parser.add_argument("--max-decoded-mib", type=positive_float, default=default_mib,
                        help=f"largest {what} once decompressed, in MiB (default {shown}); "
                             "decoding stops there and the file is dead-lettered as "
                             "decoded_too_large, nothing of it kept, so memory stays bounded "
                             "by this cap, never by a compression bomb")


def decoded_limit(args: argparse.Namespace, default_mib: float | None = None) -> int:
    """``--max-decoded-mib`` in bytes (``default_mib`` when the option has no default)."""
    mib = args.max_decoded_mib if args.max_decoded_mib is not None else default_mib
    if mib is None:
        raise ValueError("--max-decoded-mib has no value and no default was given")
    return mib_to_bytes(mib)


def mib_to_bytes(mib: float) -> int:
    """A size in MiB as whole bytes (at least 1)."""
    return max(1, int(mib * MIB))
