"""Read workers' judgments: votes JSON lines or Label Studio JSON exports, any Beam filesystem.

A file whose first non-blank character is ``[`` is a Label Studio export (a JSON array of
tasks with their annotations); it is converted to votes by ``label_studio.exports``. Any
other file is votes JSON lines (``.gz``/``.bz2``/``.xz`` decompressed, damage detected as for
query logs). Each vote is parsed (``filters.annotation.votes``) and emitted keyed by its item
id; a line or annotation that cannot be used is dead-lettered with its file, line and reason
and counted as ``votes.refused.<reason>``. Votes marked ``"simulated": true`` (written by
``annotate simulate``) are counted as ``votes.simulated``, so the card can say so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes

from filters.annotation.votes import (
    JnqVote,
    NqVote,
    VoteError,
    parse_jnq_vote,
    parse_nq_vote,
)
from transforms.annotation.label_studio.exports import votes_from_export
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, tally
from transforms.sources.compressed import (
    CompressionDamage,
    damage_reason,
    iter_complete_lines,
    read_decompressed,
)

STAGE = "votes"


def of_release(vote: NqVote | JnqVote, fingerprint: str | None) -> bool:
    """Whether a vote may belong to the release ``fingerprint``: it names it, or one of the
    two is unknown (a vote without ``release``, files that are not a release)."""
    return None in (vote.release, fingerprint) or vote.release == fingerprint


def refuse(reason: str, message: str, **context: Any) -> Iterator[Any]:
    """Count a vote refused for ``reason`` and dead-letter it with its context."""
    yield tally(STAGE, f"refused.{reason}")
    yield dead_letter(STAGE, message, reason=reason, **context)


def count_repeats(votes: list) -> Iterator[Any]:
    """Count exact repeats (the same judgment read twice: ``votes.duplicate``) and earlier
    judgments a worker replaced (``votes.superseded``): only each worker's latest counts."""
    distinct = set(votes)
    if len(votes) > len(distinct):
        yield tally("votes", "duplicate", len(votes) - len(distinct))
    replaced = len(distinct) - len({vote.key for vote in distinct})
    if replaced:
        yield tally("votes", "superseded", replaced)


class ParseVoteFile(beam.DoFn):
    """A ``fileio.ReadableFile`` of votes -> ``(item id, vote)`` for ``dataset`` (nq, jnq,
    jboolq), with tallies and dead letters."""

    def __init__(self, dataset: str):
        self.dataset = dataset
        self.parse = parse_nq_vote if dataset == "nq" else parse_jnq_vote

    def process(self, readable: fileio.ReadableFile) -> Iterator[Any]:
        path = readable.metadata.path
        yield tally(STAGE, "files")
        head = self._head(readable)
        if head.startswith(b"["):
            yield from self._label_studio(readable, path)
            return
        try:
            for number, line in enumerate(iter_complete_lines(readable), start=1):
                if line.strip():
                    yield from self._line(line, path, number)
        except CompressionDamage as damage:
            yield tally(STAGE, f"unreadable.{damage.reason}")
            yield dead_letter(STAGE, damage.error, reason=damage.reason, file=path)

    @staticmethod
    def _head(readable: fileio.ReadableFile) -> bytes:
        with readable.open() as handle:
            return handle.read(4096).lstrip()

    def _line(self, line: bytes, path: str, number: int) -> Iterator[Any]:
        try:
            record = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            yield from refuse("malformed_json", str(error)[:200], file=path, line=number)
            return
        yield from self._vote(record, path, number)

    def _vote(self, record: Any, path: str, number: int) -> Iterator[Any]:
        try:
            vote = self.parse(record, source=path, line=number)
        except VoteError as error:
            yield from refuse(error.reason, str(error), file=path, line=number,
                              record=json.dumps(record, ensure_ascii=False)[:500])
            return
        yield tally(STAGE, "read")
        if isinstance(record, dict) and record.get("simulated") is True:
            yield tally(STAGE, "simulated")
        item = vote.example_id if self.dataset == "nq" else vote.question_id
        yield item, vote

    def _label_studio(self, readable: fileio.ReadableFile, path: str) -> Iterator[Any]:
        data, error = read_decompressed(readable)
        if error is not None:
            reason = damage_reason(error)
            yield tally(STAGE, f"unreadable.{reason}")
            yield dead_letter(STAGE, error, reason=reason, file=path)
            return
        try:
            tasks = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as decode_error:
            yield tally(STAGE, "unreadable.malformed_export")
            yield dead_letter(STAGE, decode_error, reason="malformed_export", file=path)
            return
        yield tally(STAGE, "label_studio_exports")
        for number, converted in enumerate(votes_from_export(tasks, self.dataset), start=1):
            if "error" in converted:
                yield from refuse(converted["error"], converted.get("message", ""), file=path,
                                  line=number, task=converted.get("task"))
            else:
                yield from self._vote(converted, path, number)


class ReadVotes(beam.PTransform):
    """Votes files matching ``patterns`` -> ``(item id, vote)``; ``.with_outputs`` tags in
    ``SIDE_OUTPUTS``. A pattern that matches nothing fails before any work (checked by the
    command); the same file matched twice is read twice, which changes nothing."""

    def __init__(self, patterns: list[str], dataset: str):
        super().__init__()
        self.patterns = list(patterns)
        self.dataset = dataset

    def expand(self, pbegin):
        return (pbegin
                | "VotePatterns" >> beam.Create(self.patterns)
                | "MatchVotes" >> fileio.MatchAll()
                | "OpenVotes" >> fileio.ReadMatches(compression=CompressionTypes.AUTO)
                | "ParseVotes" >> beam.ParDo(ParseVoteFile(self.dataset))
                .with_outputs(*SIDE_OUTPUTS, main="main"))
