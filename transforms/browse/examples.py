"""The example pages, written while the entries stream by, a page at a time.

In ``<site>/examples/``: ``index-NNNNN.html`` (``page_size`` entries each: a static table of
the renderer's cells, split and reason, with pager links, plus the filter form),
``page-NNNNN.html`` (``details_per_page`` entries' detail sections, each
``<section id="e-<n>" class="example">``, ``n`` the entry's 1-based number in the site),
``data-NNNNN.js`` (the filter's data of index page ``NNNNN``:
``QA.register(page, [[n, key, split, reason, text, detailHref, cells], ...])``) and, last,
``pages.js`` (``QA.configure``: the numbers of pages and entries, the splits and reasons).
Memory holds one index page's rows and one detail page's sections.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from transforms.browse.base import Entry
from transforms.browse.html import attr, page, text

TEXT_LIMIT = 1000  # characters of an entry's text the filter searches
REASON_LIMIT = 200  # distinct reasons the filter offers
SCRIPTS = ("assets/site.js", "examples/pages.js")
NAV = "../"


def index_name(number: int) -> str:
    return f"index-{number:05d}.html"


def detail_name(number: int) -> str:
    return f"page-{number:05d}.html"


def data_name(number: int) -> str:
    return f"data-{number:05d}.js"


def js_value(value: Any) -> str:
    """``value`` as a JavaScript literal (JSON) that is safe in any script context."""
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            .replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def pager(kind: str, number: int, has_next: bool) -> str:
    """First / previous / page N / next / last links of index (``kind`` ``index``) or detail
    (``page``) page ``number``; ``site.js`` adds the page count and the last page's link."""
    name = index_name if kind == "index" else detail_name

    def step(target: int, label: str, rel: str, enabled: bool) -> str:
        if not enabled:
            return f'<span class="disabled">{label}</span>'
        return f'<a href="{name(target)}" rel="{rel}">{label}</a>'

    return (f'<nav class="pager" data-kind="{kind}" data-page="{number}">'
            + step(1, "« first", "first", number > 1)
            + step(number - 1, "‹ previous", "prev", number > 1)
            + f'<span>page {number}<span class="pages-total"></span></span>'
            + step(number + 1, "next ›", "next", has_next)
            + '<a class="pages-last" hidden>last »</a></nav>')


FILTER = """<form id="filter" class="filter" hidden autocomplete="off" role="search">
<label>Text <input type="search" name="q" placeholder="contains…" aria-label="text"></label>
<label>Split <select name="split"><option value="">all</option></select></label>
<label>Reason <select name="reason"><option value="">all</option></select></label>
</form>
<p id="filter-status" class="filter-status muted" aria-live="polite"></p>"""


class ExampleWriter:
    """Writes the example pages of a stream of entries: ``add`` each, then ``close``.
    ``note`` (plain text) follows the range of examples on every index page."""

    def __init__(self, out_dir: str, columns: tuple[str, ...], *, page_size: int = 100,
                 details_per_page: int = 1, release: str = "", note: str = "",
                 banner: str = "") -> None:
        if page_size < 1 or details_per_page < 1:
            raise ValueError("page_size and details_per_page must be at least 1")
        self.folder = Path(out_dir, "examples")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.columns = tuple(columns)
        self.page_size = page_size
        self.details_per_page = details_per_page
        self.release = release
        self.banner = banner  # html.simulated_banner, on every page
        self.note = note
        self.entries = 0
        self.index_pages = 0
        self.detail_pages = 0
        self.splits: Counter[str] = Counter()
        self.reasons: Counter[str] = Counter()
        self._rows: list[list[Any]] = []
        self._details: list[str] = []
        self._closed = False

    def __enter__(self) -> ExampleWriter:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.close()

    def add(self, entry: Entry) -> int:
        """Add the next entry; its number ``n`` in the site."""
        if len(self._rows) == self.page_size:
            self._write_index(has_next=True)
        if len(self._details) == self.details_per_page:
            self._write_details(has_next=True)
        self.entries += 1
        n = self.entries
        index_page = (n - 1) // self.page_size + 1
        href = f"{detail_name((n - 1) // self.details_per_page + 1)}#e-{n}"
        self._rows.append([n, str(entry.key), entry.split, entry.reason,
                           entry.text[:TEXT_LIMIT], href, list(entry.cells)])
        self._details.append(
            f'<section id="e-{n}" class="example" data-split="{attr(entry.split)}" '
            f'data-key="{attr(entry.key)}">\n<div class="example-head">'
            f'<a class="n" href="#e-{n}">#{n}</a><span class="split">{text(entry.split)}</span>'
            f'<span class="muted">{text(entry.key)}</span>'
            + (f'<span class="muted">{text(entry.reason)}</span>' if entry.reason else "")
            + f'<a href="{index_name(index_page)}#r-{n}">back to the index</a></div>\n'
            f"{entry.detail}\n</section>\n")
        self.splits[entry.split] += 1
        if entry.reason and (entry.reason in self.reasons or len(self.reasons) < REASON_LIMIT):
            self.reasons[entry.reason] += 1
        return n

    def close(self) -> dict[str, Any]:
        """Write the last pages and ``pages.js``; what was written."""
        if not self._closed:
            self._closed = True
            if self._rows or not self.index_pages:
                self._write_index(has_next=False)
            if self._details:
                self._write_details(has_next=False)
            config = {"pages": self.index_pages, "detailPages": self.detail_pages,
                      "entries": self.entries, "pageSize": self.page_size,
                      "columns": list(self.columns), "splits": list(self.splits),
                      "reasons": sorted(self.reasons)}
            self._write("pages.js", f"QA.configure({js_value(config)});\n")
        return self.summary()

    def summary(self) -> dict[str, Any]:
        return {"entries": self.entries, "index_pages": self.index_pages,
                "detail_pages": self.detail_pages, "page_size": self.page_size,
                "details_per_page": self.details_per_page, "splits": dict(self.splits),
                "reasons": dict(sorted(self.reasons.items()))}

    def _write(self, name: str, content: str) -> None:
        with open(self.folder / name, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(content)

    def _write_index(self, has_next: bool) -> None:
        self.index_pages += 1
        number = self.index_pages
        rows = self._rows
        self._rows = []
        head = "".join(f"<th>{text(c)}</th>" for c in ("#", *self.columns, "split", "reason"))
        body = "".join(
            f'<tr id="r-{n}"><td class="n"><a href="{href}">#{n}</a></td>'
            + "".join(f"<td>{cell}</td>" for cell in cells)
            + f"<td>{text(split)}</td><td>{text(reason)}</td></tr>\n"
            for n, _key, split, reason, _text, href, cells in rows)
        if rows:
            shown = f"Examples {rows[0][0]}–{rows[-1][0]}"
        else:
            shown = "This release has no examples."
        nav = pager("index", number, has_next)
        content = (
            f"{FILTER}\n"
            f'<div id="filter-results" hidden>\n<table class="entries"><thead><tr>{head}'
            '</tr></thead><tbody id="filter-rows"></tbody></table>\n'
            '<button type="button" id="filter-more" hidden>Show more</button>\n</div>\n'
            f'<div id="static-entries">\n<p class="muted">{shown}{text(self.note)}</p>\n{nav}\n'
            f'<table class="entries"><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody>'
            f"</table>\n{nav}\n</div>")
        self._write(index_name(number),
                    page(f"Examples · page {number}", content, NAV, self.release, SCRIPTS,
                         self.banner))
        self._write(data_name(number), f"QA.register({number}, {js_value(rows)});\n")

    def _write_details(self, has_next: bool) -> None:
        self.detail_pages += 1
        number = self.detail_pages
        sections = self._details
        self._details = []
        first = (number - 1) * self.details_per_page + 1
        last = first + len(sections) - 1
        nav = pager("page", number, has_next)
        title = f"Example {first}" if first == last else f"Examples {first}–{last}"
        self._write(detail_name(number),
                    page(title, f"{nav}\n{''.join(sections)}{nav}", NAV, self.release, SCRIPTS,
                         self.banner))
