"""Time, size, redirect and retry limits of the Wayback source's HTTP requests.

``add_wayback_limit_arguments`` adds the options to a parser (or argument group) and
``wayback_limit_options`` turns the parsed values into keyword arguments of
:class:`transforms.sources.wayback.ReadWaybackPages`. Names use dashes; each pipeline's
``add_underscore_aliases`` makes them Flex Template parameters too.
"""

from __future__ import annotations

import argparse
from typing import Any

from transforms.clients.bounded_http import MIB
from transforms.clients.wayback.client import DEFAULT_LIMITS


def positive_float(value: str) -> float:
    """argparse ``type``: a number > 0."""
    number = float(value)
    if number <= 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {value!r}")
    return number


def non_negative_int(value: str) -> int:
    """argparse ``type``: an integer >= 0."""
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value!r}")
    return number


def add_wayback_limit_arguments(parser: Any) -> None:
    """``--wayback-connect-timeout``, ``--wayback-read-timeout``, ``--wayback-deadline``,
    ``--wayback-max-retries``, ``--wayback-max-redirects``, ``--wayback-max-body-mib`` and
    ``--wayback-max-decoded-mib`` on ``parser`` (a parser or an argument group)."""
    parser.add_argument("--wayback-connect-timeout", type=positive_float, default=10.0,
                        help="seconds to wait for a connection to the archive (default 10)")
    parser.add_argument("--wayback-read-timeout", type=positive_float, default=60.0,
                        help="seconds to wait for each read from the archive (default 60)")
    parser.add_argument("--wayback-deadline", type=positive_float,
                        default=DEFAULT_LIMITS.deadline,
                        help="total seconds per request attempt, redirects included, however "
                             f"slowly bytes arrive (default {DEFAULT_LIMITS.deadline:g}; "
                             "failure kind deadline_exceeded, retried)")
    parser.add_argument("--wayback-max-retries", type=non_negative_int, default=5,
                        help="retries after the first attempt of a CDX page or capture "
                             "(default 5)")
    parser.add_argument("--wayback-max-redirects", type=non_negative_int,
                        default=DEFAULT_LIMITS.max_redirects,
                        help="redirect hops followed per request, each rate-limited and "
                             f"counted (default {DEFAULT_LIMITS.max_redirects}; failure kind "
                             "too_many_redirects)")
    parser.add_argument("--wayback-max-body-mib", type=positive_float,
                        default=DEFAULT_LIMITS.max_body_bytes / MIB,
                        help="largest response body as sent, in MiB (default "
                             f"{DEFAULT_LIMITS.max_body_bytes // MIB}; failure kind "
                             "body_too_large, not retried)")
    parser.add_argument("--wayback-max-decoded-mib", type=positive_float,
                        default=DEFAULT_LIMITS.max_decoded_bytes / MIB,
                        help="largest body once gzip/deflate is undone, in MiB (default "
                             f"{DEFAULT_LIMITS.max_decoded_bytes // MIB}; failure kind "
                             "body_too_large, not retried)")


def wayback_limit_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments of ``ReadWaybackPages`` from the parsed limit options."""
    return {
        "timeout": (args.wayback_connect_timeout, args.wayback_read_timeout),
        "deadline": args.wayback_deadline,
        "max_retries": args.wayback_max_retries,
        "max_redirects": args.wayback_max_redirects,
        "max_body_bytes": mib_to_bytes(args.wayback_max_body_mib),
        "max_decoded_bytes": mib_to_bytes(args.wayback_max_decoded_mib),
    }


def mib_to_bytes(mib: float) -> int:
    """A size in MiB as whole bytes (at least 1)."""
    return max(1, int(mib * MIB))
