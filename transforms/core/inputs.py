"""Check before the job that every input option matches at least one file.

Beam's ``MatchFiles`` lets a glob that matches nothing through (the job then publishes an
empty release) and fails on a plain path with ``ValueError: ALLOW_IF_WILDCARD``; this check
names the pattern instead. It uses Beam's ``FileSystems``, so ``gs://`` and every other Beam
filesystem work as they do in the job.

Beam's local filesystem lists the directory before a glob's first wildcard; for a relative
glob whose first component has one (``cor*/*.jsonl``, ``*.tsv``) that directory is ``''``,
which does not exist, so the glob matches nothing. ``beam_pattern`` anchors such a glob at
the working directory (``./cor*/*.jsonl``), so it matches what the shell's would; every place
that hands an input glob to Beam (``MatchFiles``, ``MatchAll``, ``FileSystems.match``) uses it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from transforms.core.errors import NoInputError, UsageError
from transforms.core.files import FileSystems

_BEFORE_WILDCARD = re.compile(r"^[^[*?]*")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def beam_pattern(pattern: str) -> str:
    """``pattern`` as Beam's match must see it to match what the shell would: a local
    relative glob with a wildcard in its first component gets ``./`` in front; anything
    else (``corpus/*.jsonl``, ``./x/*``, ``/abs/*``, ``gs://...``, a plain path) unchanged."""
    if _SCHEME.match(pattern) or pattern.startswith("/"):
        return pattern
    prefix = _BEFORE_WILDCARD.match(pattern).group(0)
    return "./" + pattern if prefix != pattern and "/" not in prefix else pattern


def matching_files(pattern: str) -> list[str]:
    """Paths of the files ``pattern`` (a glob or a plain path) matches on its filesystem."""
    try:
        result = FileSystems.match([beam_pattern(pattern)])[0]
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
