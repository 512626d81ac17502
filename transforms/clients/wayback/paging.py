"""Bounds on paging through one CDX query with resume keys.

The CDX server prints a resume key only when a page stopped at its ``limit`` (see
"Resumption Key" in the CDX server docs), so every page before the last holds rows, and a
listing that follows its keys moves forward through the index. :class:`PagingGuard` stops
one that does not, with a named :class:`~.errors.WaybackError`: a resume key handed out
before (``resume_key_cycle``: A -> B -> A, which would otherwise loop forever, also from the
cache), a page with a resume key and no row, or one that ends on the row an earlier page
ended on (``cdx_no_progress``), and more than ``max_pages`` pages (``too_many_cdx_pages``).
"""

from __future__ import annotations

from transforms.clients.wayback.cdx import CdxPage
from transforms.clients.wayback.errors import (
    CDX_NO_PROGRESS,
    RESUME_KEY_CYCLE,
    TOO_MANY_CDX_PAGES,
    WaybackError,
)


class PagingGuard:
    """Checks the pages of one CDX query of ``url`` as they arrive."""

    def __init__(self, url: str, max_pages: int) -> None:
        self.url = url
        self.max_pages = max_pages
        self.pages = 0
        self._keys: set[str] = set()
        self._ends: set[str] = set()

    def admit(self, page: CdxPage, asked_with: str | None) -> None:
        """Count a page (asked with the resume key ``asked_with``, None for the first);
        raises ``cdx_no_progress`` when it lists nothing new."""
        self.pages += 1
        if asked_with:
            self._keys.add(asked_with)
        end = _page_end(page)
        if end is None:
            if page.resume_key:
                raise WaybackError(CDX_NO_PROGRESS, self.url, f"page {self.pages} holds no "
                                                              "row but a resume key")
            return
        if end in self._ends:
            raise WaybackError(CDX_NO_PROGRESS, self.url, f"page {self.pages} ends on the row "
                                                          f"an earlier page ended on ({end})")
        self._ends.add(end)

    def next_key(self, page: CdxPage) -> str | None:
        """The resume key to ask the next page with (None: the listing is complete); raises
        ``resume_key_cycle`` for a key handed out before and ``too_many_cdx_pages`` past the
        cap."""
        key = page.resume_key
        if not key:
            return None
        if key in self._keys:
            raise WaybackError(RESUME_KEY_CYCLE, self.url, f"resume key {key[:200]!a} came "
                                                           f"back after {self.pages} pages")
        if self.pages >= self.max_pages:
            raise WaybackError(TOO_MANY_CDX_PAGES, self.url, f"more than {self.max_pages} "
                                                             "pages")
        return key


def _page_end(page: CdxPage) -> str | None:
    """What a page ends on: its last capture (or refused row), None when it has no row."""
    if page.captures:
        last = page.captures[-1]
        return f"{last.urlkey} {last.timestamp} {last.original} {last.digest}"
    if page.bad_rows:
        return f"refused {page.bad_rows[-1].row}"
    return None
