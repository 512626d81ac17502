"""The rejected pages: what the build left out, by kind and reason, with examples.

Every ``rejected/<kind>/`` of a release (JSON lines; ``rejected/queries`` is Parquet) is
streamed once. A record's reason is its ``reason`` field; dead letters (no reason) are named
by their ``stage`` and ``error_type``; anything else by its kind. Memory stays bounded: a
count per reason, and only the first ``page_size * max_pages`` records of a reason (long
values cut) are kept to be shown, for at most ``MAX_REASONS_SHOWN`` reasons of a kind.

Pages: ``rejected/index.html`` (kind → reason → count) and
``rejected/<kind>-<reason>-00001.html`` ... (examples of one reason, ``page_size`` each).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import pyarrow.parquet as pq

from filters.text import safe_json
from transforms.browse.base import BATCH_ROWS, ReleaseView, open_member
from transforms.browse.html import (
    link,
    page,
    release_label,
    shorten,
    simulated_banner,
    text,
    web_url,
)
from transforms.release.features import decode_row

MAX_PAGES = 5
MAX_REASONS_SHOWN = 100
KEPT_CHARS = 4000
KEPT_ITEMS = 20
SHOWN_CHARS = 300
SUMMARY_CHARS = 160
SLUG_CHARS = 48
MAX_REASON_CHARS = 200
UNREADABLE = "unreadable line"
MAX_LINE_BYTES = 32 << 20  # a longer line is shown cut, as an unreadable line


@dataclass
class ReasonTally:
    """A reason's count and, when ``keeps``, its first records (values cut)."""

    keeps: bool = True
    count: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)


def rejected_files(release: ReleaseView) -> dict[str, list[str]]:
    """``{kind: [release-relative files]}`` of the release's ``rejected/`` directory, as the
    manifest lists them, sorted."""
    kinds: dict[str, list[str]] = {}
    for name in sorted(release.manifest.get("files") or {}):
        parts = name.split("/")
        if len(parts) >= 3 and parts[0] == "rejected" and name.endswith((".jsonl", ".parquet")):
            kinds.setdefault(parts[1], []).append(name)
    return kinds


def _lines(handle: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """``(line, whole)`` of a binary file: lines longer than ``MAX_LINE_BYTES`` come back
    cut to that (``whole`` false), the rest of them skipped."""
    while line := handle.readline(MAX_LINE_BYTES + 1):
        if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
            yield line, True
            continue
        while (rest := handle.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
            pass
        yield line[:MAX_LINE_BYTES], False


def read_records(release: str, name: str) -> Iterator[dict[str, Any]]:
    """The records of the release's JSON-lines or Parquet file ``name`` (read through
    ``open_member``), streamed. A line that is no JSON object, nested too deep or longer
    than ``MAX_LINE_BYTES`` comes back as ``{"reason": "unreadable line", "line": ...}``."""
    with open_member(release, name) as handle:
        if name.endswith(".parquet"):
            parquet = pq.ParquetFile(handle)
            schema = parquet.schema_arrow  # class labels by name (rejected JNQ's variant)
            for batch in parquet.iter_batches(batch_size=BATCH_ROWS):
                yield from (decode_row(row, schema) for row in batch.to_pylist())
            return
        for raw, whole in _lines(handle):
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            try:
                record = safe_json.loads(line) if whole else None
            except ValueError:
                record = None
            if isinstance(record, dict):
                yield record
            else:
                yield {"reason": UNREADABLE, "line": line.rstrip("\n")}


def reason_of(kind: str, record: dict[str, Any]) -> str:
    """Why ``record`` was rejected: its ``reason`` (at most ``MAX_REASON_CHARS``), a dead
    letter's ``stage: error_type``, else the kind itself."""
    reason = record.get("reason")
    if isinstance(reason, str) and reason.strip():
        return reason.strip()[:MAX_REASON_CHARS]
    if "stage" in record or "error_type" in record:
        parts = [str(record.get(k)) for k in ("stage", "error_type") if record.get(k)]
        return ": ".join(parts) or kind
    return kind


def cut(value: Any) -> Any:
    """``value`` with strings cut to ``KEPT_CHARS`` and lists to ``KEPT_ITEMS`` (marked),
    bytes replaced by their size."""
    if isinstance(value, bytes):
        return f"[{len(value):,} bytes]"
    if isinstance(value, str):
        if len(value) <= KEPT_CHARS:
            return value
        return f"{value[:KEPT_CHARS]}… [{len(value):,} characters in all]"
    if isinstance(value, list):
        items = [cut(v) for v in value[:KEPT_ITEMS]]
        return items + [f"… [{len(value):,} items in all]"] if len(value) > KEPT_ITEMS else items
    if isinstance(value, dict):
        return {str(k): cut(v) for k, v in list(value.items())[:KEPT_ITEMS * 5]}
    return value


def tally(release: ReleaseView, files: list[str], kind: str,
          keep: int) -> dict[str, ReasonTally]:
    """Count the records of one kind's ``files`` by reason, keeping the first ``keep`` of
    each of the first ``MAX_REASONS_SHOWN`` reasons."""
    reasons: dict[str, ReasonTally] = {}
    for name in files:
        for record in read_records(release.path, name):
            reason = reason_of(kind, record)
            entry = reasons.get(reason)
            if entry is None:
                entry = reasons[reason] = ReasonTally(keeps=len(reasons) < MAX_REASONS_SHOWN)
            entry.count += 1
            if entry.keeps and len(entry.examples) < keep:
                entry.examples.append(cut(record))
    return reasons


def slug(value: str) -> str:
    """A file-name-safe form of ``value``: lower-case letters, digits, ``_`` and ``-``, with
    a short hash appended whenever that changed or cut ``value``."""
    safe = re.sub(r"[^a-z0-9_]+", "-", value.lower()).strip("-")[:SLUG_CHARS] or "x"
    if safe == value:
        return safe
    return f"{safe}-{hashlib.sha1(value.encode('utf-8')).hexdigest()[:8]}"


def page_name(kind: str, reason: str, number: int) -> str:
    """``<kind>-<reason>-00001.html``: a reason's example page (1-based), in ``rejected/``."""
    return f"{slug(kind)}-{slug(reason)}-{number:05d}.html"


def value_html(value: Any) -> str:
    """A field of a rejected record, escaped: http(s) URLs linked, long or multi-line text
    folded in ``<details>``, lists numbered, objects as nested fields."""
    if isinstance(value, str):
        if web_url(value) and len(value) <= SHOWN_CHARS:
            return link(value)
        if len(value) <= SHOWN_CHARS and "\n" not in value:
            return text(value)
        lines = value.splitlines() or [""]
        head = shorten(next((line for line in lines if line.strip()), ""), SUMMARY_CHARS)
        return (f'<details><summary>{text(head)} <span class="muted">({len(lines):,} lines, '
                f"{len(value):,} characters)</span></summary><pre>{text(value)}</pre></details>")
    if isinstance(value, list):
        if not value:
            return '<span class="muted">[]</span>'
        return "<ol>" + "".join(f"<li>{value_html(v)}</li>" for v in value) + "</ol>"
    if isinstance(value, dict):
        return fields_html(value)
    if value is None:
        return '<span class="muted">null</span>'
    if isinstance(value, (bool, int, float)):
        return text(json.dumps(value))
    return text(value)


def fields_html(record: dict[str, Any]) -> str:
    """Every field of a record as a ``<dl class="fields">``."""
    items = "".join(f"<dt>{text(name)}</dt><dd>{value_html(value)}</dd>"
                    for name, value in record.items())
    return f'<dl class="fields">{items}</dl>'


def _pager(kind: str, reason: str, number: int, pages: int) -> str:
    previous = (f'<a href="{page_name(kind, reason, number - 1)}">← previous</a>' if number > 1
                else '<span class="disabled">← previous</span>')
    following = (f'<a href="{page_name(kind, reason, number + 1)}">next →</a>'
                 if number < pages else '<span class="disabled">next →</span>')
    return (f'<nav class="pager">{previous}<span>page {number:,} of {pages:,}</span>'
            f'{following}<a href="index.html">all reasons</a></nav>')


def reason_pages(kind: str, reason: str, entry: ReasonTally, page_size: int,
                 label: str, banner: str = "") -> Iterator[tuple[str, str]]:
    """``(file name, page)`` of one reason's examples, ``page_size`` records a page;
    ``banner``: the simulated-annotations banner, if any."""
    pages = -(-len(entry.examples) // page_size)
    shown = (f"<p>{entry.count:,} {text(kind)} records were rejected for "
             f'<strong class="reason">{text(reason)}</strong>'
             + (f"; the first {len(entry.examples):,} are shown." if entry.count
                > len(entry.examples) else ".") + "</p>")
    for number in range(1, pages + 1):
        first = (number - 1) * page_size
        records = "\n".join(
            f'<section class="rejected-record" id="r-{first + i + 1}" '
            f'data-reason="{text(reason)}"><h2><span class="reason">{text(reason)}</span> '
            f'<span class="muted">#{first + i + 1:,}</span></h2>{fields_html(record)}</section>'
            for i, record in enumerate(entry.examples[first:first + page_size]))
        pager = _pager(kind, reason, number, pages)
        yield page_name(kind, reason, number), page(
            f"Rejected {kind}: {reason}", f"{shown}\n{pager}\n{records}\n{pager}",
            nav_prefix="../", release=label, banner=banner)


def index_body(kinds: dict[str, dict[str, Any]]) -> str:
    """Kind → reason → count (most frequent first), each reason linked to its first
    example page."""
    if not kinds:
        return "<p>This release keeps no rejected records.</p>"
    total = sum(k["records"] for k in kinds.values())
    parts = [f"<p>{total:,} records of {len(kinds):,} kinds. Each reason links to its "
             "records.</p>"]
    for kind, found in kinds.items():
        rows = []
        ranked = sorted(found["reasons"].items(), key=lambda kv: (-kv[1]["records"], kv[0]))
        for reason, entry in ranked:
            first = entry["pages"][0].removeprefix("rejected/") if entry["pages"] else None
            name = (f'<a href="{text(first)}">{text(reason)}</a>' if first
                    else f'{text(reason)} <span class="muted">(no examples kept)</span>')
            rows.append(f'<tr><th class="reason">{name}</th><td class="num">'
                        f'{entry["records"]:,}</td></tr>')
        files = ", ".join(f"<code>{text(f)}</code>" for f in found["files"])
        parts.append(f'<section class="rejected-kind" id="kind-{text(slug(kind))}">'
                     f'<h2>{text(kind)} <span class="muted">({found["records"]:,})</span></h2>'
                     f'<p class="muted">{files}</p><table><thead><tr><th>reason</th>'
                     f"<th>records</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
                     "</section>")
    return "\n".join(parts)


def write_rejected(out_dir: str, release: ReleaseView, page_size: int,
                   max_pages: int = MAX_PAGES) -> dict[str, Any]:
    """Write ``<out_dir>/rejected/``: the index and up to ``max_pages`` example pages per
    reason, one kind at a time. Returns ``{"records": n, "kinds": {kind: {"records",
    "files", "reasons": {reason: {"records", "shown", "pages"}}}}, "pages": [site-relative
    paths]}``."""
    if page_size < 1 or max_pages < 1:
        raise ValueError("page_size and max_pages must be at least 1")
    directory = os.path.join(out_dir, "rejected")
    os.makedirs(directory, exist_ok=True)
    label = release_label(release.manifest)
    banner = simulated_banner(release.manifest, release.stats)
    kinds: dict[str, dict[str, Any]] = {}
    written = ["rejected/index.html"]
    for kind, files in rejected_files(release).items():
        reasons: dict[str, dict[str, Any]] = {}
        for reason, entry in tally(release, files, kind, page_size * max_pages).items():
            pages = []
            for name, content in reason_pages(kind, reason, entry, page_size, label,
                                              banner):
                _write(os.path.join(directory, name), content)
                pages.append(f"rejected/{name}")
            reasons[reason] = {"records": entry.count, "shown": len(entry.examples),
                               "pages": pages}
            written += pages
        kinds[kind] = {"records": sum(r["records"] for r in reasons.values()), "files": files,
                       "reasons": reasons}
    _write(os.path.join(directory, "index.html"),
           page("Rejected records", index_body(kinds), nav_prefix="../", release=label,
                banner=banner))
    return {"records": sum(k["records"] for k in kinds.values()), "kinds": kinds,
            "pages": written}


def _write(path: str, content: str) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(content)
