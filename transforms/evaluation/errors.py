"""``EvaluationError`` (exit 2, with the likely causes as hints) and warnings on stderr."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence


class EvaluationError(Exception):
    """A problem with the inputs, reported on stderr with exit code 2, with the likely
    causes (``hints``) on lines of their own."""

    def __init__(self, message: str, hints: Sequence[str] = ()):
        super().__init__(message + "".join(f"; hint: {hint}" for hint in hints))
        self.message, self.hints = message, list(hints)


def warn(message: str) -> None:
    """``warning: message`` on stderr."""
    print(f"warning: {message}", file=sys.stderr)


def warn_hints(what: str, hints: Iterable[str]) -> None:
    """One ``warning: what: hint`` line per hint."""
    for hint in hints:
        warn(f"{what}: {hint}")
