"""``transforms.core.files``: Beam's ``FileSystems`` without importing Beam for local paths,
checked against Beam's own on the same files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from apache_beam.io.filesystem import BeamIOError
from apache_beam.io.filesystem import CompressionTypes as BeamCompressionTypes
from apache_beam.io.filesystems import FileSystems as BeamFileSystems

from transforms.core import files
from transforms.core.files import CompressionTypes, FileSystems


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    for name in ("a.jsonl", "b.jsonl", "c.txt", "sub/d.jsonl", "sub/deep/e.jsonl",
                 "x1.gz", "x2.gz", "[odd].jsonl", "sp ace/f.jsonl"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(name.encode() * 3)
    (tmp_path / "empty").mkdir()
    return tmp_path


PATTERNS = ["*.jsonl", "**.jsonl", "**/*.jsonl", "sub/*", "sub/**", "sub/", "x?.gz",
            "x[12].gz", "x[!1].gz", "x[1-2].gz", "a.jsonl", "sub", "missing.jsonl",
            "missing/*", "empty/*", "sp ace/*.jsonl", "*", "c.tx[", "**"]


def _matched(results: list) -> list[list[tuple]]:
    return [[(m.path, m.size_in_bytes, m.last_updated_in_seconds) for m in r.metadata_list]
            for r in results]


def test_match_finds_what_beams_finds(tree: Path) -> None:
    patterns = [str(tree / p) for p in PATTERNS]
    assert _matched(FileSystems.match(patterns)) == _matched(BeamFileSystems.match(patterns))
    ours = FileSystems.match(patterns, [1] * len(patterns))
    assert _matched(ours) == _matched(BeamFileSystems.match(patterns, [1] * len(patterns)))
    assert [r.pattern for r in FileSystems.match(patterns)] == \
        [r.pattern for r in BeamFileSystems.match(patterns)]


def test_match_of_a_relative_pattern(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    for pattern in ("./*.jsonl", "sub/*.jsonl", "*.jsonl", "sub/deep/e.jsonl"):
        assert _matched(FileSystems.match([pattern])) == \
            _matched(BeamFileSystems.match([pattern]))


def test_a_failed_match_is_beams_error(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def gone(path: str) -> int:
        raise FileNotFoundError(path)

    monkeypatch.setattr(files.os.path, "getsize", gone)
    with pytest.raises(BeamIOError, match="Match operation failed"):
        FileSystems.match([str(tree / "a.jsonl")])


def test_paths_join_split_exist_as_beams(tree: Path) -> None:
    for base, parts in ((str(tree), ("a", "b.txt")), ("rel", ("x",)), (str(tree) + "/", ("y",)),
                        (str(tree), ("/abs",))):
        assert FileSystems.join(base, *parts) == BeamFileSystems.join(base, *parts)
    for path in (str(tree / "a.jsonl"), "relative/x", str(tree) + "/", "x"):
        assert FileSystems.split(path) == BeamFileSystems.split(path)
    for path in (str(tree / "a.jsonl"), str(tree / "sub"), str(tree / "nope")):
        assert FileSystems.exists(path) == BeamFileSystems.exists(path)


def test_open_and_create_are_raw_local_files(tree: Path) -> None:
    raw = CompressionTypes.UNCOMPRESSED
    target = tree / "new" / "dir" / "out.gz"
    with FileSystems.create(str(target), compression_type=raw) as handle:
        handle.write(b"not gzip")
    assert target.read_bytes() == b"not gzip"
    with FileSystems.open(str(target), compression_type=raw) as handle:
        assert handle.read() == b"not gzip"
    with FileSystems.open(str(tree / "a.jsonl")) as ours, \
            BeamFileSystems.open(str(tree / "a.jsonl")) as beams:
        assert ours.read() == beams.read()


def test_a_compressed_local_file_is_opened_by_beam(tree: Path) -> None:
    with FileSystems.create(str(tree / "z.gz")) as handle:  # AUTO: gzip by its extension
        handle.write(b"hello")
    assert (tree / "z.gz").read_bytes()[:2] == b"\x1f\x8b"
    with FileSystems.open(str(tree / "z.gz")) as handle:
        assert handle.read() == b"hello"


def test_only_a_path_with_a_scheme_is_not_local() -> None:
    for path in ("/a/b", "a/b", "./x://y", "C:/x", " /x"):
        assert files.is_local_path(path) == (BeamFileSystems.get_scheme(path) is None)
    for path in ("gs://bucket/x", "s3://b/x", "hf://datasets/a", " gs://b/x"):
        assert not files.is_local_path(path)
        assert BeamFileSystems.get_scheme(path) is not None


def test_compression_types_are_beams() -> None:
    for name in ("AUTO", "BZIP2", "DEFLATE", "ZSTD", "GZIP", "LZMA", "UNCOMPRESSED"):
        assert getattr(CompressionTypes, name) == getattr(BeamCompressionTypes, name)
        value = getattr(CompressionTypes, name)
        assert CompressionTypes.is_valid_compression_type(value)
    assert not CompressionTypes.is_valid_compression_type("snappy")
    for name in ("a.gz", "a.GZ", "a.bz2", "a.deflate", "a.zst", "a.zstd", "a.xz", "a.lzma",
                 "a.jsonl", "a.tar", "gz", "a.gz.txt", os.path.join("d.gz", "f")):
        assert CompressionTypes.detect_compression_type(name) == \
            BeamCompressionTypes.detect_compression_type(name)
