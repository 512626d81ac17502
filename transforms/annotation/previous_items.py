"""What a previous annotated release judged, item by item, and whether a judgment still holds.

An annotated release holds, per item id (an NQ ``example_id``, a JNQ ``id``):

* ``examples``: the annotated example (NQ ``nq_original/<split>/*.jsonl.gz``, whose full
  document gives the content digest; JNQ ``<split>/*.parquet``), read as ``{"split",
  "content", "annotations"}`` (NQ's list) or ``{"split", "content", "columns"}`` (JNQ's
  annotation columns);
* ``dropped``: a JNQ question its rules dropped (``rejected/dropped_questions/``, with the
  ``content`` digest its import recorded), read as ``{"split", "content", "dropped"}``;
* ``votes``: the rows of its ``votes/<split>/*.parquet`` table, as they are.

JNQ rows and votes are read with their class labels as names (``transforms.jnq.labels``),
whether the release stored indexes or, before they were class labels, strings: the writer
encodes them again, so a carried row is the previous row when the encoding is unchanged.

Pending examples are not in it (their votes are not either): they are exported again. The
files are listed from the (verified) manifest, so a file that is not the release's is never
read, and each is read checked against the sha256 that manifest gives
(``transforms.release.refresh.checked_read``): one changed since it was verified fails the
job (exit 5) instead of being carried.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from transforms.annotation.content import Digest, changed_part, content_digest
from transforms.annotation.counters import OUTCOME, SPLIT_CHANGED
from transforms.annotation.previous import PreviousAnnotations
from transforms.jnq.labels import as_names
from transforms.jnq.schema import EXAMPLE_SCHEMA
from transforms.release.formats import read_parquet
from transforms.sources.compressed import iter_complete_lines

if TYPE_CHECKING:  # imported where used: checked_read imports Beam, which export may not need
    from transforms.release.refresh.checked_read import PinnedFile

EXAMPLES = "examples"
DROPPED = "dropped"
VOTES = "votes"
DROPPED_DIR = "rejected/dropped_questions/"
JNQ_BASE_COLUMNS = frozenset(EXAMPLE_SCHEMA.names)  # the rest of a row is its annotation

PreviousFile = tuple[str, str, "PinnedFile"]  # (kind, split, file)


def previous_files(previous: PreviousAnnotations) -> list[PreviousFile]:
    """``(kind, split, file)`` of every file of the previous annotated release that says what
    it judged, in name order (``split`` is empty for ``dropped``: each record names its own);
    ``file`` reads it checked against the verified manifest."""
    from transforms.release.refresh.checked_read import PinnedFiles

    pinned = PinnedFiles.of_manifest(previous.release.path, previous.release.manifest)
    found = []
    for name in sorted(previous.release.manifest.get("files", {})):
        parts = name.split("/")
        kind = split = ""
        if previous.base == "nq" and len(parts) == 3 and parts[0] == "nq_original":
            kind, split = EXAMPLES, parts[1]
        elif previous.base != "nq" and len(parts) == 2 and name.endswith(".parquet") \
                and parts[0] in previous.release.splits:
            kind, split = EXAMPLES, parts[0]
        elif len(parts) == 3 and parts[0] == VOTES and name.endswith(".parquet"):
            kind, split = VOTES, parts[1]
        elif previous.base != "nq" and name.startswith(DROPPED_DIR):
            kind = DROPPED
        if kind:
            found.append((kind, split, pinned.file(name)))
    return found


def _parquet_rows(file: PinnedFile, base: str) -> list[dict[str, Any]]:
    rows = read_parquet(io.BytesIO(file.read())).to_pylist()
    return rows if base == "nq" else [as_names(row) for row in rows]


def _lines(file: PinnedFile) -> Iterator[bytes]:
    """The non-blank lines of a JSON lines file, decompressed by extension."""
    return (line for line in iter_complete_lines(file) if line.strip())


def read_previous(base: str, kind: str, split: str, path: PinnedFile
                  ) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(item id, item)`` of one file listed by ``previous_files`` (a votes row as the item
    for ``votes``)."""
    if kind == VOTES:
        key = "example_id" if base == "nq" else "question_id"
        for row in _parquet_rows(path, base):
            yield str(row[key]), row
    elif kind == DROPPED:
        for line in _lines(path):
            record = json.loads(line)
            yield str(record["question_id"]), {"split": record.get("split"),
                                               "content": record.get("content"),
                                               "dropped": record}
    elif base == "nq":
        for line in _lines(path):
            example = json.loads(line)
            yield str(example["example_id"]), {"split": split,
                                               "content": content_digest(base, example),
                                               "annotations": example["annotations"]}
    else:
        for row in _parquet_rows(path, base):
            yield str(row["id"]), {"split": split, "content": content_digest(base, row),
                                   "columns": {k: v for k, v in row.items()
                                               if k not in JNQ_BASE_COLUMNS}}


def dropped_for_unknown_reason(item: dict[str, Any]) -> bool:
    """Whether a previous item is a question dropped for a reason that is no outcome of these
    rules (``moved_to_jboolq`` of releases annotated before JNQ kept its yes/no questions):
    its judgment is not carried (``content_unknown``), so it is exported and aggregated
    again."""
    return DROPPED in item and item[DROPPED].get("reason") not in OUTCOME


def judged_items(previous: PreviousAnnotations) -> dict[str, tuple[str, Any]]:
    """``{item id: (split, content digest)}`` of every item the previous release judged (what
    ``annotate export --previous`` leaves out when unchanged; no digest for an item
    ``dropped_for_unknown_reason``)."""
    items = {}
    for kind, split, path in previous_files(previous):
        if kind != VOTES:
            for key, item in read_previous(previous.base, kind, split, path):
                content = None if dropped_for_unknown_reason(item) else item["content"]
                items[key] = (item["split"], content)
    return items


def invalidation(base: str, judged_split: Any, judged: Any, split: str,
                 content: Digest) -> str | None:
    """Why a judgment of ``judged`` content in ``judged_split`` does not hold for an example
    of ``content`` in ``split`` (an ``annotations.invalidated`` reason), ``None`` when it does:
    what the worker saw changed (``content.changed_part``), else the example moved to another
    split (its ways and its votes rows are per split)."""
    changed = changed_part(base, judged, content)
    if changed is None and judged_split != split:
        return SPLIT_CHANGED
    return changed
