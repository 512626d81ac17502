"""Compressed input read by us rather than Beam, so a damaged stream is reported, not cut short.

Beam's reader stops at a truncated ``.gz``/``.bz2``/``.xz`` stream without an error, so a file
losing its tail is silent. These helpers decompress gzip, deflate, bzip2 and xz/lzma (every
stream of a multi-stream file; trailing zero padding allowed, as by gzip) and name the damage:

* ``truncated_compression`` (the error is an ``EOFError``): the data ends before its
  end-of-stream marker; what was decoded is the file's start, so the complete records before
  the cut may be kept (never a partial last line, see ``complete_lines``);
* ``corrupt_compression`` (any other error): a stream's checksum is checked only at its end,
  so the records before the error may already be garbage; keep none.
"""

from __future__ import annotations

import bz2
import lzma
import zlib
from collections.abc import Callable, Iterator
from typing import Any

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

TRUNCATED_COMPRESSION = "truncated_compression"
CORRUPT_COMPRESSION = "corrupt_compression"
CHUNK = 1 << 14  # compressed bytes fed at a time: what a damaged stream keeps is exact to this

DECOMPRESSORS: dict[str, Callable[[], Any]] = {
    CompressionTypes.GZIP: lambda: zlib.decompressobj(wbits=31),
    CompressionTypes.DEFLATE: zlib.decompressobj,
    CompressionTypes.BZIP2: bz2.BZ2Decompressor,
    CompressionTypes.LZMA: lzma.LZMADecompressor,
}
_ERRORS = (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError)


class CompressionDamage(Exception):
    """A damaged compressed stream: ``reason`` and the decompressor's ``error``."""

    def __init__(self, error: Exception):
        super().__init__(str(error))
        self.error = error
        self.reason = damage_reason(error)


def damage_reason(error: Exception) -> str:
    """``truncated_compression`` for an ``EOFError``, else ``corrupt_compression``."""
    return TRUNCATED_COMPRESSION if isinstance(error, EOFError) else CORRUPT_COMPRESSION


def decompressor_for(path: str) -> Callable[[], Any] | None:
    """The decompressor factory of ``path`` by its extension, or None (not compressed)."""
    return DECOMPRESSORS.get(CompressionTypes.detect_compression_type(path))


def iter_decompressed(read: Callable[[int], bytes],
                      new_decompressor: Callable[[], Any]) -> Iterator[bytes]:
    """The decompressed pieces of every stream read from ``read(size)`` (a raw file handle's
    ``read``); raises ``CompressionDamage`` after the last good piece of a damaged stream. The
    input is fed ``CHUNK`` bytes at a time from each stream's start, so the output before an
    error is exact to ``CHUNK`` bytes."""
    buffer = b""
    exhausted = False

    def take() -> bytes:
        nonlocal buffer, exhausted
        while len(buffer) < CHUNK and not exhausted:
            more = read(CHUNK)
            exhausted = not more
            buffer += more
        piece, buffer = buffer[:CHUNK], buffer[CHUNK:]
        return piece

    while True:
        decompressor = new_decompressor()
        while not decompressor.eof:
            piece = take()
            if not piece:
                break
            try:
                out = decompressor.decompress(piece)
            except _ERRORS as error:
                raise CompressionDamage(error) from error
            if out:
                yield out
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


def decompress(raw: bytes, new_decompressor: Callable[[], Any]) -> tuple[bytes, Exception | None]:
    """Every stream of ``raw`` decompressed, and the error where the data ends early (an
    EOFError) or is corrupt (None when whole); the output before the error is kept, to
    ``CHUNK`` bytes."""
    out: list[bytes] = []
    position = 0

    def read(size: int) -> bytes:
        nonlocal position
        piece = raw[position:position + size]
        position += len(piece)
        return piece

    try:
        for piece in iter_decompressed(read, new_decompressor):
            out.append(piece)
    except CompressionDamage as damage:
        return b"".join(out), damage.error
    return b"".join(out), None


def read_decompressed(readable: Any) -> tuple[bytes, Exception | None]:
    """A ``fileio.ReadableFile``'s bytes, decompressed by extension; for a damaged compressed
    file the bytes before the damage and the error (Beam's reader stops there without one)."""
    new_decompressor = decompressor_for(readable.metadata.path)
    if new_decompressor is None:
        return readable.read(), None
    with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        raw = handle.read()
    return decompress(raw, new_decompressor)


def check_stream(readable: Any) -> Exception | None:
    """The damage of a ``fileio.ReadableFile``'s compressed stream (decompressed and discarded,
    in constant memory), or None when whole or not compressed."""
    new_decompressor = decompressor_for(readable.metadata.path)
    if new_decompressor is None:
        return None
    with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        try:
            for _ in iter_decompressed(handle.read, new_decompressor):
                pass
        except CompressionDamage as damage:
            return damage.error
    return None


def iter_complete_lines(readable: Any) -> Iterator[bytes]:
    """The lines (with their ``\\n``) of a ``fileio.ReadableFile``, decompressed by extension,
    streamed; raises ``CompressionDamage`` after the last complete line before a damaged
    stream's error (its partial last line is never yielded)."""
    new_decompressor = decompressor_for(readable.metadata.path)
    if new_decompressor is None:  # not compressed, or a type we leave to Beam (zstd)
        with readable.open() as handle:
            yield from iter(handle.readline, b"")
        return
    with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        yield from _lines(iter_decompressed(handle.read, new_decompressor))


def iter_path_lines(path: str) -> Iterator[bytes]:
    """The same for a path on any Beam filesystem (opened raw: gzip, deflate, bzip2 and xz are
    decompressed here, anything else is read as it is)."""
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        new_decompressor = decompressor_for(path)
        yield from _lines(iter(lambda: handle.read(CHUNK), b"") if new_decompressor is None
                          else iter_decompressed(handle.read, new_decompressor))


def _lines(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """Whole lines (with their ``\\n``) of a stream of pieces; a last line without one too."""
    pending: list[bytes] = []  # the start of a line spanning pieces
    for piece in pieces:
        start = 0
        end = piece.find(b"\n") + 1
        while end:
            pending.append(piece[start:end])
            yield b"".join(pending)
            pending = []
            start = end
            end = piece.find(b"\n", start) + 1
        if start < len(piece):
            pending.append(piece[start:])
    if pending:  # a whole file's last line without its newline
        yield b"".join(pending)


def complete_lines(data: bytes) -> bytes:
    """``data`` without its last, unterminated line (the partial record of a damaged file)."""
    return data[:data.rfind(b"\n") + 1]
