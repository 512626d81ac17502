"""In-process fake of the Wayback Machine for offline tests.

Speaks the subset of the protocol the toolkit uses, with the archive's quirks:

* ``GET /cdx/search/cdx`` — the CDX server (url + matchType exact/prefix/host/domain, from/to,
  ``filter=[!]field:regex``, ``collapse=field[:N]``, ``fl``, ``output=json``, ``limit``,
  ``showResumeKey`` / ``resumeKey`` paging), with real base32 SHA-1 digests; a query of an
  excluded site answers 403 ``Blocked Site Error``; :meth:`FakeWayback.cycle_resume_keys`
  makes the resume keys go round in a circle (A -> B -> A);
* ``GET /web/<timestamp>id_/<original>`` — raw replay of a capture, with Content-Length and
  the Memento headers of RFC 7089 (``Memento-Datetime``, ``Link`` with ``rel="original"`` and
  ``rel="memento"``). As the real archive does, a capture it cannot replay
  (``replayable=False``) or a timestamp it has no capture at redirects (302) to the nearest
  capture of the page it can replay, seconds or weeks away; a capture that recorded an error
  (``replay_status``) is replayed with that status and Memento headers; a revisit record
  (``warc/revisit``, status ``-``) replays the payload of the earlier capture it revisits; an
  excluded site (:meth:`FakeWayback.exclude`) answers 200 with the archive's own HTML page
  and no Memento headers.

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
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any
from urllib.parse import parse_qs, quote_plus, unquote, unquote_plus, urlsplit

from tests.fakes.base import (
    CONNECTION_FAULTS,
    FakeHttpServer,
    FaultInjectingHandler,
    QuietServer,
)

ALL_FIELDS = ("urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length")
LONG_WAITS = {"retry_after_hour": (429, {"Retry-After": "3600"}),
              "unavailable_hour": (503, {"Retry-After": "3600"})}
STRING_FAULTS = (*CONNECTION_FAULTS, "corrupt", "gzip", "garbage", *LONG_WAITS)
REVISIT = "warc/revisit"
BLOCKED_SITE = ("org.archive.wayback.exception.AdministrativeAccessControlException: "
                "Blocked Site Error")
EXCLUSION_PAGE = (b"<!DOCTYPE html><html><head><title>Wayback Machine</title></head><body>"
                  b"<p>Sorry.</p><p>This URL has been excluded from the Wayback Machine.</p>"
                  b"</body></html>")
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
    """A capture held by the fake archive: listed with ``mimetype`` and ``status``; replayed
    with ``replay_status`` when set (a status the capture recorded, e.g. 429), redirected to
    the nearest other capture when not ``replayable``."""

    original: str
    timestamp: str
    payload: bytes
    mimetype: str = "text/html"
    status: str = "200"
    replay_status: int | None = None
    replayable: bool = True

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
        self.excluded: list[str] = []
        self.resume_cycle = 0
        self._handed_keys: list[str] = []
        self._init_server()

    # lifecycle -------------------------------------------------------------------------------

    # scripting and inspection ------------------------------------------------------------------

    def exclude(self, prefix: str) -> None:
        """Exclude a site: CDX queries under ``prefix`` answer 403 ``Blocked Site Error`` and
        its replays the archive's own 200 HTML page, without Memento headers."""
        self.excluded.append(strip_url(prefix))

    def cycle_resume_keys(self, length: int) -> None:
        """After ``length`` distinct resume keys, hand out the first one again (length 2:
        A -> B -> A -> ...; length 1: the same key as the page asked with)."""
        self.resume_cycle = length

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
        if self._is_excluded(original):
            return 200, {"Content-Type": "text/html; charset=utf-8"}, EXCLUSION_PAGE
        if any(c.timestamp == timestamp and c.original in wanted for c in self.missing):
            return _text(404, "capture not available")
        pages = [item for item in self.captures if item.original in wanted]
        for item in pages:
            if item.timestamp == timestamp and item.replayable:
                return self._memento(item, pages)
        nearest = _nearest([item for item in pages if item.replayable], timestamp)
        if nearest is not None:
            location = f"/web/{nearest.timestamp}id_/{nearest.original}"
            return 302, {"Location": location, "Content-Type": "text/plain"}, b""
        return _text(404, "not in archive")

    def _memento(self, item: FakeCapture, pages: list[FakeCapture]) -> Response:
        """A capture replayed: its payload (a revisit: the payload it revisits) with its
        recorded status and the Memento headers."""
        payload, mimetype = item.payload, item.mimetype
        if item.mimetype == REVISIT:
            revisited = [other for other in pages if other.digest == item.digest
                         and other.mimetype != REVISIT and other.timestamp < item.timestamp]
            if not revisited:
                return _text(404, "the revisited capture is not in the archive")
            mimetype = max(revisited, key=lambda other: other.timestamp).mimetype
        headers = {"Content-Type": mimetype, **self._memento_headers(item, pages)}
        return item.replay_status or 200, headers, payload

    def _memento_headers(self, item: FakeCapture, pages: list[FakeCapture]) -> dict[str, str]:
        """``Memento-Datetime`` and a ``Link`` header as web.archive.org writes them."""
        times = sorted({other.timestamp for other in pages})
        base = self.base_url
        links = [f"<{item.original}>; rel=\"original\"",
                 f"<{base}/web/timemap/link/{item.original}>; rel=\"timemap\"; "
                 "type=\"application/link-format\""]
        named = [("first memento", times[0]), ("memento", item.timestamp),
                 ("last memento", times[-1])]
        for rel, stamp in named:
            links.append(f"<{base}/web/{stamp}/{item.original}>; rel=\"{rel}\"; "
                         f"datetime=\"{http_date(stamp)}\"")
        return {"Memento-Datetime": http_date(item.timestamp), "Link": ", ".join(links)}

    def _is_excluded(self, url: str) -> bool:
        stripped = strip_url(unquote(url))
        return any(stripped.startswith(prefix) for prefix in self.excluded)

    def _cdx(self, query: dict[str, list[str]]) -> Response:
        url = _first(query, "url")
        if not url:
            return _text(400, "url parameter required")
        if self._is_excluded(url):
            return _text(403, BLOCKED_SITE)
        rows = self._cdx_rows(query, url)
        limit = int(_first(query, "limit") or 0)
        page, more = (rows[:limit], len(rows) > limit) if limit > 0 else (rows, False)
        resume = None
        if more and _first(query, "showResumeKey") == "true" and page:
            resume = self._hand_out(quote_plus(f"{page[-1]['urlkey']} {page[-1]['timestamp']}!"))
        fields = (_first(query, "fl") or ",".join(ALL_FIELDS)).split(",")
        return _cdx_body(page, fields, resume, _first(query, "output") == "json")

    def _hand_out(self, key: str) -> str:
        """The resume key to print (a cycle, when scripted, hands out the first one again)."""
        with self._lock:
            if not self.resume_cycle or key in self._handed_keys:
                return key
            if len(self._handed_keys) >= self.resume_cycle:
                return self._handed_keys[0]
            self._handed_keys.append(key)
            return key

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
        if isinstance(fault, str) and fault in LONG_WAITS:
            return _status_fault(LONG_WAITS[fault])
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


def http_date(timestamp: str) -> str:
    """A 14-digit timestamp as an HTTP date (``Mon, 01 Jun 2015 12:00:00 GMT``)."""
    moment = datetime.strptime(timestamp, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    return format_datetime(moment, usegmt=True)


def _nearest(items: list[FakeCapture], timestamp: str) -> FakeCapture | None:
    """The capture nearest in time to ``timestamp`` (padded as the archive pads it)."""
    if not items:
        return None
    wanted = int(timestamp.ljust(14, "0"))
    return min(items, key=lambda item: (abs(int(item.timestamp) - wanted), item.timestamp))


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
