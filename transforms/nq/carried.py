"""NQ examples as the bytes they are published as (``PackedExample``).

A fresh example is packed once, right after it is built (``packed_example``): its
``nq_original`` line as its gzip member, the bytes that format publishes, so the shuffle that
shards the release moves a compressed line (2-4x smaller than the example's Python values on
real NQ pages) and the HF row is made from that same line when its shard is written.

A carried example is not parsed and serialized again, and its bytes do not travel through
the job: the previous release's HF Parquet shard and its ``nq_original`` shard of the same
split and index hold the same questions in the same order (both writers shard the same rows
by the same sort key, salt and count), so a carried example is a reference, its row's index
in the Parquet shard and the byte range of its gzip member (``jsonl_gz_bytes`` writes one
member per example) in the ``nq_original`` file, with its key and page lengths. The writers
read those rows and members from the verified previous release when they write a shard
(``hf_parquet``, ``original_bytes`` with ``release``), and write them again as they are.
Files that do not pair up (their keys differ) are read as before, example by example; an
older release's file of a single gzip member is compressed again line by line, the members
travelling as bytes.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import zlib
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import Any, NamedTuple

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from transforms.core.arrow_memory import release_arrow_memory
from transforms.nq.examples import HF_SCHEMA, hf_example, jsonl_line, member_bytes
from transforms.nq.simplified import (
    SIMPLIFIED_SCHEMA,
    simplified_name,
    simplify_example,
)
from transforms.release.formats import parquet_bytes, table_bytes
from transforms.release.refresh.checked_read import PinnedFiles, Release, read_file

ORIGINAL_DIR = "nq_original"
_PARQUET_NAME = re.compile(r"^(?P<split>[^/]+)/(?P=split)-(?P<index>\d{5})-of-(?P<count>\d{5})"
                           r"\.parquet$")
_ORIGINAL_NAME = re.compile(rf"^{ORIGINAL_DIR}/(?P<split>[^/]+)/nq-(?P=split)-(?P<index>\d+)"
                            r"\.jsonl\.gz$")


@dataclass(frozen=True)
class PackedExample:
    """One example as its bytes and page lengths. Fresh: ``member``, its ``nq_original``
    gzip member. Carried by reference: row ``row`` of the previous release's Parquet shard
    ``parquet``, and bytes ``start:end`` of its ``nq_original`` file ``original`` (``""``:
    ``member`` holds them, compressed again). Carried as bytes (``materialized``): ``member``
    and ``hf_row``, its published Parquet row as a one-row Arrow IPC stream."""

    key: str
    member: bytes
    page_bytes: int
    page_tokens: int
    candidates: int
    parquet: str = ""
    row: int = -1
    original: str = ""
    start: int = 0
    end: int = 0
    hf_row: bytes = b""


Example = dict[str, Any] | PackedExample
_COMPRESSED = pa.ipc.IpcWriteOptions(compression="zstd")  # read back: the same row


class Line(NamedTuple):
    """One example's line of an ``nq_original`` file: its first ``LINE_HEAD`` bytes
    (``head``), and its gzip member: bytes ``start:end`` of the file, or ``member`` when it
    was compressed again (a member that held more lines)."""

    head: bytes
    start: int
    end: int
    member: bytes = b""


def packed_example(example: dict[str, Any]) -> PackedExample:
    """A fresh original-format example as its gzip member (``hf_parquet`` and
    ``original_bytes`` write the same bytes for it as for the example itself)."""
    page_bytes, page_tokens, candidates = (size for _, size in page_lengths(example))
    return PackedExample(example["question_text"], member_bytes(jsonl_line(example)),
                         page_bytes, page_tokens, candidates)


def example_key(example: Example) -> str:
    """The unit key (and sort key) of a fresh or carried example: its question text."""
    return example.key if isinstance(example, PackedExample) else example["question_text"]


def page_lengths(example: Example) -> list[tuple[str, int]]:
    """The page-length histogram values of a fresh or carried example."""
    if isinstance(example, PackedExample):
        sizes = (example.page_bytes, example.page_tokens, example.candidates)
    else:
        sizes = (len(example["document_html"].encode("utf-8")),
                 len(example["document_tokens"]), len(example["long_answer_candidates"]))
    return list(zip(("all/page_bytes", "all/page_tokens", "all/candidates_per_page"), sizes,
                    strict=True))


def original_bytes(rows: list[Example], schema: Any = None,
                   release: Release | None = None) -> bytes:
    """``nq_original`` file bytes: carried members as they are (read from ``release``, the
    previous release they were carried from), fresh examples compressed (the bytes
    ``jsonl_gz_bytes`` gives for the same examples)."""
    if not rows:
        return member_bytes(b"")
    files: dict[str, bytes] = {}
    return b"".join(_member(row, release, files) if isinstance(row, PackedExample)
                    else member_bytes(jsonl_line(row)) for row in rows)


def hf_parquet(rows: list[Example], schema: pa.Schema, release: Release | None = None
               ) -> bytes:
    """HF Parquet bytes of fresh and carried examples, in order (carried rows read from
    ``release``): the bytes ``parquet_bytes`` gives for the HF rows of the same examples
    (one chunk, written once)."""
    kinds = [_kind(row) for row in rows]
    if set(kinds) <= {FRESH}:
        return parquet_bytes([hf_example(_unpacked(row)) for row in rows], schema)
    references = [row for row, kind in zip(rows, kinds, strict=True) if kind == REFERENCE]
    carried = _published_rows(release, references) if references else None
    batches: list[pa.RecordBatch] = []
    position = 0
    for kind, group in groupby(rows, key=_kind):
        group = list(group)
        if kind == REFERENCE:
            batches += carried.slice(position, len(group)).to_batches()
            position += len(group)
        elif kind == BYTES:
            for row in group:
                batches += pa.ipc.open_stream(row.hf_row).read_all().to_batches()
        else:
            batches.append(pa.RecordBatch.from_pylist(
                [hf_example(_unpacked(row)) for row in group], schema=schema))
    data = table_bytes(pa.Table.from_batches(batches, schema=schema).combine_chunks())
    del carried, batches
    release_arrow_memory()  # the previous shard decoded, under the next shard's writing
    return data


def simplified_bytes(rows: list[Example], schema: Any = None,
                     release: Release | None = None) -> bytes:
    """The ``simplified`` file of one shard's examples, in order (what
    ``simplified.write_simplified`` makes of its ``nq_original`` file): an example carried by
    reference takes its row from the previous release's simplified file (the row of its line
    in the ``nq_original`` file it was carried from; each file read once), any other is
    simplified from its line. The bytes ``parquet_bytes`` gives for the rows as dicts."""
    tables: dict[str, pa.Table | None] = {}
    originals: dict[str, bytes] = {}

    def taken_from(row: Example) -> str:
        """The previous simplified file ``row``'s row is taken from (``""``: simplified)."""
        name, index = _simplified_source(row)
        if name and name not in tables:
            tables[name] = _previous_simplified(release, name)
        table = tables.get(name)
        return name if table is not None and index < table.num_rows else ""

    parts = [pa.Table.from_pylist([], schema=SIMPLIFIED_SCHEMA)]
    for name, group in groupby(rows, key=taken_from):
        if name:
            parts.append(tables[name].take(pa.array(
                [_simplified_source(row)[1] for row in group], pa.int64())))
        else:
            parts.append(pa.Table.from_pylist(
                [simplify_example(_example_of(row, release, originals)) for row in group],
                schema=SIMPLIFIED_SCHEMA))
    data = table_bytes(pa.concat_tables(parts).combine_chunks())
    parts.clear()
    tables.clear()
    release_arrow_memory()  # the previous simplified rows decoded
    return data


def _simplified_source(row: Example) -> tuple[str, int]:
    """The previous simplified file and row of an example carried by reference (``""``:
    none)."""
    if isinstance(row, PackedExample) and row.parquet and row.original:
        return simplified_name(row.original) or "", row.row
    return "", -1


def _previous_simplified(release: Release | None, name: str) -> pa.Table | None:
    """A simplified file of the previous release, of this version's schema; None when it has
    none (written before simplified files were) or another schema."""
    if release is None:
        return None
    listed = (name in release.sha256 if isinstance(release, PinnedFiles)
              else FileSystems.exists(FileSystems.join(release, *name.split("/"))))
    if not listed:
        return None
    table = pq.read_table(io.BytesIO(read_file(release, name)))
    return table.cast(SIMPLIFIED_SCHEMA) if table.schema.equals(SIMPLIFIED_SCHEMA) else None


def _example_of(row: Example, release: Release | None, originals: dict[str, bytes]
                ) -> dict[str, Any]:
    """The original-format example of any row: from its gzip member (``_member``)."""
    if isinstance(row, PackedExample):
        return json.loads(gzip.decompress(_member(row, release, originals)))
    return row


def _member(row: PackedExample, release: Release | None, files: dict[str, bytes]) -> bytes:
    """A packed example's gzip member: its own, or its byte range of the previous
    ``nq_original`` file it is carried from (read once into ``files``)."""
    if not row.original:
        return row.member
    if row.original not in files:
        files[row.original] = _read(release, row.original)
    return files[row.original][row.start:row.end]


FRESH, REFERENCE, BYTES = "fresh", "reference", "bytes"  # how an example's HF row is made


def _kind(row: Example) -> str:
    """Whether ``row``'s HF row is made from its line (``FRESH``), read from the previous
    release (``REFERENCE``) or carried as bytes (``BYTES``)."""
    if isinstance(row, PackedExample) and row.parquet:
        return REFERENCE
    if isinstance(row, PackedExample) and row.hf_row:
        return BYTES
    return FRESH


def materialized(rows: list[PackedExample], release: Release) -> list[PackedExample]:
    """Examples carried by reference as their bytes (``member`` and ``hf_row``), each file
    they refer to read once (``CarryMoved``: examples whose shard changes)."""
    table = _published_rows(release, rows)
    files: dict[str, bytes] = {}
    packed = []
    for index, row in enumerate(rows):
        sink = io.BytesIO()
        with pa.ipc.new_stream(sink, table.schema, options=_COMPRESSED) as writer:
            writer.write_table(table.slice(index, 1))
        member = _member(row, release, files)
        packed.append(PackedExample(row.key, member, row.page_bytes, row.page_tokens,
                                    row.candidates, hf_row=sink.getvalue()))
    return packed


def previous_shards(parquet: str) -> int:
    """The number of shards of the split of a previous Parquet shard, from its name (0: not
    a sharded name)."""
    match = _PARQUET_NAME.match(parquet)
    return int(match["count"]) if match else 0


def _read(release: Release | None, name: str) -> bytes:
    """A file of the previous release that carried examples refer to."""
    if release is None:
        raise ValueError(f"carried examples refer to {name}: the writer needs the previous "
                         f"release they were carried from")
    return read_file(release, name)  # checked against the verified manifest


def _published_rows(release: Release | None, rows: list[PackedExample]) -> pa.Table:
    """The published Parquet rows of carried examples, in the order of ``rows``: each shard
    they refer to read once, one row group at a time, keeping only their rows."""
    by_file: dict[str, set[int]] = {}
    for row in rows:
        by_file.setdefault(row.parquet, set()).add(row.row)
    parts, position = [], {}
    for name, numbers in by_file.items():
        wanted = sorted(numbers)
        shard = pq.ParquetFile(io.BytesIO(_read(release, name)))
        first = 0
        for index in range(shard.num_row_groups):
            count = shard.metadata.row_group(index).num_rows
            inside = wanted[bisect_left(wanted, first):bisect_left(wanted, first + count)]
            if inside:
                for number in inside:
                    position[name, number] = len(position)
                group = shard.read_row_group(index)
                parts.append(group if len(inside) == count else group.take(
                    pa.array([number - first for number in inside], pa.int64())))
            first += count
    missing = [f"{row.parquet} row {row.row}" for row in rows
               if (row.parquet, row.row) not in position]
    if missing:
        raise ValueError(f"carried rows not in the previous release: {missing[:3]}")
    order = [position[row.parquet, row.row] for row in rows]
    table = pa.concat_tables(parts)
    # rows in file order (a shard carried whole or in part, as nearly always) are not
    # copied again: each copy of the decoded pages adds to the writer's peak memory
    return table if order == list(range(len(order))) else table.take(
        pa.array(order, pa.int64()))


def _unpacked(row: Example) -> dict[str, Any]:
    """The original-format example of a fresh row (packed or not)."""
    return json.loads(gzip.decompress(row.member)) if isinstance(row, PackedExample) else row


LINE_HEAD = 1 << 14  # bytes of a carried line kept: its id and question, to pair it
WINDOW = 1 << 20  # compressed bytes fed to zlib at a time
CHUNK = 1 << 20  # decompressed bytes at a time


def _member_heads(data: bytes) -> Iterator[tuple[bytes, int, int, bool]]:
    """``(first LINE_HEAD decompressed bytes, start, end, whether it holds one line)`` of
    every gzip member ``data[start:end]``: each decompressed a chunk at a time without
    keeping the rest, fed at most ``WINDOW`` bytes at a time (zlib copies what it has not
    used: the whole rest of a file, once per member, would be quadratic)."""
    view, offset = memoryview(data), 0
    while offset < len(data):
        decompressor = zlib.decompressobj(wbits=31)
        fed, pending = offset, b""
        head, newlines, last = b"", 0, b""
        while not decompressor.eof:
            if not pending and fed < len(data):
                pending, fed = view[fed:fed + WINDOW], min(len(data), fed + WINDOW)
            chunk = decompressor.decompress(pending, CHUNK)
            pending = decompressor.unconsumed_tail
            if not chunk and not pending and fed == len(data) and not decompressor.eof:
                raise ValueError("truncated gzip member")
            head += chunk[:max(0, LINE_HEAD - len(head))]
            newlines, last = newlines + chunk.count(b"\n"), chunk[-1:] or last
        end = fed - len(decompressor.unused_data)
        yield head, offset, end, newlines == 1 and last == b"\n" and len(head) > 1
        offset = end


def example_members(data: bytes) -> list[Line]:
    """The ``Line`` of every example of an ``nq_original`` file (the first ``LINE_HEAD``
    bytes of its line: the whole lines of a shard of real pages would hold hundreds of MB);
    a member holding more than one line (an older release wrote one member per file) is
    compressed again line by line, as ``jsonl_gz_bytes`` now writes it."""
    lines = []
    for head, start, end, single in _member_heads(data):
        if single:
            lines.append(Line(head, start, end))
        else:
            texts = [text + b"\n" for text in gzip.decompress(data[start:end]).split(b"\n")
                     if text]
            lines += [Line(text[:LINE_HEAD], 0, 0, member_bytes(text)) for text in texts]
    return lines


def _line_start(example_id: str, question: str) -> bytes:
    """How ``jsonl_line`` begins the line of an example: its id, then its question."""
    return (f'{{"example_id": {example_id}, "question_text": '
            f'{json.dumps(question, ensure_ascii=False)}, ').encode()


def _parsed(split: str, data: bytes) -> Iterator[tuple[str, Example]]:
    for line in gzip.decompress(data).split(b"\n"):
        if line:
            yield split, json.loads(line)


def _same_examples(shard: pq.ParquetFile, lines: list[Line]) -> bool:
    """Whether a Parquet shard (its ids and questions only) and the ``nq_original`` lines and
    members of the same index hold the same examples in the same order."""
    if shard.metadata.num_rows != len(lines) or not shard.schema_arrow.equals(HF_SCHEMA):
        return False
    heads = shard.read(columns=["id", "question"])
    ids = heads.column("id").to_pylist()
    keys = pc.struct_field(heads.column("question"), "text").to_pylist()
    return all(line.head.startswith(_line_start(id_, key))
               for id_, key, line in zip(ids, keys, lines, strict=True))


LENGTH_COLUMNS = ["question.text", "document.html", "document.tokens.token",
                  "long_answer_candidates.start_token"]  # what a carried example keeps


def carried_rows(table: pa.Table, lines: list[Line], files: tuple[str, str], first: int
                 ) -> Iterator[PackedExample]:
    """The carried examples of rows ``first...`` of a Parquet shard (``LENGTH_COLUMNS``
    read) and their lines, by reference to ``files`` (the ``nq_original`` file and the
    Parquet shard)."""
    original, parquet = files
    document, candidates = table.column("document"), table.column("long_answer_candidates")
    keys = pc.struct_field(table.column("question"), "text").to_pylist()
    html = pc.binary_length(pc.struct_field(document, "html")).to_pylist()
    tokens = pc.list_value_length(pc.struct_field(document, ["tokens", "token"])).to_pylist()
    boxes = pc.list_value_length(pc.struct_field(candidates, "start_token")).to_pylist()
    for index, (key, line) in enumerate(zip(keys, lines, strict=True)):
        yield PackedExample(key, line.member, html[index], tokens[index] or 0,
                            boxes[index] or 0, parquet=parquet, row=first + index,
                            original="" if line.member else original, start=line.start,
                            end=line.end)


def read_carried(item: tuple[str, str, str], version_dir: Release
                 ) -> Iterator[tuple[str, Example]]:
    """``(split, example)`` of one ``nq_original`` file of the previous release and its
    paired Parquet shard (``""``: none): carried as bytes when both hold the same examples
    (by reference: ``PackedExample``; the lengths read one row group at a time, the pages
    decoded for them given back, ``release_arrow_memory``), else parsed
    (``dict``)."""
    split, original, parquet = item
    data = read_file(version_dir, original)  # checked against the verified manifest
    if parquet:
        shard = pq.ParquetFile(io.BytesIO(read_file(version_dir, parquet)))
        lines = example_members(data)
        if _same_examples(shard, lines):
            first = 0
            for index in range(shard.num_row_groups):
                group = shard.read_row_group(index, columns=LENGTH_COLUMNS)
                examples = list(carried_rows(group, lines[first:first + group.num_rows],
                                             (original, parquet), first))
                first += group.num_rows
                del group
                release_arrow_memory()  # the decoded pages, before the next stage's peak
                yield from ((split, example) for example in examples)
            return
    yield from _parsed(split, data)


def paired_files(all_files: tuple[str, ...], splits: tuple[str, ...]
                 ) -> list[tuple[str, str, str]]:
    """``(split, nq_original name, Parquet shard name or "")`` of every ``nq_original`` file
    of a release's ``splits``: ``nq-<split>-<i>`` pairs with Parquet shard ``i`` when both
    formats of the split have the same shards."""
    originals: dict[str, dict[str, int | None]] = {}
    shards: dict[str, dict[int, str]] = {}
    for name in all_files:
        parts = name.split("/")
        if len(parts) == 3 and parts[0] == ORIGINAL_DIR and name.endswith(".jsonl.gz"):
            match = _ORIGINAL_NAME.match(name)
            originals.setdefault(parts[1], {})[name] = int(match["index"]) if match else None
        elif match := _PARQUET_NAME.match(name):
            shards.setdefault(match["split"], {})[int(match["index"])] = name
    items = []
    for split in splits:
        own, parquet = originals.get(split, {}), shards.get(split, {})
        indexes = list(own.values())
        paired = None not in indexes and sorted(indexes) == sorted(parquet)
        items += [(split, name, parquet[index] if paired else "")
                  for name, index in sorted(own.items())]
    return items
