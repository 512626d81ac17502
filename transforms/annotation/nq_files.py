"""Google's NQ original-format files as what ``annotate export`` reads (issue 38 §8).

``annotate export --release 'v1.0/dev/nq-dev-*.jsonl.gz'`` makes tasks from Google's own
files, as ``annotate import --input`` already reads them: no release needed. The files are
one split (``--split``, default ``dev``) and stand for the release: a ``ReleaseRef`` whose
``path`` is the glob, ``dataset`` ``nq``, version ``-`` and ``fingerprint`` ``files-<hex>``
(sha256 of each file's name and size, so the same files give the same tasks; an import from
the same files accepts their votes).

Everything is checked before any task is written (``nq_files_release``): the glob matches
regular ``.jsonl`` or ``.jsonl.gz`` files, and each file's first example is an NQ original-
format example (a JSON object with ``example_id``, ``question_text``, ``document_tokens`` and
``long_answer_candidates``). Reads are bounded: an example line longer than
``MAX_EXAMPLE_BYTES`` is refused (``ExportError`` naming file and line), as is a line that is
no NQ example or a damaged ``.gz`` met later; the export then leaves no output directory.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Generator
from contextlib import closing
from typing import Any

from transforms.annotation.manifest import ReleaseRef
from transforms.annotation.read_votes import not_regular_file
from transforms.core.files import FileSystems
from transforms.core.inputs import beam_pattern
from transforms.sources.compressed import CompressionDamage, LongLine, iter_path_lines

FILES_KEY = "nq_files"  # the ReleaseRef manifest's list of the files
SUFFIXES = (".jsonl", ".jsonl.gz")
NQ_KEYS = ("example_id", "question_text", "document_tokens", "long_answer_candidates")
MAX_EXAMPLE_BYTES = 64 << 20  # one NQ example line (Google's first dev examples: 0.3-1.3 MiB)


class NqFilesError(ValueError):
    """The path is no NQ original-format file set (or one of its files is unusable)."""


def nq_files_release(pattern: str, splits: list[str]) -> ReleaseRef:
    """The files ``pattern`` matches as one split (``splits``: none, giving ``dev``, or one)
    of an NQ release to export; ``NqFilesError`` before any work when they are not NQ
    original-format files."""
    paths = sorted(m.path for m in FileSystems.match([beam_pattern(pattern)])[0].metadata_list)
    if not paths:
        raise NqFilesError(f"{pattern} is neither a release nor matching files")
    if len(splits) > 1:
        raise NqFilesError(f"{pattern}: NQ original-format files are one split; give one "
                           f"--split, not {', '.join(splits)}")
    for path in paths:
        if not path.endswith(SUFFIXES):
            raise NqFilesError(f"{path}: annotate export reads a release or NQ original-"
                               "format .jsonl / .jsonl.gz files")
        if not_regular_file(path):
            raise NqFilesError(f"{path} is not a regular file (a directory, FIFO or device)")
        with closing(nq_examples(path)) as examples:
            first = next(examples, None)
        if first is None:
            raise NqFilesError(f"{path} holds no NQ example")
    split = splits[0] if splits else "dev"
    identity = hashlib.sha256()
    for path in paths:
        identity.update(f"{os.path.basename(path)}\t{_size(path)}\n".encode())
    return ReleaseRef(path=pattern, dataset="nq", version="-",
                      fingerprint=f"files-{identity.hexdigest()[:16]}", splits=(split,),
                      manifest={"dataset": "nq", FILES_KEY: paths})


def _size(path: str) -> int:
    return FileSystems.match([path])[0].metadata_list[0].size_in_bytes


def nq_examples(path: str) -> Generator[dict[str, Any], None, None]:
    """The NQ original-format examples of one file, each line read whole up to
    ``MAX_EXAMPLE_BYTES``; ``NqFilesError`` at the first line that is too long, no JSON
    object with the NQ keys, or past the end of a damaged ``.gz``."""
    number = 0
    try:
        for number, line in enumerate(iter_path_lines(path, max_line_bytes=MAX_EXAMPLE_BYTES),
                                      start=1):
            if isinstance(line, LongLine):
                raise NqFilesError(f"{path}:{number}: an example line longer than "
                                   f"{MAX_EXAMPLE_BYTES} bytes")
            if not line.strip():
                continue
            yield _example(line, path, number)
    except CompressionDamage as damage:
        raise NqFilesError(f"{path}: cannot be read whole after line {number} "
                           f"({damage.reason}: {damage.error})") from None


def _example(line: bytes, path: str, number: int) -> dict[str, Any]:
    try:
        example = json.loads(line)
    except ValueError as error:  # JSON or UTF-8
        raise NqFilesError(f"{path}:{number}: not JSON ({error})") from None
    missing = [k for k in NQ_KEYS if k not in example] if isinstance(example, dict) else NQ_KEYS
    if missing:
        raise NqFilesError(f"{path}:{number}: not an NQ original-format example (no "
                           f"{', '.join(missing)})")
    return example


def is_nq_files(release: ReleaseRef) -> bool:
    """Whether ``release`` stands for NQ original-format files (``nq_files_release``)."""
    return FILES_KEY in release.manifest
