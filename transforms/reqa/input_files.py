"""The source readers' input: a ``fileio.ReadableFile`` or, for tests, a ``(path, payload)``
pair; its path and its text lines."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from transforms.sources.compressed import iter_complete_lines


def readable_path(readable: Any) -> str:
    """The path of a readable file or ``(path, payload)`` pair."""
    if isinstance(readable, tuple):
        return readable[0]
    return getattr(getattr(readable, "metadata", None), "path", str(readable))


def readable_lines(readable: Any, max_decoded_bytes: int | None = None
                   ) -> tuple[str, Iterable[str | UnicodeDecodeError]]:
    """The path and the lazily decoded UTF-8 lines of a readable file (decompressed by
    ``transforms.sources.compressed``: a damaged stream, or one decoding past
    ``max_decoded_bytes``, raises ``CompressionDamage`` after its last complete line), or of a
    ``(path, text)`` pair; a line that is not UTF-8 is its decoding error, so the lines after
    it are still read."""
    if isinstance(readable, tuple):
        path, text = readable
        return path, text.splitlines()
    path = readable.metadata.path

    def generate() -> Iterator[str | UnicodeDecodeError]:
        for raw in iter_complete_lines(readable, max_decoded_bytes=max_decoded_bytes):
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as error:
                yield error

    return path, generate()
