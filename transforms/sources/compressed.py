"""Input files read by us rather than Beam, so a damaged or oversized stream is reported, not
cut short or inflated without bound.

Beam's reader stops at a truncated compressed stream without an error, so a file losing its
tail is silent, and it decodes without a size limit, so a small bomb fills the memory. These
helpers decompress every compression Beam detects by extension (gzip, deflate, bzip2, xz/lzma,
zstd: every stream of a multi-stream file; trailing zero padding allowed, as by gzip), in
bounded pieces, and name the damage:

* ``truncated_compression`` (the error is an ``EOFError``): the data ends before its
  end-of-stream marker; what was decoded is the file's start, so the complete records before
  the cut may be kept (never a partial last line, see ``complete_lines``);
* ``corrupt_compression`` (any other decoder error): a stream's checksum is checked only at
  its end, so the records before the error may already be garbage; keep none;
* ``decoded_too_large`` (a ``DecodedTooLarge``): the file decodes to more than
  ``max_decoded_bytes`` (default ``DEFAULT_MAX_DECODED_BYTES``; uncompressed files count their
  own bytes). Decoding stops at the cap, so memory stays bounded by it, never by the bomb;
* ``unsupported_compression``: a compression Beam would decode that we cannot check is
  refused rather than read unchecked (none today: every Beam type is checked here).

The line readers (``iter_complete_lines``, ``iter_path_lines``) also take a cap per line,
``max_line_bytes``: a line longer than it is never held whole. Its first ``LONG_LINE_HEAD``
bytes are kept, the rest is counted and dropped up to its newline, and a ``LongLine`` (reason
``line_too_long``) takes its place; the lines after it are read as usual. Memory is then
bounded by the cap, not by the line: a 1 KB bzip2 file holding one 1 GiB line costs one cap.
"""

from __future__ import annotations

import bz2
import io
import lzma
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import zstandard

from transforms.core.files import CompressionTypes, FileSystems

TRUNCATED_COMPRESSION = "truncated_compression"
CORRUPT_COMPRESSION = "corrupt_compression"
DECODED_TOO_LARGE = "decoded_too_large"
UNSUPPORTED_COMPRESSION = "unsupported_compression"
LINE_TOO_LONG = "line_too_long"
LONG_LINE_HEAD = 200  # bytes of an over-long line kept to show it
MIB = 1 << 20
DEFAULT_MAX_DECODED_BYTES = 1024 * MIB  # per input file, once decoded
CHUNK = 1 << 14  # compressed bytes fed at a time: what a damaged stream keeps is exact to this
ZSTD_CHUNK = 1 << 10  # zstd has no output bound per call: 1 KiB decodes to at most ~45 MB
OUTPUT_PIECE = 1 << 16  # decoded bytes asked for per decoder call (gzip, deflate, bzip2, xz)


def _zstd() -> Any:
    return zstandard.ZstdDecompressor().decompressobj()


DECOMPRESSORS: dict[str, Callable[[], Any]] = {
    CompressionTypes.GZIP: lambda: zlib.decompressobj(wbits=31),
    CompressionTypes.DEFLATE: zlib.decompressobj,
    CompressionTypes.BZIP2: bz2.BZ2Decompressor,
    CompressionTypes.LZMA: lzma.LZMADecompressor,
    CompressionTypes.ZSTD: _zstd,
}
_ERRORS = (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError, zstandard.ZstdError)
_ZLIB_TYPE = type(zlib.decompressobj())


@dataclass(frozen=True)
class LongLine:
    """A line longer than the line cap, in place of its bytes: its ``length`` in bytes
    (its newline included), its first ``LONG_LINE_HEAD`` bytes and the ``limit``."""

    length: int
    head: bytes
    limit: int
    reason: str = LINE_TOO_LONG

    def message(self) -> str:
        return (f"line of {self.length} bytes is longer than the {self.limit}-byte line cap "
                f"(starts {self.head[:60]!r})")


class DecodedTooLarge(ValueError):
    """A file that decodes to more than its cap; ``reason`` is ``decoded_too_large``."""

    reason = DECODED_TOO_LARGE

    def __init__(self, limit: int):
        super().__init__(f"decodes to more than {limit} bytes (the decoded-size cap; raise "
                         "--max-decoded-mib to read it)")
        self.limit = limit


class UnsupportedCompression(ValueError):
    """A compression Beam would decode that is not checked here: refused, never read."""

    reason = UNSUPPORTED_COMPRESSION


class CompressionDamage(Exception):
    """A damaged or oversized stream: ``reason`` and the decompressor's ``error``."""

    def __init__(self, error: Exception):
        super().__init__(str(error))
        self.error = error
        self.reason = damage_reason(error)


def damage_reason(error: Exception) -> str:
    """``decoded_too_large`` / ``unsupported_compression`` for those errors,
    ``truncated_compression`` for an ``EOFError``, else ``corrupt_compression``."""
    if isinstance(error, (DecodedTooLarge, UnsupportedCompression)):
        return error.reason
    return TRUNCATED_COMPRESSION if isinstance(error, EOFError) else CORRUPT_COMPRESSION


def resolve_limit(max_decoded_bytes: int | None) -> int:
    """The cap in bytes: ``max_decoded_bytes``, or ``DEFAULT_MAX_DECODED_BYTES`` for None."""
    limit = DEFAULT_MAX_DECODED_BYTES if max_decoded_bytes is None else int(max_decoded_bytes)
    if limit < 1:
        raise ValueError(f"max_decoded_bytes must be at least 1, got {max_decoded_bytes}")
    return limit


def decompressor_for(path: str) -> Callable[[], Any] | None:
    """The decompressor factory of ``path`` by its extension, or None (not compressed);
    raises ``UnsupportedCompression`` for a type Beam detects that is not checked here."""
    compression = CompressionTypes.detect_compression_type(path)
    if compression == CompressionTypes.UNCOMPRESSED:
        return None
    if compression not in DECOMPRESSORS:
        raise UnsupportedCompression(f"{path}: {compression} input cannot be checked for "
                                     "truncation; decompress it first")
    return DECOMPRESSORS[compression]


def _decode(decompressor: Any, piece: bytes, size: int) -> Iterator[bytes]:
    """The output of feeding ``piece``, in parts of at most ``size`` bytes where the decoder
    bounds its output (zlib, bz2, lzma); a zstd piece is small enough to decode at once."""
    if isinstance(decompressor, _ZLIB_TYPE):
        data = piece
        while True:  # an empty feed drains output held back by the size bound
            out = decompressor.decompress(data, size)
            if out:
                yield out
            data = decompressor.unconsumed_tail
            if decompressor.eof or not (out or data):
                return
    if hasattr(decompressor, "needs_input"):  # bz2, lzma
        out = decompressor.decompress(piece, size)
        if out:
            yield out
        while not decompressor.eof and not decompressor.needs_input:
            out = decompressor.decompress(b"", size)
            if not out:
                return
            yield out
        return
    out = decompressor.decompress(piece)
    if out:
        yield out


def iter_decompressed(read: Callable[[int], bytes], new_decompressor: Callable[[], Any],
                      max_decoded_bytes: int | None = None) -> Iterator[bytes]:
    """The decompressed pieces of every stream read from ``read(size)`` (a raw file handle's
    ``read``); raises ``CompressionDamage`` after the last good piece of a damaged stream, or
    (``decoded_too_large``) before the output would pass the cap. The input is fed ``CHUNK``
    bytes at a time (``ZSTD_CHUNK`` for zstd) from each stream's start, so the output before an
    error is exact to a chunk."""
    limit = resolve_limit(max_decoded_bytes)
    chunk = CHUNK
    buffer = b""
    exhausted = False
    produced = 0

    def take() -> bytes:
        nonlocal buffer, exhausted
        while len(buffer) < chunk and not exhausted:
            more = read(CHUNK)
            exhausted = not more
            buffer += more
        piece, buffer = buffer[:chunk], buffer[chunk:]
        return piece

    while True:
        decompressor = new_decompressor()
        if not isinstance(decompressor, _ZLIB_TYPE) and not hasattr(decompressor, "needs_input"):
            chunk = ZSTD_CHUNK  # zstd: no output bound per call, so small input pieces
        while not decompressor.eof:
            piece = take()
            if not piece:
                break
            try:
                for out in _decode(decompressor, piece, min(OUTPUT_PIECE, limit - produced + 1)):
                    produced += len(out)
                    if produced > limit:
                        raise CompressionDamage(DecodedTooLarge(limit))
                    yield out
            except _ERRORS as error:
                raise CompressionDamage(error) from error
        if not decompressor.eof:
            raise CompressionDamage(EOFError("compressed data ends before its end-of-stream "
                                             "marker (truncated file)"))
        buffer = decompressor.unused_data + buffer
        while not buffer.strip(b"\0") and not exhausted:  # trailing zero padding is allowed
            piece = read(CHUNK)
            exhausted = not piece
            buffer += piece
        if not buffer.strip(b"\0"):
            return


def iter_plain(read: Callable[[int], bytes],
               max_decoded_bytes: int | None = None) -> Iterator[bytes]:
    """The pieces of an uncompressed stream; ``CompressionDamage`` (``decoded_too_large``)
    before more than the cap is read."""
    limit = resolve_limit(max_decoded_bytes)
    produced = 0
    while piece := read(min(CHUNK * 4, limit - produced + 1)):
        produced += len(piece)
        if produced > limit:
            raise CompressionDamage(DecodedTooLarge(limit))
        yield piece


def decompress(raw: bytes, new_decompressor: Callable[[], Any],
               max_decoded_bytes: int | None = None) -> tuple[bytes, Exception | None]:
    """Every stream of ``raw`` decompressed, and the error where the data ends early (an
    EOFError), is corrupt or decodes past the cap (None when whole); the output before the
    error is kept, to a chunk."""
    position = 0

    def read(size: int) -> bytes:
        nonlocal position
        piece = raw[position:position + size]
        position += len(piece)
        return piece

    return _collect(iter_decompressed(read, new_decompressor, max_decoded_bytes))


def _collect(pieces: Iterator[bytes]) -> tuple[bytes, Exception | None]:
    """The pieces joined (in one growing buffer: no second copy at the end) and the error."""
    out = io.BytesIO()
    try:
        for piece in pieces:
            out.write(piece)
    except CompressionDamage as damage:
        return out.getvalue(), damage.error
    return out.getvalue(), None


def _pieces(handle: Any, path: str, max_decoded_bytes: int | None) -> Iterator[bytes]:
    """The decoded pieces of a raw handle on ``path`` (compression by its extension)."""
    try:
        new_decompressor = decompressor_for(path)
    except UnsupportedCompression as error:
        raise CompressionDamage(error) from None
    if new_decompressor is None:
        return iter_plain(handle.read, max_decoded_bytes)
    return iter_decompressed(handle.read, new_decompressor, max_decoded_bytes)


def read_decompressed(readable: Any, *, max_decoded_bytes: int | None = None
                      ) -> tuple[bytes, Exception | None]:
    """A ``fileio.ReadableFile``'s bytes, decompressed by extension, and None; for a damaged
    or oversized file the bytes before the damage (at most the cap) and the error (Beam's
    reader stops at a cut without one, and has no cap)."""
    with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        try:
            pieces = _pieces(handle, readable.metadata.path, max_decoded_bytes)
        except CompressionDamage as damage:
            return b"", damage.error
        return _collect(pieces)


def check_stream(readable: Any, *, max_decoded_bytes: int | None = None) -> Exception | None:
    """The damage of a ``fileio.ReadableFile``'s stream (decoded and discarded, in constant
    memory), or None when whole; an uncompressed file is checked against the cap only."""
    with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        try:
            for _ in _pieces(handle, readable.metadata.path, max_decoded_bytes):
                pass
        except CompressionDamage as damage:
            return damage.error
    return None


def iter_complete_lines(readable: Any, *, max_decoded_bytes: int | None = None,
                        max_line_bytes: int | None = None) -> Iterator[bytes | LongLine]:
    """The lines (with their ``\\n``) of a ``fileio.ReadableFile``, decompressed by extension,
    streamed; raises ``CompressionDamage`` after the last complete line before a damaged
    stream's error or the cap (a partial last line is then never yielded). With
    ``max_line_bytes``, a longer line is a ``LongLine`` (never held whole)."""
    with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        yield from _lines(_pieces(handle, readable.metadata.path, max_decoded_bytes),
                          max_line_bytes)


def iter_path_lines(path: str, *, max_decoded_bytes: int | None = None,
                    max_line_bytes: int | None = None) -> Iterator[bytes | LongLine]:
    """The same for a path on any Beam filesystem (opened raw and decoded here)."""
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        yield from _lines(_pieces(handle, path, max_decoded_bytes), max_line_bytes)


def _lines(pieces: Iterator[bytes], max_line_bytes: int | None = None
           ) -> Iterator[bytes | LongLine]:
    """Whole lines (with their ``\\n``) of a stream of pieces; a last line without one too
    (only once the stream ended cleanly: on an error the partial line is dropped). A line
    longer than ``max_line_bytes`` (None: no cap) is a ``LongLine``: the pending bytes never
    grow past the cap."""
    if max_line_bytes is not None and max_line_bytes < 1:
        raise ValueError(f"max_line_bytes must be at least 1, got {max_line_bytes}")
    limit = max_line_bytes
    pending: list[bytes] = []  # the start of a line spanning pieces
    size = 0  # bytes of the current line so far (counted also once it is dropped)
    head: bytes | None = None  # the start of a line past the cap, whose bytes are dropped
    for piece in pieces:
        start = 0
        while start < len(piece):
            end = piece.find(b"\n", start) + 1 or len(piece)
            part = piece[start:end]
            size += len(part)
            start = end
            if head is None and limit is not None and size > limit:
                head = b"".join(pending)[:LONG_LINE_HEAD]
                head += part[:LONG_LINE_HEAD - len(head)]
                pending = []
            if head is None:
                pending.append(part)
            if part.endswith(b"\n"):
                yield b"".join(pending) if head is None else LongLine(size, head, limit or 0)
                pending, size, head = [], 0, None
    if head is not None:
        yield LongLine(size, head, limit or 0)
    elif pending:  # a whole file's last line without its newline
        yield b"".join(pending)


def complete_lines(data: bytes) -> bytes:
    """``data`` without its last, unterminated line (the partial record of a damaged file)."""
    return data[:data.rfind(b"\n") + 1]
