"""The CDX index: captures, query parameters, ``output=json`` parsing and paging helpers.

A :class:`CdxCapture` is one index line of the CDX server
(https://github.com/internetarchive/wayback/tree/master/wayback-cdx-server). :func:`cdx_params`
builds a query in a stable order (it is also the cache key) that pages with resume keys;
:func:`parse_cdx_json` reads one page; :func:`collapse_key_fn` gives the key that drops the
duplicates the server cannot collapse across page boundaries; :func:`bbc_cdx_queries` lists the
queries that enumerate BBC News articles. Nothing here touches the network.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

CDX_FIELDS: tuple[str, ...] = (
    "urlkey",
    "timestamp",
    "original",
    "mimetype",
    "statuscode",
    "digest",
)
BBC_NEWS_PREFIXES: tuple[str, ...] = ("bbc.co.uk/news/", "bbc.com/news/")


@dataclass(frozen=True)
class CdxCapture:
    """One CDX index line: a single capture of ``original`` at ``timestamp``."""

    urlkey: str
    timestamp: str
    original: str
    mimetype: str
    statuscode: str
    digest: str

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


def parse_cdx_json(text: str) -> tuple[list[CdxCapture], str | None]:
    """Parse a CDX ``output=json`` body into captures and the resume key (or None).

    The first row names the fields; columns are looked up by name. With ``showResumeKey=true``
    the data rows may be followed by an empty row and a one-element row holding the resume key.
    Raises ValueError on malformed input.
    """
    if not text.strip():
        return [], None
    rows = json.loads(text)
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise ValueError("CDX JSON must be a list of lists")
    if not rows:
        return [], None
    header, body = rows[0], rows[1:]
    missing = [name for name in CDX_FIELDS if name not in header]
    if missing:
        raise ValueError(f"CDX header {header!r} lacks fields {missing}")
    resume_key = None
    if len(body) >= 2 and body[-2] == [] and len(body[-1]) == 1:
        resume_key = str(body[-1][0])
        body = body[:-2]
    index = {name: header.index(name) for name in CDX_FIELDS}
    captures = []
    for row in body:
        if len(row) != len(header):
            raise ValueError(f"CDX row {row!r} does not match header {header!r}")
        captures.append(CdxCapture(**{name: str(row[i]) for name, i in index.items()}))
    return captures, resume_key


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
