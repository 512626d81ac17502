"""Compressed input read by us (transforms.sources.compressed): whole, truncated, corrupt."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib

import pytest

from transforms.sources.compressed import (
    CHUNK,
    CORRUPT_COMPRESSION,
    TRUNCATED_COMPRESSION,
    CompressionDamage,
    check_stream,
    decompress,
    iter_complete_lines,
)


class _Metadata:
    def __init__(self, path):
        self.path = path


class _Readable:
    """The part of ``fileio.ReadableFile`` the helpers use, over a local file."""

    def __init__(self, path):
        self.metadata = _Metadata(str(path))

    def open(self, compression_type=None):
        return open(self.metadata.path, "rb")


def _gunzip():
    return zlib.decompressobj(wbits=31)


def test_a_later_member_past_the_first_members_last_chunk_is_read():
    # the first member ends early in a chunk and the second is longer than that chunk's rest:
    # the old reader dropped the bytes after that chunk and called the file truncated
    first, second = os.urandom(30_000), os.urandom(3 * CHUNK)
    data = gzip.compress(first) + gzip.compress(second) + b"\0" * 10
    assert decompress(data, _gunzip) == (first + second, None)


@pytest.mark.parametrize("suffix,compress,factory", [
    (".gz", gzip.compress, _gunzip),
    (".bz2", lambda data: bz2.compress(data, 1), bz2.BZ2Decompressor),
    (".xz", lzma.compress, lzma.LZMADecompressor)])
def test_whole_and_truncated_streams_yield_complete_lines_only(tmp_path, suffix, compress,
                                                                factory):
    text = b"".join(b"record %d %s\n" % (i, os.urandom(8).hex().encode()) for i in range(20_000))
    whole = tmp_path / f"whole{suffix}"
    whole.write_bytes(compress(text))
    assert b"".join(iter_complete_lines(_Readable(whole))) == text
    assert check_stream(_Readable(whole)) is None
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(compress(text)[:len(compress(text)) * 2 // 3])
    lines = []
    with pytest.raises(CompressionDamage) as damage:
        for line in iter_complete_lines(_Readable(cut)):
            lines.append(line)
    assert damage.value.reason == TRUNCATED_COMPRESSION
    assert lines and all(line.endswith(b"\n") for line in lines)
    assert text.startswith(b"".join(lines))
    assert isinstance(check_stream(_Readable(cut)), EOFError)


def test_corrupt_stream_is_named_corrupt(tmp_path):
    text = b"".join(b"line %d\n" % i for i in range(50_000))
    broken = bytearray(gzip.compress(text))
    broken[len(broken) // 2:len(broken) // 2 + 50] = b"\xff" * 50
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes(bytes(broken))
    error = check_stream(_Readable(path))
    assert error is not None and not isinstance(error, EOFError)
    with pytest.raises(CompressionDamage) as damage:
        list(iter_complete_lines(_Readable(path)))
    assert damage.value.reason == CORRUPT_COMPRESSION


def test_uncompressed_file_lines_are_read_as_they_are(tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_bytes(b"a\nb\nlast")
    assert list(iter_complete_lines(_Readable(path))) == [b"a\n", b"b\n", b"last"]
    assert check_stream(_Readable(path)) is None
