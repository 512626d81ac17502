"""ReQA sources: compressed inputs checked (zstd too) and capped, deep JSON refused with a
reason (issue 23 §5, §15)."""

from __future__ import annotations

import gzip
import json

import zstandard
from apache_beam import pvalue

from tests.transforms.reqa.samples import nq_example
from transforms.core.accounting import DEAD_LETTER, TALLY
from transforms.reqa.nq_source import ParseNqFiles
from transforms.reqa.squad_source import ParseSquadFiles
from transforms.reqa.tasks import ReqaTask

CAP = 1 << 20


class _Metadata:
    def __init__(self, path):
        self.path = str(path)


class _Readable:
    """The part of ``fileio.ReadableFile`` the readers use, over a local file."""

    def __init__(self, path):
        self.metadata = _Metadata(path)

    def open(self, compression_type=None):
        return open(self.metadata.path, "rb")


def _outputs(items):
    """(tasks, tallies, dead letters) of a DoFn's output."""
    tasks, tallies, dead = [], {}, []
    for item in items:
        if isinstance(item, pvalue.TaggedOutput) and item.tag == TALLY:
            name, count = item.value
            tallies[name] = tallies.get(name, 0) + count
        elif isinstance(item, pvalue.TaggedOutput) and item.tag == DEAD_LETTER:
            dead.append(item.value)
        elif isinstance(item, ReqaTask):
            tasks.append(item)
    return tasks, tallies, dead


def _nq_lines(count: int) -> bytes:
    return b"".join(json.dumps(nq_example(i)).encode() + b"\n" for i in range(count))


def test_an_nq_bomb_is_refused_whole_at_the_cap(tmp_path):
    path = tmp_path / "nq-train-00.jsonl.gz"
    lines = _nq_lines(3)
    path.write_bytes(gzip.compress(lines * (CAP // len(lines) + 2)))
    tasks, tallies, dead = _outputs(ParseNqFiles(max_decoded_bytes=CAP).process(_Readable(path)))
    assert tasks == [] and tallies["input.unreadable.decoded_too_large"] == 1
    assert [d["reason"] for d in dead] == ["decoded_too_large"]


def test_a_truncated_zstd_nq_file_keeps_its_complete_lines(tmp_path):
    path = tmp_path / "nq-train-00.jsonl.zst"
    packed = zstandard.ZstdCompressor().compress(_nq_lines(400))
    path.write_bytes(packed[:len(packed) // 2])
    tasks, tallies, dead = _outputs(ParseNqFiles().process(_Readable(path)))
    assert [d["reason"] for d in dead] == ["truncated_compression"]
    assert 0 < len(tasks) < 400 and dead[0]["rows_read"] == len(tasks)


def test_a_deeply_nested_nq_line_costs_only_itself():
    deep = '{"example_id": ' + "[" * 100_000 + "]" * 100_000 + "}"
    text = "\n".join([json.dumps(nq_example(1)), deep, json.dumps(nq_example(2))])
    tasks, tallies, dead = _outputs(ParseNqFiles().process(("x.jsonl", text)))
    assert len(tasks) == 2 and tallies["examples.malformed"] == 1
    assert dead[0]["line"] == 2 and dead[0]["reason"] == "too_deeply_nested"


def test_a_squad_bomb_and_a_deep_squad_file_are_dead_lettered(tmp_path):
    bomb = tmp_path / "train.json.gz"
    bomb.write_bytes(gzip.compress(b" " * (2 * CAP)))
    tasks, tallies, dead = _outputs(ParseSquadFiles(max_decoded_bytes=CAP).process(
        _Readable(bomb)))
    assert tasks == [] and [d["reason"] for d in dead] == ["decoded_too_large"]
    assert tallies["input.unreadable.decoded_too_large"] == 1
    deep = tmp_path / "deep.json"
    deep.write_text('{"data": ' + "[" * 100_000 + "]" * 100_000 + "}")
    tasks, tallies, dead = _outputs(ParseSquadFiles().process(_Readable(deep)))
    assert tasks == [] and [d["reason"] for d in dead] == ["too_deeply_nested"]
    assert tallies["input.unreadable.too_deeply_nested"] == 1
