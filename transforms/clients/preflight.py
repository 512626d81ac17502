"""Check, before a job, that every network endpoint it will use answers at all.

A run against an endpoint it cannot reach (no network, a wrong URL, a server down) would
otherwise retry every item for minutes and end with nothing published and no word about the
network. ``check_endpoints`` asks each :class:`Endpoint` once: one GET with the endpoint's
``(connect, read)`` timeouts, no retry, redirects followed, the headers read and the body
never. An HTTP answer below 500 counts as reachable (a probe sends no API key, so a 400 or
403 still shows the server is there, and a 429 will be paused on by the job); a refused or
reset connection, a host name that does not resolve, a TLS failure, a timeout or a 5xx
status is a failure. Every failing endpoint is named with its cause in one
:class:`EndpointUnavailable` (exit code 4 on the command line). No Beam dependency.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterable
from dataclasses import dataclass

import requests

from transforms.clients.retry_policy import exception_chain

SKIP_HINT = "--no-preflight"
MAX_REDIRECTS = 5


class EndpointUnavailable(Exception):
    """A network endpoint the run needs cannot be reached (checked before the job, or found
    failing persistently during it); the message names it and the cause."""


@dataclass(frozen=True)
class Endpoint:
    """One endpoint a run will ask: what it is (``the MediaWiki search API``), the URL and
    query parameters of a cheap request to it, the option that sets it and the
    ``(connect, read)`` timeouts of the probe."""

    what: str
    url: str
    params: tuple[tuple[str, str], ...] = ()
    option: str = ""
    timeout: tuple[float, float] = (10.0, 30.0)

    def describe(self) -> str:
        """``the MediaWiki search API at <url> (--mediawiki-api-url)``."""
        where = f" ({self.option})" if self.option else ""
        return f"{self.what} at {self.url}{where}"


def probe(endpoint: Endpoint, session: requests.Session) -> str | None:
    """Why ``endpoint`` cannot be reached (``connection refused``, ``HTTP 503``, ...), or
    None when it answers. One request, never retried; the body is not read."""
    try:
        response = session.get(endpoint.url, params=list(endpoint.params),
                               timeout=endpoint.timeout, stream=True, allow_redirects=True)
    except requests.exceptions.RequestException as error:
        return failure_cause(error, endpoint.timeout)
    try:
        if response.status_code >= 500:
            return f"HTTP {response.status_code} {response.reason or ''}".rstrip()
        return None
    finally:
        response.close()


def failure_cause(error: requests.exceptions.RequestException,
                  timeout: tuple[float, float]) -> str:
    """A short cause of a failed request, for a person to act on."""
    if isinstance(error, requests.exceptions.ConnectTimeout):
        return f"no connection within {timeout[0]:g} s (timeout)"
    if isinstance(error, requests.exceptions.ReadTimeout):
        return f"no answer within {timeout[1]:g} s (timeout)"
    if isinstance(error, requests.exceptions.SSLError):
        return f"TLS error ({_last_line(error)})"
    if isinstance(error, requests.exceptions.TooManyRedirects):
        return f"more than {MAX_REDIRECTS} redirects"
    chain = list(exception_chain(error))
    if any(isinstance(item, ConnectionRefusedError)
           or getattr(item, "errno", None) == errno.ECONNREFUSED for item in chain):
        return "connection refused"
    if any(isinstance(item, socket.gaierror) for item in chain):
        return "host name not resolved (no network, or a wrong host)"
    if isinstance(error, requests.exceptions.ConnectionError):
        return f"connection failed ({_last_line(error)})"
    return f"request failed ({type(error).__name__}: {_last_line(error)})"


def check_endpoints(endpoints: Iterable[Endpoint], user_agent: str | None = None,
                    session: requests.Session | None = None) -> None:
    """Probe every endpoint once; raise :class:`EndpointUnavailable` naming each one that
    cannot be reached and why. ``user_agent`` defaults to the toolkit's own (Wikimedia
    refuses anonymous clients)."""
    endpoints = list(dict.fromkeys(endpoints))
    if not endpoints:
        return
    own = session is None
    if session is None:
        from transforms.clients.http_json import toolkit_user_agent

        session = requests.Session()
        session.headers["User-Agent"] = user_agent or toolkit_user_agent()
    session.max_redirects = MAX_REDIRECTS
    try:
        failures = [(endpoint, cause) for endpoint in endpoints
                    if (cause := probe(endpoint, session)) is not None]
    finally:
        if own:
            session.close()
    if failures:
        raise EndpointUnavailable(unavailable_message(failures))


def unavailable_message(failures: list[tuple[Endpoint, str]]) -> str:
    """``cannot reach <endpoint>: <cause>`` per failure, then what to do."""
    lines = [f"cannot reach {endpoint.describe()}: {cause}" for endpoint, cause in failures]
    lines.append(f"  checked once before the job; fix the network or the URL option, or pass "
                 f"{SKIP_HINT} to skip this check (the job then retries every request)")
    return "\n  ".join(lines[:-1]) + "\n" + lines[-1]


def _last_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return (text[-1] if text else type(error).__name__)[:300]
