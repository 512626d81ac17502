"""``SHA256SUMS``: every file of a version, checkable with ``sha256sum -c`` alone.

Written into the staging directory just before the manifest (``commit.finalize_release``),
so it arrives with the version in the same atomic move. It lists every file of the version
but itself, the manifest included (which no other checksum covers), in the GNU ``sha256sum``
text format: ``<64 hex>  <relative path>`` per line, sorted by path. A path holding a
backslash or newline is escaped the way GNU ``sha256sum`` does (a leading ``\\``). On object
stores the version also holds the empty ``_SUCCESS`` marker written after the move, so
``SHA256SUMS`` lists it: ``sha256sum -c`` then also fails on a copy that was never finished.

The sums come from the manifest's own hashes (computed when the files were staged) and the
manifest's bytes: nothing is read twice. ``parse_sums`` reads one back as untrusted input for
``release verify`` (``ChecksumsError``). A release written before ``SHA256SUMS`` existed has
none, and still verifies against its manifest.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

SHA256SUMS = "SHA256SUMS"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
MAX_SUMS_BYTES = 64 << 20  # 100,000 files of 200-character paths is about 27 MB
_LINE = re.compile(r"(\\?)([0-9a-f]{64}) [ *](.+)")


class ChecksumsError(ValueError):
    """A ``SHA256SUMS`` that is not in the ``sha256sum`` format."""


def _escaped(path: str) -> tuple[str, str]:
    """GNU ``sha256sum``'s escaping of a path: the line's prefix and the path as written."""
    if "\\" not in path and "\n" not in path and "\r" not in path:
        return "", path
    return "\\", path.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def _unescaped(path: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r", "\\": "\\"}.get(m[1], m[0]),
                  path)


def sums_bytes(digests: Mapping[str, str]) -> bytes:
    """The ``SHA256SUMS`` content of ``{relative path: sha256 hex}``, sorted by path."""
    lines = []
    for path in sorted(digests):
        prefix, written = _escaped(path)
        lines.append(f"{prefix}{digests[path]}  {written}\n")
    return "".join(lines).encode("utf-8")


def release_sums(files: Mapping[str, Mapping[str, object]], manifest_name: str,
                 manifest: bytes, extra: Mapping[str, str] | None = None) -> bytes:
    """``SHA256SUMS`` of a release: the manifest's ``files`` (their recorded sha256), the
    manifest itself (hashed from ``manifest``) and ``extra`` (path to sha256)."""
    digests = {name: str(entry["sha256"]) for name, entry in files.items()}
    digests[manifest_name] = hashlib.sha256(manifest).hexdigest()
    digests.update(extra or {})
    digests.pop(SHA256SUMS, None)
    return sums_bytes(digests)


def parse_sums(data: bytes) -> dict[str, str]:
    """``{relative path: sha256}`` of a ``SHA256SUMS`` file; ``ChecksumsError`` on a line not
    in the format, a path listed twice, or one that is absolute or climbs (``..``)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ChecksumsError(f"not UTF-8: {error}") from error
    sums: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        match = _LINE.fullmatch(line)
        if not match:
            raise ChecksumsError(f"line {number} is not '<sha256>  <path>'")
        path = _unescaped(match[3]) if match[1] else match[3]
        if path.startswith("/") or ".." in path.split("/") or path in sums:
            raise ChecksumsError(f"line {number}: path {path!r} is absolute, climbs out of "
                                 "the release or is listed twice")
        sums[path] = match[2]
    return sums
