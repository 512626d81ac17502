"""The Beam stages that read workers' judgments (``read_votes``: what is read, how each
vote and file is counted), and the helpers the imports' stages report votes with."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import apache_beam as beam
from apache_beam.io import fileio

from transforms.annotation.counters import DUPLICATE, SUPERSEDED
from transforms.annotation.read_votes import VoteFileParser, VoteOutputs
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, tally
from transforms.core.files import CompressionTypes
from transforms.core.inputs import beam_pattern
from transforms.sources.compressed import iter_complete_lines

TAGGED = VoteOutputs(tally, dead_letter)  # Beam counters and tagged outputs


def refuse(reason: str, message: str, **context: Any) -> Iterator[Any]:
    """Count a vote refused for ``reason`` and dead-letter it with its context."""
    return TAGGED.refuse(reason, message, **context)


def count_repeats(votes: list) -> Iterator[Any]:
    """Count exact repeats (the same judgment read twice: ``votes.duplicate``) and earlier
    judgments a worker replaced (``votes.superseded``): only each worker's latest counts."""
    distinct = set(votes)
    if len(votes) > len(distinct):
        yield tally(DUPLICATE, len(votes) - len(distinct))
    replaced = len(distinct) - len({vote.key for vote in distinct})
    if replaced:
        yield tally(SUPERSEDED, replaced)


class ParseVoteFile(beam.DoFn):
    """A ``fileio.ReadableFile`` of votes -> ``(item id, vote)`` for ``dataset`` (nq, jnq,
    jboolq), with tallies and dead letters (``read_votes.VoteFileParser``)."""

    def __init__(self, dataset: str):
        self.dataset = dataset
        self.parser = VoteFileParser(dataset, TAGGED)

    def process(self, readable: fileio.ReadableFile) -> Iterator[Any]:
        yield from self.parser.parse_file(readable.metadata.path,
                                          iter_complete_lines(readable))


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
                | "VotePatterns" >> beam.Create([beam_pattern(p) for p in self.patterns])
                | "MatchVotes" >> fileio.MatchAll()
                | "OpenVotes" >> fileio.ReadMatches(compression=CompressionTypes.UNCOMPRESSED)
                | "ParseVotes" >> beam.ParDo(ParseVoteFile(self.dataset))
                .with_outputs(*SIDE_OUTPUTS, main="main"))
