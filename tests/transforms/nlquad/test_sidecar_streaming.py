"""The NLQuAD refresh sidecar is read a line at a time, each line bounded: the reader never
asks its file for more than ``MAX_LINE_BYTES + 1`` bytes at once, whatever the file's size
(a 201 MB sidecar took 1.8 GB when it was read whole), and a longer line is a damaged
release. Asserted on what the reader asks for, not on the machine's memory."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from transforms.nlquad import sidecar
from transforms.nlquad.sidecar import (
    PREFIX,
    CapturedDocument,
    SidecarLineTooLong,
    read_sidecar_file,
    sidecar_lines,
)
from transforms.release.refresh.checked_read import ChangedSinceVerified, PinnedFiles
from transforms.release.verify import DamagedReleaseError

NAME = f"{PREFIX}captures-00000-of-00001.jsonl"


def document(i: int) -> CapturedDocument:
    return CapturedDocument(
        capture_url=f"https://www.bbc.co.uk/news/world-{i}", capture_timestamp="20200101000000",
        digest="A" * 32, document_id=f"doc-{i}", asset_key=str(i),
        canonical_url=f"https://www.bbc.com/news/world-{i}", published="2020-01-01T00:00:00Z",
        is_amp=False, text=f"{i:040x}", paragraphs=tuple(f"{i + k:040x}" for k in range(5)),
        split="train", questions=1, lengths={"words": 300}, answer_sentences=(2,))


def sidecar_bytes(count: int) -> bytes:
    return b"".join(json.dumps(document(i).to_json()).encode("utf-8") + b"\n"
                    for i in range(count))


class WatchedFile(io.BytesIO):
    """A file that records every size asked of it and refuses an unbounded read."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.asked: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            raise AssertionError("the whole file was read at once")
        self.asked.append(size)
        return super().read(size)

    def readline(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            raise AssertionError("a line was read without a bound")
        self.asked.append(size)
        return super().readline(size)

    def __next__(self) -> bytes:
        raise AssertionError("a line was read without a bound (iteration)")


def test_the_sidecar_is_read_a_bounded_line_at_a_time(monkeypatch):
    data = sidecar_bytes(300)
    watched = WatchedFile(data)
    monkeypatch.setattr(sidecar, "open_file", lambda release, name: watched)
    monkeypatch.setattr(sidecar, "MAX_LINE_BYTES", 4096)
    documents = list(read_sidecar_file(NAME, "/nowhere"))
    assert [d.document_id for d in documents] == [f"doc-{i}" for i in range(300)]
    assert documents[7] == document(7)
    assert len(watched.asked) == 301 and set(watched.asked) == {4097}  # 300 lines, then EOF


def test_a_line_past_the_cap_is_a_damaged_release_naming_it(monkeypatch):
    data = sidecar_bytes(3) + b'{"text": "' + b"x" * 10_000 + b'"}\n' + sidecar_bytes(1)
    monkeypatch.setattr(sidecar, "open_file", lambda release, name: WatchedFile(data))
    monkeypatch.setattr(sidecar, "MAX_LINE_BYTES", 4096)
    read = read_sidecar_file(NAME, "/releases/nlquad/1.0.0")
    assert [next(read).document_id for _ in range(3)] == ["doc-0", "doc-1", "doc-2"]
    with pytest.raises(SidecarLineTooLong, match=r"1\.0\.0: refresh/captures/captures-00000-of-"
                                                 r"00001\.jsonl: line 4 is longer than 4096"):
        next(read)
    assert issubclass(SidecarLineTooLong, DamagedReleaseError)  # exit 5


def test_lines_of_exactly_the_cap_pass_and_a_last_line_needs_no_newline():
    assert list(sidecar_lines(io.BytesIO(b"abc\n" + b"d" * 8), "f", 8)) == [b"abc\n", b"d" * 8]
    with pytest.raises(SidecarLineTooLong, match="f: line 2"):
        list(sidecar_lines(io.BytesIO(b"abc\n" + b"d" * 9), "f", 8))


def _release(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path.joinpath(*NAME.split("/"))
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    return tmp_path


def test_the_streamed_read_checks_a_pinned_release_file(tmp_path):
    """Compatible with the hashing reader of a verified previous release: the lines stream
    through it, and a file changed since it was verified fails at its end."""
    data = sidecar_bytes(50)
    root = _release(tmp_path, data)
    pinned = PinnedFiles(str(root), {NAME: hashlib.sha256(data).hexdigest()})
    assert len(list(read_sidecar_file(NAME, pinned))) == 50
    changed = PinnedFiles(str(root), {NAME: hashlib.sha256(b"other").hexdigest()})
    with pytest.raises(ChangedSinceVerified):
        list(read_sidecar_file(NAME, changed))


def test_a_plain_directory_streams_too(tmp_path):
    root = _release(tmp_path, sidecar_bytes(20) + b"\n")
    found: list[Any] = list(read_sidecar_file(NAME, str(root)))
    assert [d.document_id for d in found] == [f"doc-{i}" for i in range(20)]
