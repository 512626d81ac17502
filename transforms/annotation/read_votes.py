"""Read workers' judgments: votes JSON lines or Label Studio JSON exports, any Beam filesystem.

A file whose first non-blank character is ``[`` is a Label Studio export (a JSON array of
tasks with their annotations); it is converted to votes by ``label_studio.exports``. Any
other file is votes JSON lines. Files are opened raw and decoded by ``sources.compressed``
(every compression Beam detects, zstd included, checked for damage and capped in decoded
size), never by Beam. Every non-blank line, and every annotation (or unusable task) of an
export, counts as ``votes.read`` before it is parsed, so each vote read ends as exactly one of
the outcomes ``counters`` lists (``read`` = ``used`` + ``pending`` + ``not_needed`` +
``duplicate`` + ``superseded`` + ``refused.*``). Each vote is parsed
(``filters.annotation.votes``, JSON through ``safe_json``) and emitted keyed by its item id; a
line or annotation that cannot be used is dead-lettered with its file, line and reason and
counted as ``votes.refused.<reason>`` (``too_deeply_nested`` for a nesting bomb,
``invalid_submitted_at`` for a time that is not an instant). A file that cannot be read
(damaged, too large, a directory or FIFO) is dead-lettered as ``votes.unreadable.<reason>``.
Votes marked ``"simulated": true`` (written by ``annotate simulate``) are counted as
``votes.simulated``, so the card can say so. A vote of a Label Studio export holds its task's
digest (``label_studio.task_map``), checked against the release by the import.

``VoteFileParser`` parses one file and reports through ``VoteOutputs``: Beam's tagged outputs
in the job (``read_votes_beam``: ``ParseVoteFile``, ``ReadVotes``), plain markers in
``annotate next`` (``rounds``), which reads the same files the same way without Beam.
"""

from __future__ import annotations

import itertools
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from filters.annotation.votes import (
    JnqVote,
    NqVote,
    VoteError,
    parse_jnq_vote,
    parse_nq_vote,
)
from filters.text import safe_json
from transforms.annotation.counters import (
    LABEL_STUDIO_EXPORTS,
    REFUSED,
    SIMULATED,
    UNREADABLE,
    VOTE_FILES,
    VOTES,
    VOTES_READ,
)
from transforms.annotation.label_studio.exports import votes_with_tasks
from transforms.core.files import CompressionTypes, FileSystems
from transforms.core.inputs import beam_pattern
from transforms.sources.compressed import (
    CompressionDamage,
    UnsupportedCompression,
    decompressor_for,
    iter_decompressed,
    iter_plain,
)

STAGE = VOTES
NOT_A_REGULAR_FILE = "not_a_regular_file"


def of_release(vote: NqVote | JnqVote, fingerprint: str | None) -> bool:
    """Whether a vote may belong to the release ``fingerprint``: it names it, or one of the
    two is unknown (a vote without ``release``, files that are not a release)."""
    return None in (vote.release, fingerprint) or vote.release == fingerprint


@dataclass(frozen=True)
class VoteOutputs:
    """How reading votes reports a count and a dead letter: ``tally(counter)`` and
    ``dead_letter(stage, error, **context)``, with the signatures of
    ``transforms.core.accounting``'s (which the job uses)."""

    tally: Callable[..., Any]
    dead_letter: Callable[..., Any]

    def refuse(self, reason: str, message: str, **context: Any) -> Iterator[Any]:
        """Count a vote refused for ``reason`` and dead-letter it with its context (text
        that holds a lone surrogate is escaped: the dead-letter file is UTF-8)."""
        yield self.tally(REFUSED.member(reason))
        yield self.dead_letter(STAGE, utf8_safe(message), reason=reason,
                               **{k: utf8_safe(v) if isinstance(v, str) else v
                                  for k, v in context.items()})

    def unreadable(self, reason: str, error: BaseException | str, path: str
                   ) -> Iterator[Any]:
        """Count a votes file that cannot be read (``votes.unreadable.<reason>``),
        dead-letter it."""
        yield self.tally(UNREADABLE.member(reason))
        yield self.dead_letter(STAGE, error, reason=reason, file=utf8_safe(path))


class VoteFileParser:
    """The lines of one votes file -> ``(item id, vote)`` for ``dataset`` (nq, jnq,
    jboolq), with counts and dead letters through ``outputs``.

    The file is opened raw and decompressed by ``sources.compressed`` (never by Beam, which
    reads a truncated stream as if it were whole): a damaged votes file keeps the complete
    lines before the damage and is dead-lettered (``votes.unreadable.<reason>``); a damaged
    Label Studio export keeps nothing."""

    def __init__(self, dataset: str, outputs: VoteOutputs):
        self.dataset = dataset
        self.outputs = outputs
        self.parse = parse_nq_vote if dataset == "nq" else parse_jnq_vote

    def parse_file(self, path: str, lines: Iterable[bytes]) -> Iterator[Any]:
        """The outputs of the file ``path`` whose complete lines ``lines`` gives (read
        only after ``path`` is known to be a regular file)."""
        yield self.outputs.tally(VOTE_FILES)
        if not_regular_file(path):
            yield from self.outputs.unreadable(
                NOT_A_REGULAR_FILE, f"{path} is not a regular file (a directory, FIFO or "
                "device): votes are read from files", path)
            return
        numbered = ((number, line) for number, line in enumerate(lines, start=1)
                    if line.strip())
        try:
            first = next(numbered, None)
            if first is not None and first[1].lstrip().startswith(b"["):
                rest = (line for _, line in numbered)
                yield from self._label_studio(b"".join([first[1], *rest]), path)
                return
            for number, line in itertools.chain([first] if first else [], numbered):
                yield from self._line(line, path, number)
        except CompressionDamage as damage:
            yield from self.outputs.unreadable(damage.reason, damage.error, path)

    def _line(self, line: bytes, path: str, number: int) -> Iterator[Any]:
        yield self.outputs.tally(VOTES_READ)
        try:
            record = safe_json.loads(line)
        except safe_json.JsonTooDeep as error:
            yield from self.outputs.refuse(error.reason, str(error), file=path, line=number)
            return
        except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
            yield from self.outputs.refuse("malformed_json", str(error)[:200], file=path,
                                           line=number)
            return
        yield from self._vote(record, path, number)

    def _vote(self, record: Any, path: str, number: int, task: str | None = None
              ) -> Iterator[Any]:
        try:
            vote = self.parse(record, source=path, line=number)
        except VoteError as error:
            yield from self.outputs.refuse(error.reason, str(error), file=path, line=number,
                                           record=shown(record))
            return
        if task is not None:
            vote = replace(vote, task=task)
        if isinstance(record, dict) and record.get("simulated") is True:
            yield self.outputs.tally(SIMULATED)
        item = vote.example_id if self.dataset == "nq" else vote.question_id
        yield item, vote

    def _label_studio(self, data: bytes, path: str) -> Iterator[Any]:
        try:
            tasks = safe_json.loads(data)
        except safe_json.JsonTooDeep as error:
            yield from self.outputs.unreadable(error.reason, error, path)
            return
        except ValueError as decode_error:  # JSONDecodeError, UnicodeDecodeError
            yield from self.outputs.unreadable("malformed_export", decode_error, path)
            return
        if not isinstance(tasks, list):
            yield from self.outputs.unreadable("malformed_export", "a Label Studio JSON "
                                               "export is a list of tasks", path)
            return
        yield self.outputs.tally(LABEL_STUDIO_EXPORTS)
        for number, (converted, task) in enumerate(votes_with_tasks(tasks, self.dataset),
                                                   start=1):
            yield self.outputs.tally(VOTES_READ)
            if "error" in converted:
                yield from self.outputs.refuse(converted["error"],
                                               converted.get("message", ""), file=path,
                                               line=number, task=shown(converted.get("task")))
            else:
                yield from self._vote(converted, path, number, task)

def holds_label_studio_export(patterns: list[str]) -> bool:
    """Whether any file matching ``patterns`` is a Label Studio export (its first non-blank
    byte, decoded, is ``[``): only then must the release's NQ task maps be computed
    (``label_studio.task_map``). Reads a few bytes of each file; one that cannot be read is
    left to the import, which dead-letters it."""
    for pattern in patterns:
        for match in FileSystems.match([beam_pattern(pattern)])[0].metadata_list:
            if not not_regular_file(match.path) and _starts_with_bracket(match.path):
                return True
    return False


def _starts_with_bracket(path: str) -> bool:
    try:
        new_decompressor = decompressor_for(path)
        with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
            pieces = (iter_plain(handle.read) if new_decompressor is None
                      else iter_decompressed(handle.read, new_decompressor))
            for piece in pieces:
                text = piece.lstrip()
                if text:
                    return text.startswith(b"[")
    except (CompressionDamage, UnsupportedCompression, OSError):
        return False
    return False


def not_regular_file(path: str) -> bool:
    """Whether a local ``path`` is a directory, FIFO, socket or device (reading one fails or
    blocks forever); paths on other filesystems (``gs://``) hold only files."""
    if "://" in path:
        return False
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # gone or unreadable: the open reports it


def shown(value: Any, limit: int = 500) -> str:
    """``value`` as JSON for a dead letter, at most ``limit`` characters; a lone surrogate
    (which no UTF-8 writer accepts) is shown escaped."""
    return utf8_safe(json.dumps(value, ensure_ascii=False)[:limit])


def utf8_safe(text: str) -> str:
    """``text`` with any lone surrogate written as ``\\udxxx`` (UTF-8 cannot hold one)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
