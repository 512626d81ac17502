"""Why records gave nothing, in one console line each: the first dead letter and the first
rejected record of a run, read from its ``rejected/`` directory.

A count (``pages.skipped.no_article_body: 3``) says how many; the record says why ("no
article body container of any known era", the URL). Every builder's summary prints the
first dead letter when there is one (``pipelines.cli.spec_runner.summary_of``), and a run
that kept no row prints the first dead letter and the first record of each rejected kind
(``transforms.release.failed_run.empty_run_message``), so nobody has to open a staging file
to learn why a page gave nothing.
"""

from __future__ import annotations

import json
from typing import Any

from apache_beam.io.filesystems import FileSystems

from transforms.core.accounting import DEAD_LETTER
from transforms.release.storage import RAW, list_files

REJECTED = "rejected"
MAX_KINDS = 3  # rejected kinds shown for a run that kept nothing
MAX_CHARS = 300  # of one record's detail on the console
FIRST_LINE_BYTES = 1 << 20  # a record line is read from at most this much of its file
_WHY = ("reason", "error_type")
_DETAIL = ("detail", "error")
_WHERE = ("url", "source", "document_id", "id")


def _files(directory: str) -> list[str]:
    """Relative paths of the files below ``directory``; none when it is missing."""
    try:
        return list_files(directory)
    except Exception:  # noqa: BLE001 - Beam raises BeamIOError for a missing directory
        return []


def _first_record(directory: str) -> dict[str, Any] | None:
    for name in _files(directory):
        if not name.endswith(".jsonl"):
            continue
        try:
            with FileSystems.open(FileSystems.join(directory, name),
                                  compression_type=RAW) as handle:
                data = handle.read(FIRST_LINE_BYTES)
        except (OSError, ValueError):
            continue
        for line in data.splitlines()[:-1] if len(data) == FIRST_LINE_BYTES else \
                data.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                return record
    return None


def describe(record: dict[str, Any]) -> str:
    """``reason: detail (where)`` of a dead letter or rejected record, on one line."""
    why = next((str(record[k]) for k in _WHY if record.get(k)), "unknown")
    if record.get("stage"):
        why = f"{record['stage']} {why}"
    detail = next((str(record[k]) for k in _DETAIL if record.get(k)), "")
    if record.get("question") and not detail:
        detail = repr(str(record["question"]))
    where = next((str(record[k]) for k in _WHERE if record.get(k)), "")
    text = why + (f": {detail}" if detail else "") + (f" ({where})" if where else "")
    text = " ".join(text.split())
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 3] + "..."


def first_dead_letter_line(release_dir: str) -> str | None:
    """``  first dead letter: <stage> <error>: <message> (<where>)``, or None without one."""
    record = _first_record(FileSystems.join(release_dir, REJECTED, DEAD_LETTER))
    return None if record is None else f"  first dead letter: {describe(record)}"


def first_rejected_lines(release_dir: str, max_kinds: int = MAX_KINDS) -> list[str]:
    """The first dead letter, then the first record of up to ``max_kinds`` other rejected
    kinds (``skipped_pages``, ``dropped_questions``, ...), one line each."""
    lines = []
    dead = first_dead_letter_line(release_dir)
    if dead:
        lines.append(dead)
    root = FileSystems.join(release_dir, REJECTED)
    kinds = sorted({name.split("/")[0] for name in _files(root) if "/" in name}
                   - {DEAD_LETTER})
    for kind in kinds[:max_kinds]:
        record = _first_record(FileSystems.join(root, kind))
        if record is not None:
            lines.append(f"  first of {kind}: {describe(record)}")
    return lines
