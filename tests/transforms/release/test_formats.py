"""Serialized rows are stable bytes."""

from transforms.release import jsonl_bytes


def test_jsonl_serializer_is_stable():
    assert jsonl_bytes([{"b": 1, "a": "é"}]) == b'{"a": "\xc3\xa9", "b": 1}\n'

