"""Check before the job that every input option matches at least one file.

Beam's ``MatchFiles`` lets a glob that matches nothing through (the job then publishes an
empty release) and fails on a plain path with ``ValueError: ALLOW_IF_WILDCARD``; this check
names the pattern instead. It uses Beam's ``FileSystems``, so ``gs://`` and every other Beam
filesystem work as they do in the job.
"""

from __future__ import annotations

from collections.abc import Iterable

from apache_beam.io.filesystems import FileSystems

from transforms.core.errors import NoInputError, UsageError


def matching_files(pattern: str) -> list[str]:
    """Paths of the files ``pattern`` (a glob or a plain path) matches on its filesystem."""
    try:
        result = FileSystems.match([pattern])[0]
    except ValueError as error:  # no filesystem for the scheme (e.g. gs:// without [gcp])
        raise UsageError(f"cannot read {pattern}: {error}") from None
    except OSError as error:  # BeamIOError: the filesystem refused the match
        raise NoInputError(f"no input matches {pattern} ({error})") from None
    return [metadata.path for metadata in result.metadata_list]


def require_inputs(patterns: Iterable[str]) -> None:
    """Raise ``NoInputError("no input matches <pattern>")`` for the first empty pattern."""
    for pattern in patterns:
        if not matching_files(pattern):
            raise NoInputError(f"no input matches {pattern}")
