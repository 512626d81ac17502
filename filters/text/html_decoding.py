"""Decode archived HTML bytes to text, reporting how the encoding was chosen.

Order: the HTTP ``Content-Type`` charset, a byte-order mark, the ``<meta charset>`` /
``http-equiv`` declaration in the first 4 KB, UTF-16 recognised by its NUL bytes (no BOM), then
UTF-8. A declared charset that fails to decode falls back to UTF-8; then a multi-byte encoding
(Shift-JIS, EUC, GBK, Big5, ...) detected by ``charset_normalizer``, trusted only where
Windows-1252 (the usual mislabelled encoding of old news pages) is ruled out: the bytes are not
Windows-1252, or most of their non-ASCII bytes come in runs (never so in English or French
text). Otherwise Windows-1252, and finally UTF-8 with replacement characters, so a page is never
lost for its encoding; the ``method`` tells the caller which rule applied, so fallbacks can be
counted.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from charset_normalizer import from_bytes
from charset_normalizer.utils import is_multi_byte_encoding

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)""", re.I)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_:.-]+)", re.I)
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))
_SNIFF_BYTES = 4096
_UTF16_NUL_SHARE = 0.3  # of the code units' high (or low) bytes: ASCII markup in UTF-16
_UTF16_OTHER_NUL_SHARE = 0.05
_MULTI_BYTE_MIN_HIGH_BYTES = 16
_MULTI_BYTE_MIN_RUN_SHARE = 0.5


@dataclass(frozen=True)
class DecodedHtml:
    """Decoded text, the codec used and how it was chosen (``declared``, ``bom``, ``default``,
    ``detected``, ``fallback``, ``replaced``)."""

    text: str
    encoding: str
    method: str


def _codec(name: str | bytes | None) -> str | None:
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
    match = _META_CHARSET.search(content[:_SNIFF_BYTES])
    return _codec(match.group(1)) if match else None


def utf16_without_bom(content: bytes) -> str | None:
    """``utf-16-le`` / ``utf-16-be`` when the first bytes have NUL bytes at every other position
    (ASCII markup in UTF-16), else None. UTF-8 text never has that many NUL bytes."""
    head = content[:_SNIFF_BYTES]
    units = len(head) // 2
    if units < 8:
        return None
    even, odd = head[0:units * 2:2].count(0), head[1:units * 2:2].count(0)
    if odd >= _UTF16_NUL_SHARE * units and even <= _UTF16_OTHER_NUL_SHARE * units:
        return "utf-16-le"
    if even >= _UTF16_NUL_SHARE * units and odd <= _UTF16_OTHER_NUL_SHARE * units:
        return "utf-16-be"
    return None


def _high_byte_run_share(content: bytes) -> tuple[int, float]:
    """Number of non-ASCII bytes and the share of them next to another non-ASCII byte."""
    high = in_runs = 0
    previous_high = False
    for index, byte in enumerate(content):
        if byte < 0x80:
            previous_high = False
            continue
        high += 1
        following_high = index + 1 < len(content) and content[index + 1] >= 0x80
        if previous_high or following_high:
            in_runs += 1
        previous_high = True
    return high, (in_runs / high if high else 0.0)


def _detected(content: bytes, cp1252_ok: bool) -> DecodedHtml | None:
    """The encoding ``charset_normalizer`` finds, when it is trusted (module docstring)."""
    best = from_bytes(content).best()
    codec = _codec(best.encoding) if best is not None else None
    if codec is None or codec == "utf-8" or not is_multi_byte_encoding(best.encoding):
        return None
    if cp1252_ok:
        high, run_share = _high_byte_run_share(content)
        if high < _MULTI_BYTE_MIN_HIGH_BYTES or run_share < _MULTI_BYTE_MIN_RUN_SHARE:
            return None
    try:
        return DecodedHtml(content.decode(codec), codec, "detected")
    except UnicodeDecodeError:
        return None


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
    utf16 = utf16_without_bom(content)
    if utf16:
        return DecodedHtml(content.decode(utf16, errors="replace"), utf16, "detected")
    try:
        return DecodedHtml(content.decode("utf-8"), "utf-8",
                           "fallback" if declared else "default")
    except UnicodeDecodeError:
        pass
    try:
        cp1252 = DecodedHtml(content.decode("cp1252"), "cp1252", "fallback")
    except UnicodeDecodeError:
        cp1252 = None
    detected = _detected(content, cp1252 is not None)
    if detected:
        return detected
    if cp1252:
        return cp1252
    return DecodedHtml(content.decode("utf-8", errors="replace"), "utf-8", "replaced")
