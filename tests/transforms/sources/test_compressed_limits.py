"""zstd is checked like the others, and no input decodes past its cap (issue 23 §5, §15)."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib

import pytest
import zstandard

from transforms.sources.compressed import (
    CORRUPT_COMPRESSION,
    DECODED_TOO_LARGE,
    DEFAULT_MAX_DECODED_BYTES,
    TRUNCATED_COMPRESSION,
    CompressionDamage,
    check_stream,
    damage_reason,
    decompressor_for,
    iter_complete_lines,
    iter_path_lines,
    read_decompressed,
)

CAP = 1 << 20  # 1 MiB: every bomb below decodes to 8 MiB or more


class _Metadata:
    def __init__(self, path):
        self.path = str(path)


class _Readable:
    """The part of ``fileio.ReadableFile`` the helpers use, over a local file."""

    def __init__(self, path):
        self.metadata = _Metadata(path)

    def open(self, compression_type=None):
        return open(self.metadata.path, "rb")


def _zstd(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


COMPRESSORS = {
    ".gz": gzip.compress,
    ".deflate": zlib.compress,
    ".bz2": lambda data: bz2.compress(data, 1),
    ".xz": lzma.compress,
    ".lzma": lambda data: lzma.compress(data, format=lzma.FORMAT_ALONE),
    ".zst": _zstd,
    ".zstd": _zstd,
}
TEXT = b"".join(b"record %d %s\n" % (i, os.urandom(8).hex().encode()) for i in range(20_000))


def test_every_compression_beam_detects_has_a_checked_decompressor():
    for suffix in COMPRESSORS:
        assert decompressor_for(f"file.jsonl{suffix}") is not None, suffix
    assert decompressor_for("file.jsonl") is None


@pytest.mark.parametrize("suffix", [".zst", ".zstd"])
def test_a_truncated_zstd_file_is_named_truncated(tmp_path, suffix):
    # Beam decodes .zst transparently and stops at the cut without an error
    packed = _zstd(TEXT)
    whole, cut = tmp_path / f"whole.jsonl{suffix}", tmp_path / f"cut.jsonl{suffix}"
    whole.write_bytes(packed + _zstd(b"second frame\n"))
    cut.write_bytes(packed[:len(packed) * 2 // 3])
    assert read_decompressed(_Readable(whole)) == (TEXT + b"second frame\n", None)
    assert check_stream(_Readable(whole)) is None
    data, error = read_decompressed(_Readable(cut))
    assert damage_reason(error) == TRUNCATED_COMPRESSION and TEXT.startswith(data)
    lines = []
    with pytest.raises(CompressionDamage) as damage:
        for line in iter_complete_lines(_Readable(cut)):
            lines.append(line)
    assert damage.value.reason == TRUNCATED_COMPRESSION
    assert lines and TEXT.startswith(b"".join(lines)) and lines[-1].endswith(b"\n")


def test_a_corrupt_zstd_file_is_named_corrupt(tmp_path):
    broken = bytearray(_zstd(TEXT))
    broken[len(broken) // 2:len(broken) // 2 + 40] = b"\xff" * 40
    path = tmp_path / "bad.jsonl.zst"
    path.write_bytes(bytes(broken))
    assert damage_reason(check_stream(_Readable(path))) == CORRUPT_COMPRESSION


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_a_bomb_stops_at_the_cap(tmp_path, suffix):
    path = tmp_path / f"bomb.tsv{suffix}"
    path.write_bytes(COMPRESSORS[suffix](b"\0" * (8 * CAP)))
    data, error = read_decompressed(_Readable(path), max_decoded_bytes=CAP)
    assert damage_reason(error) == DECODED_TOO_LARGE and len(data) <= CAP
    assert damage_reason(check_stream(_Readable(path), max_decoded_bytes=CAP)) == (
        DECODED_TOO_LARGE)
    with pytest.raises(CompressionDamage) as damage:
        list(iter_complete_lines(_Readable(path), max_decoded_bytes=CAP))
    assert damage.value.reason == DECODED_TOO_LARGE
    with pytest.raises(CompressionDamage) as damage:
        list(iter_path_lines(str(path), max_decoded_bytes=CAP))
    assert damage.value.reason == DECODED_TOO_LARGE


def test_a_file_of_exactly_the_cap_is_read_and_one_byte_more_is_not(tmp_path):
    path = tmp_path / "edge.txt.gz"
    path.write_bytes(gzip.compress(b"x" * CAP))
    assert read_decompressed(_Readable(path), max_decoded_bytes=CAP) == (b"x" * CAP, None)
    _, error = read_decompressed(_Readable(path), max_decoded_bytes=CAP - 1)
    assert damage_reason(error) == DECODED_TOO_LARGE


def test_uncompressed_files_are_capped_too(tmp_path):
    path = tmp_path / "big.tsv"
    path.write_bytes(b"a\n" * CAP)
    data, error = read_decompressed(_Readable(path), max_decoded_bytes=CAP)
    assert damage_reason(error) == DECODED_TOO_LARGE and len(data) <= CAP
    assert damage_reason(check_stream(_Readable(path), max_decoded_bytes=CAP)) == (
        DECODED_TOO_LARGE)
    assert read_decompressed(_Readable(path), max_decoded_bytes=2 * CAP) == (b"a\n" * CAP, None)


def test_the_default_cap_applies_when_none_is_given(tmp_path):
    path = tmp_path / "small.txt.bz2"
    path.write_bytes(bz2.compress(b"line\n" * 10))
    assert DEFAULT_MAX_DECODED_BYTES >= 1 << 20
    assert read_decompressed(_Readable(path), max_decoded_bytes=None) == (b"line\n" * 10, None)


def test_a_bzip2_bomb_is_decoded_in_bounded_pieces(tmp_path):
    # bzip2 inflates 40 bytes to megabytes: one call without a bound would hold it all
    path = tmp_path / "bomb.bz2"
    path.write_bytes(bz2.compress(b"\0" * (64 * CAP), 9))
    assert path.stat().st_size < 1000
    from transforms.sources.compressed import iter_decompressed

    with open(path, "rb") as handle:
        pieces = iter_decompressed(handle.read, bz2.BZ2Decompressor, 2 * CAP)
        sizes = []
        with pytest.raises(CompressionDamage):
            for piece in pieces:
                sizes.append(len(piece))
    assert max(sizes) <= 1 << 16 and sum(sizes) <= 2 * CAP
