"""Which capture a replay served: the Memento headers of a Wayback answer (RFC 7089).

A memento, an archived state of a page, is answered with ``Memento-Datetime`` (the instant
it was captured, an HTTP date) and a ``Link`` header whose ``rel="memento"`` entry names its
replay URL and datetime; ``rel="original"`` names the page. The archive's own pages (an
exclusion notice, its 404s) carry neither. :func:`memento_of` reads them into a
:class:`Memento` (None when the answer is not a memento), so the client can tell the capture
it asked for from another one the archive redirected to, and a status the page recorded
(a replayed 429) from the archive's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime

from transforms.clients.wayback.cdx import is_timestamp

_LINK = re.compile(r'<([^>]*)>((?:\s*;\s*[^;,=\s]+\s*=\s*(?:"[^"]*"|[^;,]*))*)')
_PARAM = re.compile(r';\s*([^;,=\s]+)\s*=\s*(?:"([^"]*)"|([^;,]*))')
_REPLAY_TIMESTAMP = re.compile(r"/web/(\d{14})(?:[a-z]{2}_)?/")


@dataclass(frozen=True)
class Memento:
    """The capture an answer holds: its ``timestamp`` (14 digits, None when the headers do
    not say), its replay URL (``url``, from ``rel="memento"``, "" when absent) and the
    page it is a capture of (``original``, from ``rel="original"``, "" when absent)."""

    timestamp: str | None
    url: str
    original: str


def memento_of(headers: Mapping[str, str]) -> Memento | None:
    """The memento an answer's headers describe, or None when they carry no
    ``Memento-Datetime`` and no ``rel="memento"`` link (the archive's own page).

    The timestamp is ``Memento-Datetime``'s; without it (or when it is no date), that of the
    ``rel="memento"`` link: its ``datetime`` parameter, else the timestamp in its URL.
    """
    declared = _header(headers, "Memento-Datetime")
    links = parse_link_header(_header(headers, "Link") or "")
    memento = next((link for link in links if link[1] == frozenset({"memento"})), None)
    if declared is None and memento is None:
        return None
    timestamp = http_date_timestamp(declared) if declared is not None else None
    url = memento[0] if memento else ""
    if timestamp is None and memento is not None:
        timestamp = http_date_timestamp(memento[2]) or replay_url_timestamp(url)
    original = next((link[0] for link in links if "original" in link[1]), "")
    return Memento(timestamp, url, original)


def parse_link_header(value: str) -> list[tuple[str, frozenset[str], str]]:
    """``(url, rel tokens, datetime)`` of each entry of an HTTP ``Link`` header (RFC 8288);
    commas inside quoted parameters (``datetime="Mon, 01 Jun ..."``) do not split entries."""
    entries = []
    for match in _LINK.finditer(value):
        params: dict[str, str] = {}
        for param in _PARAM.finditer(match.group(2)):
            params.setdefault(param.group(1).lower(), param.group(2) or param.group(3) or "")
        rel = frozenset(params.get("rel", "").lower().split())
        entries.append((match.group(1).strip(), rel, params.get("datetime", "")))
    return entries


def http_date_timestamp(value: str | None) -> str | None:
    """An HTTP date (``Mon, 01 Jun 2015 12:00:00 GMT``) as a 14-digit UTC timestamp; None
    when it is no date."""
    if not value:
        return None
    try:
        moment = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    timestamp = f"{moment.year:04d}{moment:%m%d%H%M%S}"
    return timestamp if is_timestamp(timestamp) else None


def replay_url_timestamp(url: str) -> str | None:
    """The 14-digit timestamp of a replay URL (``.../web/20150601120000id_/...``), or None."""
    match = _REPLAY_TIMESTAMP.search(url)
    return match.group(1) if match and is_timestamp(match.group(1)) else None


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """A header's value whatever the case of its name (requests' headers already are
    case-insensitive; a cached plain dict is not)."""
    value = headers.get(name)
    if value is not None:
        return value
    lowered = name.lower()
    return next((item for key, item in headers.items() if key.lower() == lowered), None)
