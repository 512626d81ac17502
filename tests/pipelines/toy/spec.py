"""A toy dataset defined only here: one spec and one rule, nothing else in the toolkit.

It proves that a spec alone gives a dataset its command line, Python API, Flex Template
metadata, release (card, Croissant, manifest, accounting) and browser site.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import apache_beam as beam
import pyarrow as pa

from filters.text.splits import assign_split
from transforms.core.accounting import SIDE_OUTPUTS, tally
from transforms.core.counters import Counter, CounterSet, Counts
from transforms.core.inputs import require_inputs
from transforms.core.options import ReleaseOptions, option, positive_int, split_ratios_option
from transforms.core.spec import DatasetSpec, Plan, RefreshRule, ReleaseKind
from transforms.core.summary import dead_letter_line
from transforms.release import (
    CardInfo,
    DatasetCard,
    WriteAccounting,
    WriteShards,
    group_tallies,
    parquet_bytes,
)
from transforms.release.refresh.carry import Carry, ParquetKeys

READ = Counter("questions", "read")
KEPT = Counter("questions", "kept")
TOO_SHORT = Counter("questions", "dropped.too_short")
COUNTERS = CounterSet.of(READ, KEPT, TOO_SHORT, Counter("questions", "dead_lettered"))
SCHEMA = pa.schema([("id", pa.string()), ("question", pa.string())])
SPLITS = "train=0.8,test=0.2"


def long_enough(question: str, min_words: int) -> str | None:
    """The toy rule: keep a question of at least ``min_words`` words, else the reason."""
    return None if len(question.split()) >= min_words else TOO_SHORT.name


@dataclass(frozen=True)
class ToyOptions(ReleaseOptions):
    """The toy's options."""

    input: str = option("", "JSON lines of {\"id\", \"question\"}", rows=False)
    min_words: int = option(3, "shortest question kept, in words", parse=positive_int)
    split_ratios: tuple = option(split_ratios_option(SPLITS), "split names and ratios",
                                 parse=split_ratios_option, cli_default=SPLITS)


class _Select(beam.DoFn):
    def __init__(self, min_words: int):
        self.min_words = min_words

    def process(self, line: str):
        row = json.loads(line)
        yield tally(READ)
        reason = long_enough(row["question"], self.min_words)
        if reason is not None:
            yield tally(Counter(READ.stage, reason))
            return
        yield tally(KEPT)
        yield {"id": row["id"], "question": row["question"]}


def line_key(line: str) -> str:
    """The toy's unit is one input line; it is unchanged while its id is there."""
    return json.loads(line)["id"]


def row_key(row: dict) -> str:
    """The unit key of a toy row: its id."""
    return row["id"]


class BuildToy(beam.PTransform):
    """Read, apply the rule, split, write."""

    def __init__(self, plan: Plan, target: Any):
        super().__init__()
        self.options, self.target, self.previous = plan.options, target, plan.previous

    def expand(self, pbegin):
        options, staging = self.options, self.target.staging_dir
        carry = Carry(pbegin, self.previous, row_key, recompute_all=options.recompute_all,
                      keys=(None, ParquetKeys(("id",), row_key)))
        lines = carry.fresh(pbegin | "Read" >> beam.io.ReadFromText(options.input), line_key)
        selected = lines | "Select" >> beam.ParDo(_Select(options.min_words)).with_outputs(
            *SIDE_OUTPUTS, main="main")
        rows, results = carry.finish(selected.main | "Split" >> beam.Map(lambda row: (
            assign_split(row["question"], "toy", options.split_ratios), row)))
        written = rows | "Write" >> WriteShards(staging, row_key, parquet_bytes, "parquet",
                                                SCHEMA)
        return written, pbegin | "Accounting" >> WriteAccounting(staging,
                                                                 [selected, *results])


def plan(options: ToyOptions) -> Plan:
    require_inputs([options.input])
    return Plan(options, RELEASE, tuple(name for name, _ in options.split_ratios),
                {"kind": "jsonl", "description": options.input},
                recorded={"split_ratios": dict(options.split_ratios)})


def _body(manifest: dict, stats: dict) -> str:
    counts = Counts(stats["counts"], COUNTERS)
    return f"# Toy questions\n\nRead {counts[READ]}, kept {counts[KEPT]}.\n"


def summary(result: dict) -> str:
    counts = Counts(result["stats"]["counts"], COUNTERS)
    return "\n".join([f"toy {result['manifest']['version']} written to {result['path']}",
                      f"  kept: {counts[KEPT]} of {counts[READ]}",
                      dead_letter_line(result["stats"]["counts"])])


INFO = CardInfo(pretty_name="Toy questions", summary="Questions of at least a few words.",
                license="cc0-1.0", license_text="CC0 1.0", language=("en",),
                task_categories=("question-answering",), task_ids=("open-domain-qa",),
                source_datasets=("original",), citation="", limitations=("A toy.",),
                collection="Team-written lines.", preprocessing="One word-count rule.",
                annotations_creators=("no-annotation",))
RELEASE = ReleaseKind("toy", "toy questions", schema=SCHEMA, field_docs={"id": "row id",
                      "question": "the question"},
                      make_stats=lambda tallies, _: {"counts": group_tallies(tallies)},
                      make_card=DatasetCard(info=INFO, body=_body))
SPEC = DatasetSpec(name="toy", module="build_toy", version="0.1.0", about="toy questions",
                   description="Build the toy dataset.", options=ToyOptions,
                   releases=(RELEASE,), counters=COUNTERS, plan=plan, transform=BuildToy,
                   summary=summary,
                   refresh=RefreshRule("an input line, by its id", row_key))
