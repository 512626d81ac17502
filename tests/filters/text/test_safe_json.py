"""safe_json: nesting bombs are ValueErrors with a reason, everything else parses as json does."""

import json
import sys

import pytest

from filters.text import safe_json


def test_ordinary_documents_parse_like_json():
    for text in ['{"a": [1, {"b": "[[[[["}]}', "[]", '"x"', "3", '{"s": "\\"]]]]"}']:
        assert safe_json.loads(text) == json.loads(text)
    assert safe_json.loads(b'{"k": "\xc3\xa9"}') == {"k": "é"}


def test_depth_of_brackets_with_many_siblings():
    assert safe_json.nesting_depth('[1, [2, {"a": [3]}]]') == 4
    assert safe_json.nesting_depth("[" + "[]," * 1000 + "[]]") == 2
    assert safe_json.nesting_depth(b'{"a": [{"b": []}]}') == 4


def test_many_brackets_in_strings_or_siblings_still_parse():
    wide = "[" + ",".join(['{"k": "[[[[ {{{{"}'] * 5000) + "]"
    assert len(safe_json.loads(wide)) == 5000
    assert safe_json.loads('"' + "[" * 5000 + '"') == "[" * 5000


@pytest.mark.parametrize("depth", [safe_json.MAX_DEPTH + 1, 5000, 200_000])
def test_a_nesting_bomb_is_a_value_error_with_a_reason(depth):
    bomb = "[" * depth + "]" * depth
    with pytest.raises(ValueError) as caught:
        safe_json.loads(bomb)
    assert isinstance(caught.value, safe_json.JsonTooDeep)
    assert caught.value.reason == safe_json.TOO_DEEPLY_NESTED


def test_the_limit_is_exact_and_independent_of_the_call_stack():
    at_limit = "[" * safe_json.MAX_DEPTH + "]" * safe_json.MAX_DEPTH
    assert safe_json.nesting_depth(at_limit) == safe_json.MAX_DEPTH

    def deep(n):
        return deep(n - 1) if n else safe_json.loads(at_limit)

    assert deep(sys.getrecursionlimit() - 300) is not None


def test_plain_json_would_have_raised_recursion_error():
    bomb = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RecursionError):
        json.loads(bomb)
