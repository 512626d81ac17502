"""Each example's aggregated decisions on its detail page: label, aggregate and confidence.

An annotated release (``annotate import``) has a ``decisions/<split>/`` table: one row per
decision of an item (JNQ / JBoolQ ``question_id``, NQ ``example_id``), with ``decision``,
the paragraph (NQ: the candidate), ``label``, ``confidence`` and ``aggregate``
(``transforms.annotation.worker_table``). ``DecisionIndex.open`` indexes them by split and
item in a SQLite file beside the pages being written, removed by ``close`` before the site is
complete (the decisions of a big release are never held in memory: the browser's pages
stream), and ``attach`` appends to an example's detail a
``<section class="decisions">`` with a table of its decisions and how a confidence is
computed (the table's field doc, a link to the workers page's confidence histogram and the
guide). Every value is escaped (``html.text`` / ``num``); a release without a decisions
table gets no index, and its pages are unchanged byte for byte.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from transforms.annotation.worker_table import DECISION_FIELD_DOCS
from transforms.browse.base import Entry, ReleaseView
from transforms.browse.html import num, text
from transforms.browse.workers import WORKERS_TABLE

DECISIONS_CONFIG = "decisions"
GUIDE = "docs/guides/annotation.md"  # its "Confidence" paragraph
ITEMS = ("question_id", "example_id")  # JNQ / JBoolQ, NQ
PLACES = ("paragraph", "candidate")
ORDER = ("good_question", "yes_no_question", "has_answer", "long_answer", "yes_no_answer",
         "span")
COLUMNS = ("decision", "label", "aggregate", "confidence")
INSERT_BATCH = 10_000
INDEX_FILE = ".decisions.sqlite"


def _place(row: dict[str, Any]) -> Any:
    return next((row.get(name) for name in PLACES if row.get(name) is not None), None)


def _rank(row: tuple[Any, ...]) -> tuple:
    decision, place = row[0], row[1]
    known = ORDER.index(decision) if decision in ORDER else len(ORDER)
    return (known, str(decision), place is not None,
            place if isinstance(place, int) else 0, str(place), str(row[2]))


class DecisionIndex:
    """The decisions of a release by ``(split, item)``, in a SQLite file at ``path``."""

    def __init__(self, path: str, place: str, workers: bool):
        self.path = path
        if os.path.lexists(path):
            os.unlink(path)
        self._db = sqlite3.connect(path)
        self._db.execute("PRAGMA journal_mode = OFF")  # a scratch file, removed by close
        self._db.execute("PRAGMA synchronous = OFF")
        self.place = place  # the column header of a decision's paragraph or candidate
        self.workers = workers  # the release has a workers page to link to

    @classmethod
    def open(cls, release: ReleaseView, folder: str) -> DecisionIndex | None:
        """The index of the release's ``decisions`` tables (a file ``INDEX_FILE`` in
        ``folder``, the site being written), or None when it has none."""
        tables = [t for t in release.tables if t.config == DECISIONS_CONFIG]
        if not tables:
            return None
        place = "candidate" if "candidate" in tables[0].schema.names else "paragraph"
        index = cls(os.path.join(folder, INDEX_FILE), place,
                    release.table(WORKERS_TABLE) is not None)
        index._db.execute("CREATE TABLE d (split TEXT, item TEXT, decision TEXT, place, "
                          "label TEXT, aggregate TEXT, confidence)")
        for table in tables:
            batch: list[tuple[Any, ...]] = []
            for row in release.rows(table):
                item = next((row.get(name) for name in ITEMS if row.get(name) is not None),
                            None)
                batch.append((str(row.get("split")), str(item), row.get("decision"),
                              _sql(_place(row)), _sql(row.get("label")),
                              _sql(row.get("aggregate")), _sql(row.get("confidence"))))
                if len(batch) == INSERT_BATCH:
                    index._db.executemany("INSERT INTO d VALUES (?,?,?,?,?,?,?)", batch)
                    batch = []
            index._db.executemany("INSERT INTO d VALUES (?,?,?,?,?,?,?)", batch)
        index._db.execute("CREATE INDEX d_item ON d (split, item)")
        return index

    def rows(self, split: str, item: str) -> list[tuple[Any, ...]]:
        """``(decision, place, label, aggregate, confidence)`` of one item, in the stages'
        order then by paragraph."""
        found = self._db.execute("SELECT decision, place, label, aggregate, confidence FROM d "
                                 "WHERE split = ? AND item = ?", (split, item)).fetchall()
        return sorted(found, key=_rank)

    def attach(self, entry: Entry) -> Entry:
        """``entry`` with its decisions after its detail (unchanged when it has none)."""
        rows = self.rows(entry.split, str(entry.key))
        if not rows:
            return entry
        section = decisions_html(rows, self.place, self.workers)
        return replace(entry, detail=f"{entry.detail}\n{section}")

    def close(self) -> None:
        """Close and remove the index file (the site keeps no trace of it)."""
        self._db.close()
        os.unlink(self.path)


def _sql(value: Any) -> Any:
    """A value SQLite stores as given (numbers, text, null); anything else as its text."""
    if value is None or isinstance(value, int | float | str) and not isinstance(value, bool):
        return value
    return str(value)


def _where(value: Any) -> str:
    return "—" if value is None else num(value)


def _confidence(value: Any) -> str:
    if value is None:
        return '<td class="n muted">—</td>'
    shown = num(value, ".3f")
    if isinstance(value, int | float) and 0 <= value <= 1:
        return f'<td class="n"><meter min="0" max="1" value="{shown}"></meter> {shown}</td>'
    return f'<td class="n">{shown}</td>'


def decisions_html(rows: list[tuple[Any, ...]], place: str, workers: bool) -> str:
    """The decisions section of one example: a table and how confidence is computed."""
    head, tail = _frame(place, workers)
    body = "".join(
        f"<tr><td>{text(decision)}</td><td class=\"n\">{_where(where)}</td>"
        f"<td>{text(label)}</td><td>{text(aggregate)}</td>{_confidence(confidence)}</tr>"
        for decision, where, label, aggregate, confidence in rows)
    return f"{head}{body}{tail}"


@functools.lru_cache(maxsize=8)
def _frame(place: str, workers: bool) -> tuple[str, str]:
    """The section's HTML before and after the rows (the same for every example)."""
    columns = "".join(f"<th>{text(c)}</th>" for c in (COLUMNS[0], place, *COLUMNS[1:]))
    histogram = (' The release\'s confidences per aggregate are on <a class="confidence-link" '
                 'href="../workers.html#confidence">the workers page</a>.' if workers else "")
    return ('<section class="decisions"><h3>Decisions and their confidence</h3>'
            f'<table class="decisions"><thead><tr>{columns}</tr></thead><tbody>',
            '</tbody></table><details class="how"><summary>How the confidence is computed</summary>'
            f'<p>Confidence {text(DECISION_FIELD_DOCS["confidence"])}; a decision carried '
            f"from an earlier release (aggregate <code>carried</code>) has none. Documented in "
            f"<code>{text(GUIDE)}</code> (Worker quality: Confidence).{histogram}</p>"
            "</details></section>")


def with_decisions(entries: Iterator[Entry], index: DecisionIndex | None) -> Iterator[Entry]:
    """``entries``, each with its decisions when ``index`` has some."""
    for entry in entries:
        yield entry if index is None else index.attach(entry)
