"""Carried NQ examples (``transforms.nq.carried``): the previous release's Parquet rows and gzip
members are written again as the same bytes, in both formats, with the same page lengths."""

from __future__ import annotations

import gzip
import hashlib
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from transforms.nq import carried
from transforms.nq.carried import (
    LINE_HEAD,
    PackedExample,
    example_key,
    example_members,
    hf_parquet,
    original_bytes,
    packed_example,
    page_lengths,
    paired_files,
    read_carried,
)
from transforms.nq.examples import HF_SCHEMA, hf_example, jsonl_gz_bytes, jsonl_line
from transforms.release import parquet_bytes
from transforms.release.refresh.checked_read import ChangedSinceVerified, PinnedFiles


def example(number: int, html: str = "<p>é \u2028 日本</p>") -> dict:
    """An original-format example (what ``original_example`` makes) of ``number`` tokens."""
    tokens = [{"token": f"t{i}", "start_byte": i, "end_byte": i + 1, "html_token": i % 2 == 0}
              for i in range(number)]
    return {"example_id": 1000 + number, "question_text": f"question {number:03d} \"é\"",
            "question_tokens": ["question", f"{number:03d}", "\"é\""],
            "document_url": f"https://en.wikipedia.org//w/index.php?title=T{number}&amp;oldid=1",
            "document_title": f"T {number}", "document_html": html * number,
            "document_tokens": tokens,
            "long_answer_candidates": [{"start_token": 0, "end_token": number, "start_byte": 0,
                                        "end_byte": number, "top_level": True}] * (number % 3),
            "annotations": []}


def write_release(tmp_path, examples: list[dict], original: bytes | None = None) -> None:
    (tmp_path / "dev").mkdir()
    (tmp_path / "nq_original" / "dev").mkdir(parents=True)
    (tmp_path / "dev" / "dev-00000-of-00001.parquet").write_bytes(
        parquet_bytes([hf_example(e) for e in examples], HF_SCHEMA))
    (tmp_path / "nq_original" / "dev" / "nq-dev-00.jsonl.gz").write_bytes(
        jsonl_gz_bytes(examples) if original is None else original)


ITEM = ("dev", "nq_original/dev/nq-dev-00.jsonl.gz", "dev/dev-00000-of-00001.parquet")


def test_each_example_is_a_gzip_member_that_gzip_readers_read_as_one_stream():
    examples = [example(n) for n in (1, 2, 3)]
    data = jsonl_gz_bytes(examples)
    assert gzip.decompress(data) == b"".join(jsonl_line(e) for e in examples)
    lines = example_members(data)  # lines shorter than LINE_HEAD: heads are whole lines
    assert [line.head for line in lines] == [jsonl_line(e) for e in examples]
    assert [gzip.decompress(data[line.start:line.end]) for line in lines] == [
        line.head for line in lines]
    assert lines[0].start == 0 and lines[-1].end == len(data)
    assert all(line.member == b"" for line in lines)
    assert gzip.decompress(jsonl_gz_bytes([])) == b""
    with gzip.open(io.BytesIO(data)) as handle:
        assert len(handle.readlines()) == 3


def test_carried_examples_are_written_again_as_the_same_bytes(tmp_path):
    examples = [example(n) for n in (1, 4, 5, 0, 7)]
    write_release(tmp_path, sorted(examples, key=example_key))
    carried = [row for _, row in read_carried(ITEM, str(tmp_path))]
    assert all(isinstance(row, PackedExample) for row in carried)
    assert [row.key for row in carried] == sorted(e["question_text"] for e in examples)
    by_key = {e["question_text"]: e for e in examples}
    assert [page_lengths(row) for row in carried] == [page_lengths(by_key[row.key])
                                                      for row in carried]
    fresh = [example(n) for n in (2, 3, 6)]
    mixed = sorted([*carried[1:4], *fresh], key=example_key)  # fresh between carried
    plain = sorted([by_key[row.key] for row in carried[1:4]] + fresh, key=example_key)
    release = str(tmp_path)
    assert hf_parquet(mixed, HF_SCHEMA, release) == parquet_bytes(
        [hf_example(e) for e in plain], HF_SCHEMA)
    assert original_bytes(mixed, release=release) == jsonl_gz_bytes(plain)
    assert hf_parquet(carried, HF_SCHEMA, release) == (tmp_path / ITEM[2]).read_bytes()
    assert original_bytes(carried, release=release) == (tmp_path / ITEM[1]).read_bytes()
    shuffled = [carried[4], carried[0], carried[2]]  # any order: rows are taken as listed
    assert hf_parquet(shuffled, HF_SCHEMA, release) == parquet_bytes(
        [hf_example(by_key[row.key]) for row in shuffled], HF_SCHEMA)
    with pytest.raises(ValueError, match="needs the previous release"):
        hf_parquet(carried, HF_SCHEMA)
    assert original_bytes([]) == jsonl_gz_bytes([])
    assert hf_parquet([], HF_SCHEMA) == parquet_bytes([], HF_SCHEMA)


def test_a_file_of_one_gzip_member_is_carried_as_one_member_per_example(tmp_path):
    examples = sorted((example(n) for n in (1, 2, 3)), key=example_key)
    sink = io.BytesIO()
    with gzip.GzipFile(fileobj=sink, mode="wb", mtime=0, filename="") as handle:
        handle.write(b"".join(jsonl_line(e) for e in examples))
    write_release(tmp_path, examples, sink.getvalue())
    carried = [row for _, row in read_carried(ITEM, str(tmp_path))]
    assert all(isinstance(row, PackedExample) and row.member and not row.original
               for row in carried)  # compressed again: the members travel as bytes
    assert original_bytes(carried, release=str(tmp_path)) == jsonl_gz_bytes(examples)
    assert hf_parquet(carried, HF_SCHEMA, str(tmp_path)) == (tmp_path / ITEM[2]).read_bytes()


def test_files_that_do_not_pair_up_are_parsed(tmp_path):
    examples = sorted((example(n) for n in (1, 2, 3)), key=example_key)
    write_release(tmp_path, examples, jsonl_gz_bytes(examples[::-1]))
    assert list(read_carried(ITEM, str(tmp_path))) == [("dev", e) for e in examples[::-1]]
    assert list(read_carried((*ITEM[:2], ""), str(tmp_path))) == [
        ("dev", e) for e in examples[::-1]]


def test_parquet_rows_of_another_schema_are_not_carried_as_they_are(tmp_path):
    examples = sorted((example(n) for n in (1, 2)), key=example_key)
    write_release(tmp_path, examples)
    other = HF_SCHEMA.set(0, HF_SCHEMA.field("id").with_nullable(True))
    (tmp_path / ITEM[2]).write_bytes(parquet_bytes([hf_example(e) for e in examples], other))
    assert list(read_carried(ITEM, str(tmp_path))) == [("dev", e) for e in examples]


def test_original_files_pair_with_the_parquet_shard_of_their_index():
    files = ("dev/dev-00000-of-00002.parquet", "dev/dev-00001-of-00002.parquet",
             "nq_original/dev/nq-dev-00.jsonl.gz", "nq_original/dev/nq-dev-01.jsonl.gz",
             "test/test-00000-of-00001.parquet", "nq_original/test/nq-test-00.jsonl.gz",
             "nq_original/test/nq-test-01.jsonl.gz", "nq_original/other/nq-other-00.jsonl.gz",
             "nq_original/train/train-0.jsonl.gz", "train/train-00000-of-00001.parquet",
             "README.md")
    assert paired_files(files, ("dev", "test", "train")) == [
        ("dev", "nq_original/dev/nq-dev-00.jsonl.gz", "dev/dev-00000-of-00002.parquet"),
        ("dev", "nq_original/dev/nq-dev-01.jsonl.gz", "dev/dev-00001-of-00002.parquet"),
        ("test", "nq_original/test/nq-test-00.jsonl.gz", ""),
        ("test", "nq_original/test/nq-test-01.jsonl.gz", ""),
        ("train", "nq_original/train/train-0.jsonl.gz", "")]


def test_a_packed_fresh_example_is_written_as_the_example_itself():
    examples = [example(n) for n in (1, 2, 40)]
    packed = [packed_example(e) for e in examples]
    assert hf_parquet(packed, HF_SCHEMA) == parquet_bytes([hf_example(e) for e in examples],
                                                          HF_SCHEMA)
    assert original_bytes(packed) == jsonl_gz_bytes(examples)
    assert [page_lengths(p) for p in packed] == [page_lengths(e) for e in examples]
    assert [example_key(p) for p in packed] == [e["question_text"] for e in examples]
    mixed = [packed[0], examples[1], packed[2]]  # packed and unpacked rows of one shard
    assert hf_parquet(mixed, HF_SCHEMA) == hf_parquet(examples, HF_SCHEMA)
    big = example(400, html="<p>" + "word " * 50 + "</p>")
    assert len(packed_example(big).member) < len(big["document_html"]) / 4  # compressed


def test_long_lines_are_carried_keeping_only_their_heads(tmp_path):
    pages = [example(n, html="<p>" + "é long page " * 3000 + "</p>") for n in (3, 9)]
    pages = sorted(pages, key=example_key)
    assert all(len(jsonl_line(e)) > 4 * LINE_HEAD for e in pages)
    write_release(tmp_path, pages)
    carried = [row for _, row in read_carried(ITEM, str(tmp_path))]
    assert all(isinstance(row, PackedExample) for row in carried)
    assert hf_parquet(carried, HF_SCHEMA, str(tmp_path)) == (tmp_path / ITEM[2]).read_bytes()
    assert original_bytes(carried, release=str(tmp_path)) == (tmp_path / ITEM[1]).read_bytes()
    assert [len(line.head) for line in example_members(jsonl_gz_bytes(pages))] == [
        LINE_HEAD] * 2
    with pytest.raises(ValueError, match="truncated gzip member"):
        example_members(jsonl_gz_bytes(pages)[:-20])


def test_a_question_longer_than_the_kept_head_is_parsed_not_carried(tmp_path):
    long = {**example(2), "question_text": "why " * LINE_HEAD}
    write_release(tmp_path, [long])
    assert list(read_carried(ITEM, str(tmp_path))) == [("dev", long)]


def test_carried_rows_are_read_from_every_row_group_of_their_shard(tmp_path):
    examples = sorted((example(n) for n in (1, 2, 3, 4, 5)), key=example_key)
    write_release(tmp_path, examples)
    table = pa.Table.from_pylist([hf_example(e) for e in examples], schema=HF_SCHEMA)
    pq.write_table(table, tmp_path / ITEM[2], row_group_size=2)  # groups of 2, 2 and 1
    carried = [row for _, row in read_carried(ITEM, str(tmp_path))]
    assert [row.row for row in carried] == [0, 1, 2, 3, 4]
    assert {row.parquet for row in carried} == {ITEM[2]}
    kept = [carried[4], carried[1], carried[2]]
    assert hf_parquet(kept, HF_SCHEMA, str(tmp_path)) == parquet_bytes(
        [hf_example(examples[i]) for i in (4, 1, 2)], HF_SCHEMA)


def test_members_are_found_whatever_the_window_fed_to_zlib(tmp_path, monkeypatch):
    examples = [example(n) for n in (1, 7, 30)]
    data = jsonl_gz_bytes(examples)
    expected = example_members(data)
    monkeypatch.setattr(carried, "WINDOW", 7)
    monkeypatch.setattr(carried, "CHUNK", 5)
    assert example_members(data) == expected
    with pytest.raises(ValueError, match="truncated gzip member"):
        example_members(data[:-3])


def test_a_carried_file_changed_after_it_was_verified_is_not_written(tmp_path):
    examples = sorted((example(n) for n in (1, 2)), key=example_key)
    write_release(tmp_path, examples)
    pinned = PinnedFiles(str(tmp_path), {
        name: hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() for name in ITEM[1:]})
    rows = [row for _, row in read_carried(ITEM, pinned)]
    (tmp_path / ITEM[1]).write_bytes(jsonl_gz_bytes(examples[::-1]))  # edited meanwhile
    assert hf_parquet(rows, HF_SCHEMA, pinned) == (tmp_path / ITEM[2]).read_bytes()
    with pytest.raises(ChangedSinceVerified):
        original_bytes(rows, release=pinned)


def test_materialized_examples_are_written_as_the_same_bytes(tmp_path):
    examples = sorted((example(n) for n in (1, 4, 5, 0)), key=example_key)
    write_release(tmp_path, examples)
    release = str(tmp_path)
    references = [row for _, row in read_carried(ITEM, release)]
    as_bytes = carried.materialized(references, release)
    assert all(row.hf_row and row.member and not row.parquet and not row.original
               for row in as_bytes)
    assert hf_parquet(as_bytes, HF_SCHEMA) == (tmp_path / ITEM[2]).read_bytes()  # no release
    assert original_bytes(as_bytes) == (tmp_path / ITEM[1]).read_bytes()
    fresh = packed_example(example(2))
    mixed = sorted([as_bytes[0], references[1], fresh, as_bytes[3]], key=example_key)
    plain = sorted([examples[0], examples[1], example(2), examples[3]], key=example_key)
    assert hf_parquet(mixed, HF_SCHEMA, release) == parquet_bytes(
        [hf_example(e) for e in plain], HF_SCHEMA)
    assert original_bytes(mixed, release=release) == jsonl_gz_bytes(plain)
    assert carried.previous_shards("train/train-00003-of-00020.parquet") == 20
    assert carried.previous_shards("train/other.parquet") == 0


def test_the_pages_decoded_for_carried_rows_are_given_back(tmp_path, monkeypatch):
    """Arrow's pool keeps freed pages per thread, under the next stage's peak: the reader
    releases them after each row group it decodes for lengths, the writer after a shard."""
    from transforms.nq import carried as module

    examples = sorted((example(n) for n in (1, 2, 3)), key=example_key)
    write_release(tmp_path, examples)
    pq.write_table(pa.Table.from_pylist([hf_example(e) for e in examples], schema=HF_SCHEMA),
                   tmp_path / ITEM[2], row_group_size=2)  # two row groups
    calls = []
    monkeypatch.setattr(module, "release_arrow_memory", lambda: calls.append("released"))
    carried = [row for _, row in read_carried(ITEM, str(tmp_path))]
    assert len(carried) == 3 and calls == ["released"] * 2
    calls.clear()
    assert hf_parquet(carried, HF_SCHEMA, str(tmp_path)) == parquet_bytes(
        [hf_example(e) for e in examples], HF_SCHEMA)
    assert calls == ["released"]


SIMPLIFIED = "simplified/dev/simplified-nq-dev-00.parquet"


def test_the_simplified_file_takes_carried_rows_and_is_the_file_dicts_give(tmp_path,
                                                                           monkeypatch):
    """``simplified_bytes``: a row carried by reference is read from the previous simplified
    file, not parsed and simplified again; the file is the bytes the rows as dicts give;
    without a previous simplified file, the carried line is simplified."""
    from transforms.nq import simplified

    examples = sorted((example(n) for n in (1, 2, 4, 5)), key=example_key)
    write_release(tmp_path, examples)
    (tmp_path / "simplified" / "dev").mkdir(parents=True)
    (tmp_path / SIMPLIFIED).write_bytes(parquet_bytes(
        [simplified.simplify_example(e) for e in examples], simplified.SIMPLIFIED_SCHEMA))
    carried_rows = [row for _, row in read_carried(ITEM, str(tmp_path))]
    fresh = packed_example(example(3))
    rows = sorted([*carried_rows[:3], fresh], key=example_key)
    expected = parquet_bytes([simplified.simplify_example(e) for e in sorted(
        [*examples[:3], example(3)], key=example_key)], simplified.SIMPLIFIED_SCHEMA)
    made = []
    real = simplified.simplify_example
    monkeypatch.setattr(carried, "simplify_example",
                        lambda value: made.append(value["example_id"]) or real(value))
    assert carried.simplified_bytes(rows, release=str(tmp_path)) == expected
    assert made == [1003]  # only the fresh example
    made.clear()
    (tmp_path / SIMPLIFIED).unlink()  # an older release: no simplified file
    assert carried.simplified_bytes(rows, release=str(tmp_path)) == expected
    assert sorted(made) == sorted([e["example_id"] for e in examples[:3]] + [1003])
    assert carried.simplified_bytes([]) == parquet_bytes([], simplified.SIMPLIFIED_SCHEMA)
    assert carried.simplified_bytes([fresh]) == parquet_bytes(
        [real(example(3))], simplified.SIMPLIFIED_SCHEMA)
