"""Write a pipeline's accounting into the staged release, and read it back when publishing.

``WriteAccounting`` flattens the side outputs of every stage and writes:

* ``_tallies.json``: ``{name: count}`` of every tally (kept, skipped and dropped by reason),
  plus ``<stage>.dead_lettered``: the dead-letter records of each stage (their ``stage``
  field), so ``stats.json`` and ``rejected/dead_letter/`` agree;
* ``_histograms.json``: ``{metric: {value: frequency}}`` for exact length statistics;
* ``rejected/<kind>/...jsonl``: rejected records by kind, and ``rejected/dead_letter/`` for
  records whose processing raised.

``read_accounting`` folds the underscore files back in when the release is published (they
end up in ``stats.json``) and removes them.
"""

from __future__ import annotations

import json
from collections import Counter

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from transforms.core.accounting import DEAD_LETTER, REJECTED, TALLY
from transforms.release.formats import jsonl_bytes
from transforms.release.shards import WriteShards, write_json
from transforms.release.storage import read_json
from transforms.release.target import ReleaseTarget

TALLIES_FILE = "_tallies.json"
HISTOGRAMS_FILE = "_histograms.json"


def _write_totals(_: object, staging_dir: str, tallies: list[tuple[str, int]],
                  histograms: list[tuple[str, dict[int, int]]]) -> None:
    """Write ``TALLIES_FILE`` (``{name: count}``) and ``HISTOGRAMS_FILE`` (``{metric:
    {value: frequency}}``), keys sorted."""
    write_json(FileSystems.join(staging_dir, TALLIES_FILE), dict(sorted(tallies)))
    write_json(FileSystems.join(staging_dir, HISTOGRAMS_FILE),
               {metric: {str(value): frequency for value, frequency in sorted(counts.items())}
                for metric, counts in sorted(histograms)})


def _json_key(record) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


class WriteAccounting(beam.PTransform):
    """Collect TALLY, DEAD_LETTER and REJECTED outputs of ``results`` into ``staging_dir``.

    Returns a PCollection that is complete once every accounting file is written (the
    release is published after it)."""

    def __init__(self, staging_dir: str, results: list, histograms=None):
        super().__init__()
        self.staging_dir = staging_dir
        self.results = results
        self.histograms = histograms

    def _flatten(self, pipeline, tag: str, label: str, extra: tuple = ()):
        parts = [*(r[tag] for r in self.results), *extra]
        if not parts:
            return pipeline | f"Empty{label}" >> beam.Create([])
        return tuple(parts) | f"Flatten{label}" >> beam.Flatten()

    def expand(self, pbegin):
        pipeline = pbegin.pipeline
        staging = self.staging_dir
        dead_letters = self._flatten(pipeline, DEAD_LETTER, "DeadLetters")
        dead_tallies = dead_letters | "CountDeadLetters" >> beam.Map(dead_letter_tally)
        # one Flatten: each one a runner materializes codes every tally element once more
        tallies = self._flatten(pipeline, TALLY, "Tallies", (dead_tallies,))
        summed = tallies | "SumTallies" >> beam.CombinePerKey(sum)
        histograms = ([] if self.histograms is None  # (metric, {value: frequency}) pairs
                      else beam.pvalue.AsList(self.histograms))
        # both files by one step reading both as side inputs: two ToList chains were 20
        # transforms, each costing its construction and bundle set-up in every job
        totals_written = (pipeline
                          | "TotalsTrigger" >> beam.Impulse()
                          | "WriteTotals" >> beam.Map(_write_totals, staging,
                                                      beam.pvalue.AsList(summed), histograms))

        rejected = self._flatten(pipeline, REJECTED, "Rejected")
        dead = dead_letters | "TagDead" >> beam.Map(lambda record: ("dead_letter", record))
        rejected_written = ((rejected, dead)
                            | "MergeRejectedAndDead" >> beam.Flatten()
                            | "WriteRejected" >> WriteShards(staging, _json_key, jsonl_bytes,
                                                             "jsonl", subdir="rejected"))
        return ((totals_written, rejected_written)
                | "AccountingWritten" >> beam.Flatten())


def dead_letter_tally(record: dict) -> tuple[str, int]:
    """``("<stage>.dead_lettered", 1)`` for a dead-letter record (stage ``unknown`` if none)."""
    stage = record.get("stage") if isinstance(record, dict) else None
    return (f"{stage or 'unknown'}.dead_lettered", 1)


class HistogramFn(beam.CombineFn):
    """Exact integer histogram ``{value: frequency}`` (for exact medians and means)."""

    def create_accumulator(self):
        return Counter()

    def add_input(self, accumulator, value):
        accumulator[int(value)] += 1
        return accumulator

    def merge_accumulators(self, accumulators):
        merged = Counter()
        for acc in accumulators:
            merged.update(acc)
        return merged

    def extract_output(self, accumulator):
        return dict(accumulator)



def read_accounting(target: ReleaseTarget) -> tuple[dict[str, int], dict[str, dict[int, int]]]:
    """Read and delete the pipeline's tally and histogram files from the staging directory."""
    tally_path = FileSystems.join(target.staging_dir, TALLIES_FILE)
    hist_path = FileSystems.join(target.staging_dir, HISTOGRAMS_FILE)
    tallies = read_json(tally_path) if FileSystems.exists(tally_path) else {}
    raw = read_json(hist_path) if FileSystems.exists(hist_path) else {}
    histograms = {k: {int(v): f for v, f in h.items()} for k, h in raw.items()}
    FileSystems.delete([p for p in (tally_path, hist_path) if FileSystems.exists(p)])
    return tallies, histograms

