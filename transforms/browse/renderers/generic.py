"""Any release's rows as keys and values: the renderer of datasets without their own.

The index shows the key column and the first scalar columns, strings shortened (what the
filter searches); the detail lists every field in full, nested values as indented JSON. Its
measures are the word counts of the text columns (not ids, URLs or HTML).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from transforms.browse import html as h
from transforms.browse.base import Entry, ReleaseView
from transforms.release.tables import Table

KEY_COLUMNS = ("id", "example_id", "qid", "question_id", "doc_id", "document_id", "lemma")
INDEX_COLUMNS = 4
CELL_LIMIT = 160
MEASURED_COLUMNS = 4
NOT_TEXT = ("url", "html", "lang", "language", "split", "kind", "source", "revision")


def _scalar(field: pa.Field) -> bool:
    kind = field.type
    return (pa.types.is_string(kind) or pa.types.is_large_string(kind)
            or pa.types.is_integer(kind) or pa.types.is_floating(kind)
            or pa.types.is_boolean(kind) or pa.types.is_temporal(kind))


def _is_text(field: pa.Field) -> bool:
    name = field.name.lower()
    return ((pa.types.is_string(field.type) or pa.types.is_large_string(field.type))
            and not (name == "id" or name.endswith(("_id", "_ids"))
                     or any(word in name for word in NOT_TEXT)))


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    return str(value)


def plain(value: Any) -> str:
    """A value as plain text: strings as they are, nested values as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, default=_json_default)
    return "" if value is None else str(value)


def field_html(value: Any) -> str:
    """One field's value in full, escaped: nested values as indented JSON."""
    if value is None:
        return '<span class="muted">null</span>'
    if h.web_url(value):
        return h.link(value)
    if isinstance(value, list | dict):
        return "<pre>" + h.text(json.dumps(value, ensure_ascii=False, indent=1,
                                           default=_json_default)) + "</pre>"
    return h.text(plain(value))


class GenericRenderer:
    """Key/value rendering of any row; one entry per row."""

    details_per_page = 20
    paper_means: dict[str, float] = {}

    def __init__(self, title: str, schema: pa.Schema | None = None) -> None:
        self.title = title
        fields = list(schema) if schema is not None else []
        names = [f.name for f in fields]
        self.key_column = next((name for name in KEY_COLUMNS if name in names), None)
        scalars = [f.name for f in fields if _scalar(f) and f.name != self.key_column]
        others = [f.name for f in fields if not _scalar(f)]
        chosen = ([self.key_column] if self.key_column else []) + scalars + others
        self.index_columns = tuple(chosen[:INDEX_COLUMNS])
        self.columns = self.index_columns
        self.measured = tuple(f.name for f in fields if _is_text(f))[:MEASURED_COLUMNS]

    def entries(self, release: ReleaseView, table: Table,
                rows: Iterator[dict[str, Any]]) -> Iterator[Entry]:
        split = table.directory.rsplit("/", 1)[-1]
        for number, row in enumerate(rows, 1):
            yield self.entry(row, split, number)

    def entry(self, row: dict[str, Any], split: str, number: int) -> Entry:
        """The entry of row ``number`` (1-based) of split ``split``."""
        key = plain(row.get(self.key_column)) if self.key_column else ""
        shown = [h.shorten(plain(row.get(c)), CELL_LIMIT) for c in self.index_columns]
        cells = tuple(h.link(row.get(c), value) if h.web_url(row.get(c)) else h.text(value)
                      for c, value in zip(self.index_columns, shown, strict=True))
        return Entry(key=key or f"{split}-{number}", split=split, cells=cells,
                     text=" ".join(value for value in shown if value), detail=self.detail(row))

    def detail(self, row: dict[str, Any]) -> str:
        """Every field of the row, in full."""
        items = "".join(f"<dt>{h.text(name)}</dt><dd>{field_html(value)}</dd>"
                        for name, value in row.items())
        return f'<dl class="fields">{items}</dl>'

    def measures(self, row: dict[str, Any]) -> dict[str, int]:
        """Words of each text column of the row."""
        return {f"{name} words": len(value.split()) for name in self.measured
                if isinstance(value := row.get(name), str)}


def make(view: ReleaseView) -> GenericRenderer:
    """The generic renderer of a release, its index columns chosen from the main schema."""
    tables = view.main_tables()
    return GenericRenderer(view.dataset, tables[0].schema if tables else None)
