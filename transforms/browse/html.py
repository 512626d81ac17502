"""Escaping and the layout every page of the site shares.

Every value of a release goes through ``text`` (element content) or ``attr`` (attribute
values), numbers included: a column the schema calls a number may hold a string, so no value
is ever put into a page unescaped. ``num`` formats a real number with a format spec and
escapes anything else; ``link`` makes a link only of an http(s) URL. ``page`` wraps a page's
body in the shared layout: the header nav (Overview · Examples · Rejected) and the release's
name and version, the stylesheet, and a Content-Security-Policy that lets no inline script
run and loads nothing from outside the site.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from transforms.release.simulated import simulated_record, warning_text

# Scripts only from files of the site (never inline), nothing from the network; inline style
# attributes are allowed for matplotlib's SVG. A sandboxed srcdoc iframe inherits this policy.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; frame-src 'self'; base-uri 'none'; form-action 'none'")

ELLIPSIS = "…"
_WEB_START = re.compile(r"\s*https?://", re.IGNORECASE)
_WEB_URL = re.compile(r"https?://[^\s\x00-\x1f\x7f/?#]+[^\s\x00-\x1f\x7f]*", re.IGNORECASE)


def text(value: Any) -> str:
    """``value`` as escaped HTML text (``None`` as the empty string)."""
    if value is None:
        return ""
    return html.escape(str(value), quote=True)


def attr(value: Any) -> str:
    """``value`` escaped for a double-quoted attribute value."""
    return text(value)


def is_number(value: Any) -> bool:
    """Whether ``value`` is an int or float (not a bool, not a string of digits)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def num(value: Any, spec: str = "") -> str:
    """``value`` formatted with ``spec`` (``".3f"``, ``","``) when it is a number, else as
    escaped text: whatever a "numeric" column holds, the result is safe HTML."""
    return text(format(value, spec)) if is_number(value) else text(value)


def web_url(value: Any) -> str | None:
    """``value`` stripped if it is an absolute http(s) URL with a host and without
    whitespace or control characters inside, else ``None``."""
    if not isinstance(value, str) or not _WEB_START.match(value):
        return None
    url = value.strip()
    if not _WEB_URL.fullmatch(url):
        return None
    try:
        urlsplit(url)
    except ValueError:
        return None
    return url


def link(url: Any, label: Any = None) -> str:
    """An ``<a>`` to ``url`` labelled ``label`` (the URL itself when ``None``), both escaped;
    only http(s) URLs become links, anything else is the label as text."""
    shown = url if label is None else label
    target = web_url(url)
    if target is None:
        return text(shown)
    return f'<a href="{attr(target)}" rel="noopener noreferrer nofollow">{text(shown)}</a>'


def shorten(value: Any, limit: int = 200) -> str:
    """Plain ``value`` cut to at most ``limit`` characters (an ellipsis marks a cut), with
    whitespace runs collapsed; not escaped."""
    if value is None:
        return ""
    flat = " ".join(str(value).split())
    return flat if len(flat) <= limit else flat[:max(limit - 1, 0)].rstrip() + ELLIPSIS


def release_label(manifest: dict[str, Any]) -> str:
    """``"<dataset> <version>"`` of a release's manifest."""
    return f"{manifest.get('dataset', '')} {manifest.get('version', '')}".strip()


def simulated_banner(manifest: dict[str, Any], stats: dict[str, Any] | None = None) -> str:
    """The banner every page of a release with simulated annotations shows (its own votes
    simulated, or built from such a release: ``transforms.release.simulated``), else ``""``."""
    record = simulated_record(manifest, stats)
    if record is None:
        return ""
    return ('<div class="simulated-banner" role="alert"><strong>Simulated annotations.'
            f"</strong> {text(warning_text(record).replace('`', ''))}</div>\n")


def page(title: str, body: str, nav_prefix: str = "", release: str = "",
         scripts: Sequence[str] = (), banner: str = "") -> str:
    """A whole HTML page: the shared header nav and release label, ``<h1>`` of ``title``
    (plain text, escaped here), then ``body`` (HTML, escaped by the caller).

    ``nav_prefix`` is the path from the page to the site root (``""`` for ``index.html``,
    ``"../"`` for pages in ``examples/`` or ``rejected/``); ``release`` the plain label
    (``release_label``); ``scripts`` are site-relative paths of scripts to load at the end
    (e.g. ``("assets/site.js",)``), prefixed with ``nav_prefix`` here; ``banner`` is HTML
    shown above the title (``simulated_banner``)."""
    heading = f"{title} · {release}" if release else title
    script_tags = "".join(f'<script src="{attr(nav_prefix + path)}" charset="utf-8"></script>\n'
                          for path in scripts)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{attr(CSP)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{text(heading)}</title>\n"
        f'<link rel="stylesheet" href="{attr(nav_prefix)}assets/site.css">\n'
        "</head>\n<body>\n"
        '<header class="site-header"><nav>'
        f'<a href="{attr(nav_prefix)}index.html">Overview</a> · '
        f'<a href="{attr(nav_prefix)}examples/index-00001.html">Examples</a> · '
        f'<a href="{attr(nav_prefix)}rejected/index.html">Rejected</a></nav>'
        f'<span class="release">{text(release)}</span></header>\n'
        f"{banner}<main>\n<h1>{text(title)}</h1>\n{body}\n</main>\n"
        f"{script_tags}</body>\n</html>\n"
    )
