"""The CDX index: captures, query parameters, ``output=json`` parsing and paging helpers.

A :class:`CdxCapture` is one index line of the CDX server
(https://github.com/internetarchive/wayback/tree/master/wayback-cdx-server). :func:`cdx_params`
builds a query in a stable order (it is also the cache key) that pages with resume keys;
:func:`parse_cdx_json` reads one page, where a malformed row costs only itself (a
:class:`CdxBadRow` with one of :data:`MALFORMED_ROW_REASONS`); :func:`collapse_key_fn` gives
the key that drops the duplicates the server cannot collapse across page boundaries (each
reported as a :class:`CdxDuplicate`); :func:`bbc_cdx_queries` lists the queries that enumerate
BBC News articles. Nothing here touches the network.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from filters.text import safe_json

CDX_FIELDS: tuple[str, ...] = (
    "urlkey",
    "timestamp",
    "original",
    "mimetype",
    "statuscode",
    "digest",
)
BBC_NEWS_PREFIXES: tuple[str, ...] = ("bbc.co.uk/news/", "bbc.com/news/")
# A revisit record: the capture's payload equals an earlier capture's and is stored there
# (its CDX line has this mimetype, status "-" and the payload's digest); a replay at the
# revisit's time serves that payload.
REVISIT_MIMETYPE = "warc/revisit"

# Why a CDX row is refused (the stage counts ``cdx.malformed.<reason>`` and dead-letters it).
NOT_A_LIST = "not_a_list"
WRONG_FIELD_COUNT = "wrong_field_count"
NON_STRING_FIELD = "non_string_field"
FIELD_TOO_LONG = "field_too_long"
LONE_SURROGATE = "lone_surrogate"
CONTROL_CHARACTER = "control_character"
BAD_TIMESTAMP = "bad_timestamp"
EMPTY_URL = "empty_url"
MALFORMED_ROW_REASONS: tuple[str, ...] = (
    NOT_A_LIST, WRONG_FIELD_COUNT, NON_STRING_FIELD, FIELD_TOO_LONG, LONE_SURROGATE,
    CONTROL_CHARACTER, BAD_TIMESTAMP, EMPTY_URL,
)
# A capture whose collapse key equals the previous one's (a page boundary the server could
# not collapse across): not listed again (counted as ``cdx.skipped.adjacent_duplicate``).
ADJACENT_DUPLICATE = "adjacent_duplicate"
MAX_FIELD_CHARS = 8192
ROW_EXCERPT_CHARS = 300

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class CdxCapture:
    """One CDX index line: a single capture of ``original`` at ``timestamp``."""

    urlkey: str
    timestamp: str
    original: str
    mimetype: str
    statuscode: str
    digest: str

    @property
    def is_revisit(self) -> bool:
        """Whether this line is a revisit record (its payload stored at an earlier capture)."""
        return self.mimetype == REVISIT_MIMETYPE

    def id_url(self, base_url: str) -> str:
        """URL of the raw capture (``id_`` replay: original bytes, no Wayback banner)."""
        return f"{base_url.rstrip('/')}/web/{self.timestamp}id_/{self.original}"

    def to_dict(self) -> dict[str, str]:
        """Plain dict, suitable for JSON and Beam coders."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CdxCapture:
        """Build from a mapping holding at least the six CDX fields (extra keys are ignored)."""
        return cls(**{name: str(data[name]) for name in CDX_FIELDS})


class CdxRowError(ValueError):
    """A CDX row that cannot be a capture; ``reason`` is one of :data:`MALFORMED_ROW_REASONS`."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class CdxBadRow:
    """A refused CDX row: its ``reason``, what broke (``detail``), an ASCII excerpt of the
    row, the ``page`` it came from (the resume key it was asked with, "" for the first page)
    and its ``index`` among that page's data rows."""

    reason: str
    detail: str
    row: str
    page: str
    index: int

    def to_dict(self) -> dict[str, Any]:
        """Plain dict, suitable for JSON (the CDX page cache)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CdxBadRow:
        """Rebuild from :meth:`to_dict`; raises ValueError on anything else."""
        if not isinstance(data, Mapping):
            raise ValueError("a refused CDX row must be a mapping")
        values = {name: data.get(name) for name in ("reason", "detail", "row", "page")}
        if data.get("reason") not in MALFORMED_ROW_REASONS or not all(
                isinstance(value, str) for value in values.values()):
            raise ValueError("malformed refused CDX row")
        index = data.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ValueError("malformed refused CDX row index")
        return cls(**values, index=index)


@dataclass(frozen=True)
class CdxDuplicate:
    """A capture not listed because its collapse key repeats the previous capture's."""

    capture: CdxCapture


@dataclass(frozen=True)
class CdxPage:
    """One parsed CDX page: its captures in order, its refused rows and its resume key."""

    captures: tuple[CdxCapture, ...]
    bad_rows: tuple[CdxBadRow, ...]
    resume_key: str | None


def bbc_cdx_queries(from_year: int, to_year: int) -> list[dict]:
    """CDX queries enumerating BBC News article captures between two years (inclusive).

    Each dict holds keyword arguments for
    :meth:`transforms.clients.wayback.client.WaybackClient.iter_cdx`. The CDX server
    canonicalises hosts (SURT), so ``bbc.co.uk/news/`` also matches ``www.bbc.co.uk``.
    """
    if from_year > to_year:
        raise ValueError(f"from_year {from_year} is after to_year {to_year}")
    return [
        {"url": prefix, "match_type": "prefix", "from_": str(from_year), "to": str(to_year)}
        for prefix in BBC_NEWS_PREFIXES
    ]


def parse_cdx_json(text: str, page: str = "") -> CdxPage:
    """Parse a CDX ``output=json`` body into its captures, its refused rows and the resume key.

    The first row names the fields; columns are looked up by name. With ``showResumeKey=true``
    the data rows may be followed by an empty row and a one-element row holding the resume key.
    A malformed data row costs only itself: it becomes a :class:`CdxBadRow` (``page`` names
    the page, the resume key it was asked with). Raises ValueError when the page as a whole
    cannot be read (not JSON, nested deeper than ``safe_json.MAX_DEPTH``, no usable header, a
    broken resume key), since then no row of it can be trusted and the listing cannot go on.
    """
    if not text.strip():
        return CdxPage((), (), None)
    rows = safe_json.loads(text)
    if not isinstance(rows, list):
        raise ValueError("CDX JSON must be a list of rows")
    if not rows:
        return CdxPage((), (), None)
    header, body = rows[0], rows[1:]
    if not isinstance(header, list) or not all(isinstance(name, str) for name in header):
        raise ValueError(f"CDX header {_excerpt(header)} is not a list of names")
    missing = [name for name in CDX_FIELDS if name not in header]
    if missing:
        raise ValueError(f"CDX header {_excerpt(header)} lacks fields {missing}")
    resume_key = None
    if len(body) >= 2 and body[-2] == [] and isinstance(body[-1], list) and len(body[-1]) == 1:
        resume_key = _resume_key(body[-1][0])
        body = body[:-2]
    index = {name: header.index(name) for name in CDX_FIELDS}
    captures, bad_rows = [], []
    for number, item in enumerate(body):
        try:
            captures.append(capture_from_row(item, len(header), index))
        except CdxRowError as error:
            bad_rows.append(CdxBadRow(error.reason, str(error), _excerpt(item), page, number))
    return CdxPage(tuple(captures), tuple(bad_rows), resume_key)


def capture_from_row(row: Any, width: int, index: Mapping[str, int]) -> CdxCapture:
    """The capture of one JSON data row of ``width`` columns (``index``: field -> column).

    Raises :class:`CdxRowError` with one of :data:`MALFORMED_ROW_REASONS`.
    """
    if not isinstance(row, list):
        raise CdxRowError(NOT_A_LIST, f"row is a {type(row).__name__}, not a list")
    if len(row) != width:
        raise CdxRowError(WRONG_FIELD_COUNT, f"row has {len(row)} fields, the header {width}")
    return capture_from_fields({name: row[column] for name, column in index.items()})


def capture_from_fields(fields: Mapping[str, Any]) -> CdxCapture:
    """A validated capture from its six fields (a parsed row or a cache entry).

    Every field must be a string of at most :data:`MAX_FIELD_CHARS` characters without lone
    surrogates or control characters; the timestamp must be a real instant written as 14
    digits (it becomes part of a replay URL); the original URL must not be empty. Raises
    :class:`CdxRowError` naming the first rule broken.
    """
    for name in CDX_FIELDS:
        value = fields.get(name)
        if not isinstance(value, str):
            raise CdxRowError(NON_STRING_FIELD, f"{name} is a {type(value).__name__}")
        if len(value) > MAX_FIELD_CHARS:
            raise CdxRowError(FIELD_TOO_LONG, f"{name} has {len(value)} characters "
                                              f"(at most {MAX_FIELD_CHARS})")
        if _SURROGATE.search(value):
            raise CdxRowError(LONE_SURROGATE, f"{name} holds a lone surrogate")
        if _CONTROL.search(value):
            raise CdxRowError(CONTROL_CHARACTER, f"{name} holds a control character")
    if not is_timestamp(fields["timestamp"]):
        raise CdxRowError(BAD_TIMESTAMP, f"timestamp {fields['timestamp'][:40]!a} is not "
                                         "an instant written YYYYMMDDhhmmss")
    if not fields["original"]:
        raise CdxRowError(EMPTY_URL, "the original URL is empty")
    return CdxCapture(**{name: fields[name] for name in CDX_FIELDS})


def is_timestamp(value: str) -> bool:
    """True for 14 ASCII digits that name a real instant (month 13 or second 61 do not)."""
    if len(value) != 14 or not value.isascii() or not value.isdigit():
        return False
    try:
        datetime(int(value[:4]), int(value[4:6]), int(value[6:8]), int(value[8:10]),
                 int(value[10:12]), int(value[12:]))
    except ValueError:
        return False
    return True


def _resume_key(value: Any) -> str:
    """The resume key of a page trailer; a page whose key is unusable cannot be continued."""
    if (not isinstance(value, str) or not value or len(value) > MAX_FIELD_CHARS
            or _SURROGATE.search(value) or _CONTROL.search(value)):
        raise ValueError(f"CDX resume key {_excerpt(value)} is not a usable string")
    return value


def _excerpt(value: Any) -> str:
    """An ASCII ``repr`` of a row, cut to :data:`ROW_EXCERPT_CHARS` characters."""
    text = ascii(value)
    if len(text) <= ROW_EXCERPT_CHARS:
        return text
    return text[: ROW_EXCERPT_CHARS - 3] + "..."


def cdx_params(
    url: str,
    match_type: str,
    from_: str | None,
    to: str | None,
    filters: Sequence[str],
    collapse: str | None,
    limit: int,
) -> list[tuple[str, str]]:
    """Query parameters for a CDX search, in a stable order (also the cache key)."""
    params = [("url", url), ("matchType", match_type)]
    if from_:
        params.append(("from", str(from_)))
    if to:
        params.append(("to", str(to)))
    params += [("output", "json"), ("fl", ",".join(CDX_FIELDS))]
    params += [("filter", item) for item in filters]
    if collapse:
        params.append(("collapse", collapse))
    params += [("limit", str(limit)), ("showResumeKey", "true")]
    return params


def collapse_key_fn(collapse: str | None) -> Callable[[CdxCapture], str] | None:
    """Key used to drop duplicates the server could not collapse across pages."""
    if not collapse:
        return None
    name, _, width = collapse.partition(":")
    if name not in CDX_FIELDS:
        return None
    size = int(width) if width.isdigit() else None
    return lambda capture: getattr(capture, name)[:size]
