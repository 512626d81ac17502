"""In-process fake of the Wayback Machine for offline tests.

Speaks the subset of the protocol the toolkit uses:

* ``GET /cdx/search/cdx`` — the CDX server (url + matchType exact/prefix/host/domain, from/to,
  ``filter=[!]field:regex``, ``collapse=field[:N]``, ``fl``, ``output=json``, ``limit``,
  ``showResumeKey`` / ``resumeKey`` paging), with real base32 SHA-1 digests;
* ``GET /web/<timestamp>id_/<original>`` — raw replay of a capture, with Content-Length.

Faults are scripted per path substring with :meth:`FakeWayback.fail`.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote_plus, unquote, unquote_plus, urlsplit

from tests.fakes.base import (
    CONNECTION_FAULTS,
    FakeHttpServer,
    FaultInjectingHandler,
    QuietServer,
)

ALL_FIELDS = ("urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length")
STRING_FAULTS = (*CONNECTION_FAULTS, "corrupt", "gzip", "garbage")
REPLAY_RE = re.compile(r"^/web/(\d{1,14})id_/(.+)$")

Fault = int | str | tuple[int, dict[str, str]]
Response = tuple[int, dict[str, str], bytes]


def sha1_base32(data: bytes) -> str:
    """CDX digest of a payload: base32-encoded SHA-1."""
    return base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def strip_url(url: str) -> str:
    """Lower-cased URL without scheme, ``www.`` and default port, for matching."""
    value = url.strip().lower()
    value = re.sub(r"^[a-z][a-z0-9+.-]*://", "", value)
    value = value[4:] if value.startswith("www.") else value
    host, sep, rest = value.partition("/")
    host = re.sub(r":(80|443)$", "", host)
    return host + sep + rest


def surt_key(url: str) -> str:
    """SURT-style urlkey, e.g. ``uk,co,bbc)/news/world-1``."""
    stripped = strip_url(url)
    host, _, rest = stripped.partition("/")
    return ",".join(reversed(host.split("."))) + ")/" + rest


@dataclass
class FakeCapture:
    """A capture held by the fake archive."""

    original: str
    timestamp: str
    payload: bytes
    mimetype: str = "text/html"
    status: str = "200"

    @property
    def urlkey(self) -> str:
        return surt_key(self.original)

    @property
    def digest(self) -> str:
        return sha1_base32(self.payload)

    def row(self) -> dict[str, str]:
        """All CDX fields of this capture (usable with ``CdxCapture.from_dict``)."""
        return {
            "urlkey": self.urlkey,
            "timestamp": self.timestamp,
            "original": self.original,
            "mimetype": self.mimetype,
            "statuscode": self.status,
            "digest": self.digest,
            "length": str(len(self.payload)),
        }


CaptureSpec = FakeCapture | tuple[Any, ...]


def to_capture(spec: CaptureSpec) -> FakeCapture:
    """Accept a FakeCapture or ``(original, timestamp, payload[, mimetype[, status]])``."""
    if isinstance(spec, FakeCapture):
        return spec
    original, timestamp, payload, *rest = spec
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    return FakeCapture(str(original), str(timestamp), bytes(payload), *rest)


class FakeWayback(FakeHttpServer):
    """Fake Wayback Machine on 127.0.0.1 (random port) in a daemon thread.

    ``captures`` are indexed and replayable; ``missing`` are indexed by the CDX server but their
    replay answers 404. ``hang_seconds`` is how long a "hang" fault stalls before answering.
    Every request path (with query string) is appended to :attr:`requests`.

    Faults (``fail``): an HTTP status (429 carries ``Retry-After: 0``), ``(status, headers)``,
    "hang" (stall ``hang_seconds`` then answer), "truncate" (Content-Length larger than the
    body, then close), "reset" (TCP reset, no response), "corrupt" (payload with one byte
    flipped: digest mismatch), "gzip" (payload sent with ``Content-Encoding: gzip``) or
    "garbage" (HTTP 200 with an HTML body instead of the real one), and the hostile-server
    faults of :mod:`tests.fakes.base` ("gzip_bomb", "endless", "slowloris", "redirect_loop",
    "short_gzip").
    """

    def __init__(
        self,
        captures: Iterable[CaptureSpec] = (),
        missing: Iterable[CaptureSpec] = (),
        hang_seconds: float = 5.0,
    ) -> None:
        self.captures = [to_capture(spec) for spec in captures]
        self.missing = [to_capture(spec) for spec in missing]
        self.hang_seconds = hang_seconds
        self._init_server()

    # lifecycle -------------------------------------------------------------------------------

    # scripting and inspection ------------------------------------------------------------------

    def capture(self, original: str, timestamp: str) -> FakeCapture:
        """The capture of ``original`` at ``timestamp`` (indexed or missing)."""
        for item in self.captures + self.missing:
            if item.original == original and item.timestamp == timestamp:
                return item
        raise KeyError((original, timestamp))

    @property
    def cdx_requests(self) -> list[str]:
        return [path for path in self.requests if path.startswith("/cdx/")]

    @property
    def fetch_requests(self) -> list[str]:
        return [path for path in self.requests if path.startswith("/web/")]

    # routing ---------------------------------------------------------------------------------

    def route(self, path: str) -> Response:
        """Normal (fault-free) response for ``path``."""
        match = REPLAY_RE.match(path)
        if match:
            return self._replay(match.group(1), match.group(2))
        parts = urlsplit(path)
        if parts.path == "/cdx/search/cdx":
            return self._cdx(parse_qs(parts.query, keep_blank_values=True))
        return _text(404, "not found")

    def _replay(self, timestamp: str, original: str) -> Response:
        wanted = {original, unquote(original)}
        if any(c.timestamp == timestamp and c.original in wanted for c in self.missing):
            return _text(404, "capture not available")
        for item in self.captures:
            if item.timestamp == timestamp and item.original in wanted:
                status = int(item.status) if item.status.isdigit() else 200
                return status, {"Content-Type": item.mimetype}, item.payload
        return _text(404, "not in archive")

    def _cdx(self, query: dict[str, list[str]]) -> Response:
        url = _first(query, "url")
        if not url:
            return _text(400, "url parameter required")
        rows = self._cdx_rows(query, url)
        limit = int(_first(query, "limit") or 0)
        page, more = (rows[:limit], len(rows) > limit) if limit > 0 else (rows, False)
        resume = None
        if more and _first(query, "showResumeKey") == "true" and page:
            resume = quote_plus(f"{page[-1]['urlkey']} {page[-1]['timestamp']}!")
        fields = (_first(query, "fl") or ",".join(ALL_FIELDS)).split(",")
        return _cdx_body(page, fields, resume, _first(query, "output") == "json")

    def _cdx_rows(self, query: dict[str, list[str]], url: str) -> list[dict[str, str]]:
        """Matching, filtered, resumed and collapsed rows in urlkey/timestamp order."""
        match_type = _first(query, "matchType") or "exact"
        if url.endswith("*"):
            url, match_type = url.rstrip("*"), "prefix"
        rows = sorted(
            (item.row() for item in self.captures + self.missing),
            key=lambda row: f"{row['urlkey']} {row['timestamp']}",
        )
        rows = [row for row in rows if _url_matches(row["original"], url, match_type)]
        rows = [row for row in rows if _in_range(row["timestamp"], query)]
        for spec in query.get("filter", []):
            rows = [row for row in rows if _filter_matches(row, spec)]
        resume_key = _first(query, "resumeKey")
        if resume_key:
            after = _decode_resume_key(resume_key)
            rows = [row for row in rows if f"{row['urlkey']} {row['timestamp']}" > after]
        for spec in query.get("collapse", []):
            rows = _collapse(rows, spec)
        return rows


class _Server(QuietServer):
    fake: FakeWayback


class _Handler(FaultInjectingHandler):
    server: _Server

    def respond(self, fault: Fault | None) -> Response:
        if isinstance(fault, int | tuple):
            return _status_fault(fault)
        return _apply_body_fault(self.server.fake.route(self.path), fault)


def _apply_body_fault(response: Response, fault: Fault | None) -> Response:
    """Apply "corrupt", "gzip" and "garbage" to a normal response."""
    status, headers, body = response
    headers = dict(headers)
    if fault == "corrupt":
        body = bytes([body[0] ^ 0xFF]) + body[1:] if body else b"\x00"
    elif fault == "gzip":
        body = gzip.compress(body)
        headers["Content-Encoding"] = "gzip"
    elif fault == "garbage":
        status, headers, body = 200, {"Content-Type": "text/html"}, b"<html>Oops</html>"
    return status, headers, body


def _status_fault(fault: int | tuple[int, dict[str, str]]) -> Response:
    status, extra = fault if isinstance(fault, tuple) else (fault, {})
    headers = {"Content-Type": "text/plain"}
    if status == 429:
        headers["Retry-After"] = "0"
    headers.update(extra)
    return status, headers, f"scripted fault {status}".encode()


def _text(status: int, message: str) -> Response:
    return status, {"Content-Type": "text/plain"}, message.encode("utf-8")


def _first(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


def _url_matches(original: str, url: str, match_type: str) -> bool:
    candidate, wanted = strip_url(original), strip_url(url)
    if match_type == "prefix":
        return candidate.startswith(wanted)
    host, wanted_host = candidate.partition("/")[0], wanted.partition("/")[0]
    if match_type == "host":
        return host == wanted_host
    if match_type == "domain":
        return host == wanted_host or host.endswith("." + wanted_host)
    return candidate.rstrip("/") == wanted.rstrip("/")


def _in_range(timestamp: str, query: dict[str, list[str]]) -> bool:
    """Inclusive from/to, compared on the timestamp prefix of the bound's length."""
    start, end = _first(query, "from"), _first(query, "to")
    if start and timestamp[: len(start)] < start:
        return False
    return not (end and timestamp[: len(end)] > end)


def _filter_matches(row: dict[str, str], spec: str) -> bool:
    negate = spec.startswith("!")
    name, _, pattern = spec.lstrip("!").partition(":")
    matched = re.fullmatch(pattern, row.get(name, "")) is not None
    return matched != negate


def _collapse(rows: list[dict[str, str]], spec: str) -> list[dict[str, str]]:
    """Drop rows whose field (or its first N characters) equals the previous row's."""
    name, _, width = spec.partition(":")
    size = int(width) if width.isdigit() else None
    kept, previous = [], None
    for row in rows:
        key = row.get(name, "")[:size]
        if key != previous:
            kept.append(row)
        previous = key
    return kept


def _decode_resume_key(value: str) -> str:
    """Resume keys are URL-encoded ``"<urlkey> <timestamp>!"``; accept single or double encoding."""
    decoded = unquote_plus(value)
    return unquote_plus(decoded) if "%" in decoded else decoded


def _cdx_body(
    rows: list[dict[str, str]], fields: list[str], resume: str | None, as_json: bool
) -> Response:
    lines = [[row.get(name, "") for name in fields] for row in rows]
    if as_json:
        table: list[list[str]] = [fields, *lines] if lines or resume else []
        if resume:
            table += [[], [resume]]
        return 200, {"Content-Type": "application/json"}, json.dumps(table).encode("utf-8")
    text = "".join(" ".join(line) + "\n" for line in lines)
    if resume:
        text += f"\n{resume}\n"
    return 200, {"Content-Type": "text/plain"}, text.encode("utf-8")


FakeWayback.server_class = _Server
FakeWayback.handler_class = _Handler
FakeWayback.string_faults = frozenset(STRING_FAULTS)
