"""NQ examples as the bytes they are published as (``PackedExample``).

A fresh example is packed once, right after it is built (``packed_example``): its
``nq_original`` line as its gzip member, the bytes that format publishes, so the shuffle that
shards the release moves a compressed line (2-4x smaller than the example's Python values on
real NQ pages) and the HF row is made from that same line when its shard is written. A carried
example is not parsed and serialized again: the previous release's HF Parquet shard
and its ``nq_original`` shard of the same split and index hold the same questions in the same
order (both writers shard the same rows by the same sort key, salt and count), so each row is
read as its Parquet row (a one-row Arrow IPC stream) and its gzip member (``jsonl_gz_bytes``
writes one member per example), and written again as they are (``hf_parquet``,
``original_bytes``). Files that do not pair up (their keys differ, or an older release wrote a
single gzip member) are read as before, example by example, or re-compressed line by line.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from transforms.nq.examples import HF_SCHEMA, hf_example, jsonl_line, member_bytes
from transforms.release.formats import parquet_bytes, table_bytes
from transforms.release.refresh.checked_read import Release, read_file

ORIGINAL_DIR = "nq_original"
_PARQUET_NAME = re.compile(r"^(?P<split>[^/]+)/(?P=split)-(?P<index>\d{5})-of-(?P<count>\d{5})"
                           r"\.parquet$")
_ORIGINAL_NAME = re.compile(rf"^{ORIGINAL_DIR}/(?P<split>[^/]+)/nq-(?P=split)-(?P<index>\d+)"
                            r"\.jsonl\.gz$")


@dataclass(frozen=True)
class PackedExample:
    """One example as its bytes: ``member`` (its ``nq_original`` gzip member), its page
    lengths and, when carried, ``hf_row`` (its published Parquet row as a one-row Arrow IPC
    stream; empty: the row is made from ``member``)."""

    key: str
    member: bytes
    page_bytes: int
    page_tokens: int
    candidates: int
    hf_row: bytes = b""


Example = dict[str, Any] | PackedExample
_COMPRESSED = pa.ipc.IpcWriteOptions(compression="zstd")  # read back: the same row


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


def original_bytes(rows: list[Example], schema: Any = None) -> bytes:
    """``nq_original`` file bytes: carried members as they are, fresh examples compressed
    (the bytes ``jsonl_gz_bytes`` gives for the same examples)."""
    if not rows:
        return member_bytes(b"")
    return b"".join(row.member if isinstance(row, PackedExample)
                    else member_bytes(jsonl_line(row)) for row in rows)


def hf_parquet(rows: list[Example], schema: pa.Schema) -> bytes:
    """HF Parquet bytes of fresh and carried examples, in order: the bytes ``parquet_bytes``
    gives for the HF rows of the same examples (one chunk, written once)."""
    if not any(_published(row) for row in rows):
        return parquet_bytes([hf_example(_unpacked(row)) for row in rows], schema)
    batches: list[pa.RecordBatch] = []
    for carried, group in groupby(rows, key=_published):
        if carried:
            for row in group:
                batches += pa.ipc.open_stream(row.hf_row).read_all().to_batches()
        else:
            batches.append(pa.RecordBatch.from_pylist(
                [hf_example(_unpacked(row)) for row in group], schema=schema))
    return table_bytes(pa.Table.from_batches(batches, schema=schema).combine_chunks())


def _published(row: Example) -> bool:
    """Whether ``row`` carries its published Parquet row."""
    return isinstance(row, PackedExample) and bool(row.hf_row)


def _unpacked(row: Example) -> dict[str, Any]:
    """The original-format example of a fresh row (packed or not)."""
    return json.loads(gzip.decompress(row.member)) if isinstance(row, PackedExample) else row


LINE_HEAD = 1 << 14  # bytes of a carried line kept: its id and question, to pair it


def _member_heads(data: bytes) -> Iterator[tuple[bytes, bytes, bool]]:
    """``(first LINE_HEAD decompressed bytes, member, whether it holds one line)`` of every
    gzip member of ``data``, decompressed a chunk at a time without keeping the rest."""
    while data:
        decompressor = zlib.decompressobj(wbits=31)
        head = decompressor.decompress(data, LINE_HEAD)
        newlines, last = head.count(b"\n"), head[-1:]
        while not decompressor.eof:
            tail = decompressor.unconsumed_tail
            chunk = decompressor.decompress(tail, 1 << 20)
            if not chunk and not tail and not decompressor.eof:
                raise ValueError("truncated gzip member")
            newlines, last = newlines + chunk.count(b"\n"), chunk[-1:] or last
        end = len(data) - len(decompressor.unused_data)
        yield head, data[:end], newlines == 1 and last == b"\n" and len(head) > 1
        data = decompressor.unused_data


def example_members(data: bytes) -> list[tuple[bytes, bytes]]:
    """``(line head, member)`` of every example of an ``nq_original`` file (the first
    ``LINE_HEAD`` bytes of its line: the whole lines of a shard of real pages would hold
    hundreds of MB); a member holding more than one line (an older release wrote one member
    per file) is compressed again line by line, as ``jsonl_gz_bytes`` now writes it."""
    pairs = []
    for head, member, single in _member_heads(data):
        if single:
            pairs.append((head, member))
        else:
            lines = [line + b"\n" for line in gzip.decompress(member).split(b"\n") if line]
            pairs += [(line[:LINE_HEAD], member_bytes(line)) for line in lines]
    return pairs


def _line_start(example_id: str, question: str) -> bytes:
    """How ``jsonl_line`` begins the line of an example: its id, then its question."""
    return (f'{{"example_id": {example_id}, "question_text": '
            f'{json.dumps(question, ensure_ascii=False)}, ').encode()


def _parsed(split: str, data: bytes) -> Iterator[tuple[str, Example]]:
    for line in gzip.decompress(data).split(b"\n"):
        if line:
            yield split, json.loads(line)


def _same_examples(shard: pq.ParquetFile, pairs: list[tuple[bytes, bytes]]) -> bool:
    """Whether a Parquet shard (its ids and questions only) and the ``nq_original`` lines and
    members of the same index hold the same examples in the same order."""
    if shard.metadata.num_rows != len(pairs) or not shard.schema_arrow.equals(HF_SCHEMA):
        return False
    heads = shard.read(columns=["id", "question"])
    ids = heads.column("id").to_pylist()
    keys = pc.struct_field(heads.column("question"), "text").to_pylist()
    return all(line.startswith(_line_start(id_, key))
               for id_, key, (line, _) in zip(ids, keys, pairs, strict=True))


def carried_rows(table: pa.Table, pairs: list[tuple[bytes, bytes]]
                 ) -> Iterator[PackedExample]:
    """The carried examples of rows of a Parquet shard and their lines and members."""
    document, candidates = table.column("document"), table.column("long_answer_candidates")
    keys = pc.struct_field(table.column("question"), "text").to_pylist()
    html = pc.binary_length(pc.struct_field(document, "html")).to_pylist()
    tokens = pc.list_value_length(pc.struct_field(document, ["tokens", "token"])).to_pylist()
    boxes = pc.list_value_length(pc.struct_field(candidates, "start_token")).to_pylist()
    for index, (key, (_, member)) in enumerate(zip(keys, pairs, strict=True)):
        sink = io.BytesIO()
        with pa.ipc.new_stream(sink, table.schema, options=_COMPRESSED) as writer:
            writer.write_table(table.slice(index, 1))
        yield PackedExample(key, member, html[index], tokens[index] or 0, boxes[index] or 0,
                            hf_row=sink.getvalue())


def read_carried(item: tuple[str, str, str], version_dir: Release
                 ) -> Iterator[tuple[str, Example]]:
    """``(split, example)`` of one ``nq_original`` file of the previous release and its
    paired Parquet shard (``""``: none): carried as bytes when both hold the same examples
    (read one row group at a time), else parsed (``dict``)."""
    split, original, parquet = item
    data = read_file(version_dir, original)  # checked against the verified manifest
    if parquet:
        shard = pq.ParquetFile(io.BytesIO(read_file(version_dir, parquet)))
        pairs = example_members(data)
        if _same_examples(shard, pairs):
            start = 0
            for index in range(shard.num_row_groups):
                group = shard.read_row_group(index)
                for example in carried_rows(group, pairs[start:start + group.num_rows]):
                    yield split, example
                start += group.num_rows
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
