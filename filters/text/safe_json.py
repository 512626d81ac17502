"""JSON from untrusted input, where a nesting bomb is a ``ValueError`` like any other bad line.

``json.loads`` recurses once per nesting level, so ``[[[[...]]]]`` a few thousand levels deep
raises ``RecursionError``. That error is not a ``ValueError``, so it escaped every reader that
dead-letters malformed JSON and aborted whole jobs. The limit at which it is raised also
depends on how deep the caller's stack already is. Here the rule is explicit and the same
everywhere: a document nested deeper than ``MAX_DEPTH`` levels is refused with
``JsonTooDeep`` (reason ``too_deeply_nested``) before it is parsed.

The check costs nothing for documents with fewer than ``MAX_DEPTH`` brackets. For larger ones
it removes the strings, keeps the brackets and strips innermost pairs one level per pass, all
in C (``re``, ``str.replace``): a pass per level, at most ``MAX_DEPTH`` passes.
"""

from __future__ import annotations

import json
import re
from typing import IO, Any

MAX_DEPTH = 200
TOO_DEEPLY_NESTED = "too_deeply_nested"

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PAIRS = str.maketrans("[{]}", "(())")


class JsonTooDeep(ValueError):
    """A JSON document nested deeper than the limit (a ``ValueError``, so readers that
    dead-letter malformed JSON handle it the same way)."""

    reason = TOO_DEEPLY_NESTED


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The bracket nesting depth of a JSON text (strings ignored), or ``limit + 1`` as soon as
    it is known to exceed ``limit``."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).translate(_PAIRS)
    depth = 0
    while "()" in brackets:
        depth += 1
        if depth > limit:
            return limit + 1
        brackets = brackets.replace("()", "")
    return depth


def loads(text: str | bytes | bytearray, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises ``JsonTooDeep`` (a ``ValueError``) for a document nested
    deeper than ``max_depth`` levels, and never ``RecursionError``."""
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")
    if (text.count("[") + text.count("{") > max_depth
            and nesting_depth(text, max_depth) > max_depth):
        raise JsonTooDeep(f"JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except RecursionError as error:  # a deep stack at the call site: still a bad document
        raise JsonTooDeep(f"JSON too deeply nested to parse here: {error}") from None


def load(handle: IO[Any], max_depth: int = MAX_DEPTH) -> Any:
    """``loads`` of a whole file handle (text or binary)."""
    return loads(handle.read(), max_depth)
