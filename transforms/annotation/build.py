"""The import pipeline: release examples + votes -> an annotated release (Beam).

``AnnotateRelease`` reads the examples of the chosen splits of each input, reads the votes,
joins them by item id and aggregates per item (``nq_import`` / ``jnq_import``). It returns
the annotated examples keyed by split, the per-vote judgment rows, and the accounting results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import apache_beam as beam

from filters.annotation.jnq import JnqThresholds
from transforms.annotation import jnq_import, nq_import
from transforms.annotation.read_votes import ReadVotes
from transforms.annotation.release_examples import ReadReleaseExamples
from transforms.core.accounting import SIDE_OUTPUTS


@dataclass(frozen=True)
class ImportInput:
    """One input to annotate: a release directory (or files), its kind and fingerprint, and
    its files as ``(split, path, index, count)``."""

    path: str
    base: str
    fingerprint: str | None
    splits: tuple[str, ...]
    files: tuple[tuple[str, str, int, int], ...] = field(default=())
    version: str = "-"


class AnnotateRelease(beam.PTransform):
    """Inputs + votes -> ``(annotated, judgments by split, accounting results)``.

    ``annotated`` is ``(example id, annotations)`` for NQ (``nq_attach`` writes the files)
    and ``(split, annotated row)`` for JNQ / JBoolQ.

    ``dataset`` is nq, jnq or jboolq; for jboolq, inputs may include a JNQ release whose
    questions the workers judged yes/no (JNQ's yes/no questions are merged into JBoolQ)."""

    def __init__(self, dataset: str, inputs: list[ImportInput], vote_patterns: list[str],
                 ways: dict[str, int], thresholds: JnqThresholds | None = None):
        super().__init__()
        self.dataset = dataset
        self.inputs = inputs
        self.vote_patterns = vote_patterns
        self.ways = ways
        self.thresholds = thresholds or JnqThresholds()

    def expand(self, pbegin):
        results = []
        keyed = []
        for number, item in enumerate(self.inputs):
            read = pbegin | f"Examples{number}" >> ReadReleaseExamples(
                list(item.files), item.base)
            results.append(read)
            if self.dataset == "nq":
                keyed.append(read.main)
            else:
                order, fingerprint = item.base, item.fingerprint
                keyed.append(read.main | f"Order{number}" >> beam.MapTuple(
                    lambda key, pair, o=order, f=fingerprint: (key, (*pair, o, f))))
        examples = keyed | "AllExamples" >> beam.Flatten()
        votes = pbegin | "Votes" >> ReadVotes(self.vote_patterns, self.dataset)
        results.append(votes)
        grouped = ({"examples": examples, "votes": votes.main}
                   | "JoinVotes" >> beam.CoGroupByKey())
        if self.dataset == "nq":
            fingerprint = self.inputs[0].fingerprint
            annotated = grouped | "Annotate" >> beam.ParDo(
                nq_import.AnnotateNqExamples(self.ways, fingerprint)).with_outputs(
                    *SIDE_OUTPUTS, nq_import.JUDGMENTS, main="main")
            results.append(annotated)
            return annotated.main, annotated[nq_import.JUDGMENTS], results
        annotated = grouped | "Annotate" >> beam.ParDo(jnq_import.AnnotateJnqRows(
            self.dataset, self.ways, self.thresholds)).with_outputs(
                *SIDE_OUTPUTS, jnq_import.JUDGMENTS, main="main")
        results.append(annotated)
        return annotated.main, annotated[jnq_import.JUDGMENTS], results
