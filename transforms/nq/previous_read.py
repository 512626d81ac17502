"""What an NQ refresh takes from the previous release, read in one step.

A refresh (``--previous``) reads three kinds of files of the previous release: the recorded
query outcomes (``refresh/queries/``, ``transforms.nq.query_outcomes``), the examples it
carries (each ``nq_original`` file and its Parquet shard, ``transforms.nq.carried``) and the
questions it dropped for a lasting reason (``rejected/unlinked_questions/``,
``transforms.nq.refresh_drops``). Each file is read as before, checked against the verified
manifest; one ``Create`` lists them all and one step reads them, tagged by kind: three
sources were three more stages in every refresh, each costing its transforms' construction
and its bundle's set-up for files that take milliseconds to read. The step waits for no side
input, so every stage after it may use what it read as one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import apache_beam as beam

from transforms.nq.carried import read_carried
from transforms.nq.query_outcomes import read_outcomes
from transforms.nq.refresh_drops import read_drops
from transforms.release.refresh.carry import SPREAD_FILES
from transforms.release.refresh.checked_read import PinnedFiles

RECORDED = "recorded"  # (outcome key, Outcome) of refresh/queries/
EXAMPLES = "examples"  # (split, example) of the carried examples: the main output
DROPS = "drops"  # (question, record) of the lasting drops


@dataclass(frozen=True)
class PreviousFiles:
    """The files a refresh reads, by kind: outcome files, ``(split, nq_original, Parquet
    shard or "")`` of the examples, and the drop files (release-relative names)."""

    outcomes: list[str] = field(default_factory=list)
    examples: list[tuple[str, str, str]] = field(default_factory=list)
    drops: list[str] = field(default_factory=list)

    def items(self) -> list[tuple[str, tuple[str, ...]]]:
        """``(kind, item)`` of every file, in a fixed order."""
        return ([(RECORDED, (name,)) for name in self.outcomes]
                + [(EXAMPLES, item) for item in self.examples]
                + [(DROPS, (name,)) for name in self.drops])


class _ReadKind(beam.DoFn):
    """One file of the previous release, read as its kind is read (see the module
    docstring); outcomes and drops on their tagged outputs."""

    def __init__(self, release: PinnedFiles, lasting: frozenset[str]):
        self.release, self.lasting = release, lasting

    def process(self, kind_item: tuple[str, tuple[str, ...]]):
        kind, item = kind_item
        if kind == EXAMPLES:
            yield from read_carried(item, self.release)
        elif kind == RECORDED:
            for outcome in read_outcomes(item[0], self.release):
                yield beam.pvalue.TaggedOutput(RECORDED, outcome)
        else:
            for drop in read_drops(item[0], self.release, self.lasting):
                yield beam.pvalue.TaggedOutput(DROPS, drop)


class ReadPrevious(beam.PTransform):
    """The ``files`` of the previous release ``release`` (its ``PinnedFiles``), read in one
    step: the examples (main output), ``RECORDED`` (the outcomes) and ``DROPS`` (tagged
    outputs)."""

    def __init__(self, release: PinnedFiles, files: PreviousFiles, lasting: frozenset[str]):
        super().__init__()
        self.release, self.files, self.lasting = release, files, lasting

    def expand(self, pbegin):
        items = self.files.items()
        return (pbegin
                | "Files" >> beam.Create(items, reshuffle=len(items) > SPREAD_FILES)
                | "Read" >> beam.ParDo(_ReadKind(self.release, self.lasting)).with_outputs(
                    RECORDED, DROPS, main=EXAMPLES))
