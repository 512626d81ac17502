"""A carried document's sidecar line is written again byte for byte as it was read (not
parsed into an object and dumped again), in capture-id order with this run's documents; a
line of an older version (a field missing) is written as this version writes it."""

from __future__ import annotations

import json

import apache_beam as beam

from tests.transforms.nlquad.test_sidecar_streaming import NAME, _release, document
from transforms.nlquad.sidecar import (
    SidecarDocument,
    WriteSidecar,
    keyed_documents,
    sidecar_row,
)
from transforms.release.batch_rows import is_batch, row_count
from transforms.release.formats import jsonl_bytes, jsonl_line


def _line(data: dict) -> bytes:
    return jsonl_line(data)


def test_a_documents_row_is_its_capture_id_and_the_line_jsonl_bytes_writes():
    doc = document(3)
    key, line = sidecar_row(doc)
    assert key == doc.key and line == jsonl_bytes([doc.to_json()])
    assert line == jsonl_line(doc.to_json()) and line.endswith(b"}\n")


def test_a_complete_line_is_carried_byte_for_byte(tmp_path):
    complete = _line(document(1).to_json())
    compact = json.dumps(document(2).to_json(), separators=(",", ":")).encode() + b"\n"
    older = {k: v for k, v in document(4).to_json().items() if k != "answer_sentences"}
    root = _release(tmp_path, complete + compact + _line(older))
    wanted = {document(i).key for i in (1, 2, 4)}
    found = dict(keyed_documents(NAME, str(root), wanted))
    assert all(isinstance(value, SidecarDocument) for value in found.values())
    assert found[document(1).key] == (document(1), complete)
    assert found[document(2).key].line == compact  # as read, not as this version dumps it
    assert compact != sidecar_row(document(2))[1]
    again = found[document(4).key]  # no answer_sentences: written as this version writes it
    assert again.document.answer_sentences == ()
    assert again.line == sidecar_row(again.document)[1] and b'"answer_sentences": []' in again.line
    assert again.digest == document(4).digest


def test_only_the_wanted_documents_are_yielded(tmp_path):
    root = _release(tmp_path, b"".join(_line(document(i).to_json()) for i in range(5)))
    assert [key for key, _ in keyed_documents(NAME, str(root), {document(2).key})] == [
        document(2).key]


def test_the_sidecar_merges_carried_lines_and_new_documents_in_capture_id_order(tmp_path):
    fresh = [document(i) for i in (5, 1, 3)]
    carried = [(document(i).key, f'{{"carried": {i}}}\n'.encode()) for i in (4, 2)]
    with beam.Pipeline() as pipeline:
        _ = (pipeline | beam.Create([*fresh, *carried], reshuffle=False)
             | WriteSidecar(str(tmp_path)))
    written = tmp_path.joinpath(*NAME.split("/")).read_bytes()
    rows = sorted([sidecar_row(doc) for doc in fresh] + carried)
    assert written == b"".join(line for _, line in rows)
    assert b'{"carried": 2}\n' in written and b'{"carried": 4}\n' in written


def test_a_tuple_row_is_one_plain_row():
    assert not is_batch(("id", b"line\n")) and row_count(("id", b"line\n")) == 1
    assert not is_batch({"id": 1}) and row_count({"id": 1}) == 1
