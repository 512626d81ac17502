"""Which parser reads a page: ``build_nlquad --layout auto|bbc|generic``.

``bbc``: the BBC parser of every layout era (``filters.bbc.article``), for every page (a page
of another site is skipped as ``not_article_url``, as before ``--layout`` existed).
``generic``: the main-content extractor for any news site (``filters.nlquad.news_article``),
for every page, BBC pages included. ``auto`` (the default): the BBC parser for pages on a
BBC host, the generic extractor for the rest.
"""

from __future__ import annotations

from filters.bbc.urls import is_bbc_host

AUTO, BBC, GENERIC = "auto", "bbc", "generic"
LAYOUTS = (AUTO, BBC, GENERIC)


def layout_for(layout: str, url: str) -> str:
    """``bbc`` or ``generic``: the parser ``layout`` chooses for a page captured at ``url``."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; choose from {', '.join(LAYOUTS)}")
    if layout == AUTO:
        return BBC if is_bbc_host(url) else GENERIC
    return layout
