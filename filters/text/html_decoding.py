"""Decode archived HTML bytes to text, reporting how the encoding was chosen.

Order: the HTTP ``Content-Type`` charset, a byte-order mark, the ``<meta charset>`` /
``http-equiv`` declaration in the first 4 KB, then UTF-8. A declared charset that fails to decode
falls back to UTF-8, then Windows-1252 (the usual mislabelled encoding of old news pages), and
finally UTF-8 with replacement characters, so a page is never lost for its encoding; the
``method`` tells the caller which rule applied, so fallbacks can be counted.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)""", re.I)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_:.-]+)", re.I)
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))


@dataclass(frozen=True)
class DecodedHtml:
    """Decoded text, the codec used and how it was chosen (``declared``, ``bom``, ``default``,
    ``fallback``, ``replaced``)."""

    text: str
    encoding: str
    method: str


def _codec(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name.decode("ascii", "ignore") if isinstance(name, bytes)
                             else name).name
    except LookupError:
        return None


def declared_charset(content: bytes, content_type: str | None = None) -> str | None:
    """Return the codec declared by the HTTP header or the page's meta tag, if any."""
    if content_type:
        match = _HEADER_CHARSET.search(content_type)
        if match and _codec(match.group(1)):
            return _codec(match.group(1))
    match = _META_CHARSET.search(content[:4096])
    return _codec(match.group(1)) if match else None


def decode_html(content: bytes, content_type: str | None = None) -> DecodedHtml:
    """Decode page bytes; never raises for bad bytes (see module docstring for the order)."""
    for bom, codec in _BOMS:
        if content.startswith(bom):
            return DecodedHtml(content.decode(codec, errors="replace"), codec, "bom")
    declared = declared_charset(content, content_type)
    if declared:
        codec = "cp1252" if declared in ("latin_1", "iso8859-1") else declared
        try:
            return DecodedHtml(content.decode(codec), codec, "declared")
        except UnicodeDecodeError:
            pass
    for codec in ("utf-8", "cp1252"):
        try:
            method = "default" if codec == "utf-8" and not declared else "fallback"
            return DecodedHtml(content.decode(codec), codec, method)
        except UnicodeDecodeError:
            continue
    return DecodedHtml(content.decode("utf-8", errors="replace"), "utf-8", "replaced")
