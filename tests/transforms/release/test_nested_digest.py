"""Per-row digests of nested Arrow columns (``transforms.release.nested_digest``): equal values
get equal digests and different values different ones, whatever batch or slice holds them."""

from __future__ import annotations

import json

import pyarrow as pa

from transforms.release.diff import _digest
from transforms.release.nested_digest import nested_digests

DOCUMENT = pa.struct([
    ("html", pa.string()),
    ("tokens", pa.struct([("token", pa.list_(pa.string())),
                          ("start_byte", pa.list_(pa.int64())),
                          ("is_html", pa.list_(pa.bool_()))])),
    ("score", pa.float64()), ("raw", pa.binary()), ("nothing", pa.null())])


def page(html: str, tokens: list, starts: list, flags: list, score=0.5, raw=b"x") -> dict:
    return {"html": html, "tokens": {"token": tokens, "start_byte": starts, "is_html": flags},
            "score": score, "raw": raw, "nothing": None}


VALUES = [
    page("<p>é 日本</p>", ["é", "日本"], [3, 6], [False, False]),
    page("<p>é 日本</p>", ["é", "日本"], [3, 6], [False, True]),
    page("<p>é 日本</p>", ["é日", "本"], [3, 6], [False, False]),  # same bytes, other split
    page("<p>é 日本</p>", ["é", "日本"], [3, 7], [False, False]),
    page("", [], [], []),
    page("", [""], [0], [False]),
    page("a", ["a", None], [0, None], [None, True]),  # null leaves
    page("a", ["a", ""], [0, 0], [False, True]),
    page("a", ["a"], [0], [True], score=None, raw=None),
    page("a", ["a"], [0], [True], score=0.0, raw=b""),
    {"html": "a", "tokens": None, "score": 1.0, "raw": b"", "nothing": None},  # null struct
    None,
]


def digests_of(values: list, kind: pa.DataType) -> list[bytes]:
    return nested_digests(pa.array(values, type=kind), _digest)


def test_equal_values_and_only_they_get_equal_digests():
    digests = digests_of(VALUES, DOCUMENT)
    for i, left in enumerate(VALUES):
        for j, right in enumerate(VALUES):
            assert (digests[i] == digests[j]) == (left == right), (i, j)


def test_a_value_gets_the_same_digest_in_any_batch_or_slice():
    digests = dict(zip(map(json.dumps, map(_printable, VALUES)), digests_of(VALUES, DOCUMENT),
                       strict=True))
    shuffled = VALUES[::-1] + VALUES[3:7]
    array = pa.array(shuffled, type=DOCUMENT)
    for start in (0, 1, 5):
        part = array.slice(start, 6)
        found = nested_digests(part, _digest)
        assert found == [digests[json.dumps(_printable(v))] for v in shuffled[start:start + 6]]
    lists = pa.array([[VALUES[0], VALUES[4]], [], None, [VALUES[0], None]],
                     type=pa.list_(DOCUMENT)).slice(1)
    again = nested_digests(pa.array([[], None, [VALUES[0], None], [VALUES[0], VALUES[4]]],
                                    type=pa.large_list(DOCUMENT)), _digest)
    assert nested_digests(lists, _digest) == [again[0], again[1], again[2]]


def test_widths_do_not_matter_names_and_kinds_do():
    small = pa.struct([("n", pa.int32()), ("f", pa.float32()), ("s", pa.string())])
    wide = pa.struct([("n", pa.int64()), ("f", pa.float64()), ("s", pa.large_string())])
    value = [{"n": 7, "f": 0.5, "s": "é"}, {"n": -1, "f": None, "s": None}]
    assert digests_of(value, small) == digests_of(value, wide)
    renamed = pa.struct([("m", pa.int64()), ("f", pa.float64()), ("s", pa.string())])
    other = [{"m": 7, "f": 0.5, "s": "é"}, {"m": -1, "f": None, "s": None}]
    assert set(digests_of(other, renamed)).isdisjoint(digests_of(value, wide))
    assert digests_of([[True]], pa.list_(pa.bool_())) != digests_of([[1]], pa.list_(pa.int64()))
    unsigned = pa.array([[2**64 - 1]], type=pa.list_(pa.uint64()))
    assert len(nested_digests(unsigned, _digest)) == 1


def test_other_node_kinds_are_digested_from_their_values():
    kind = pa.list_(pa.map_(pa.string(), pa.int64()))
    values = [[[("a", 1)]], [], None]
    assert nested_digests(pa.array(values, type=kind), _digest) == [
        _digest(value) for value in pa.array(values, type=kind).to_pylist()]


def _printable(value):
    return json.loads(json.dumps(value, default=lambda raw: raw.hex()))
