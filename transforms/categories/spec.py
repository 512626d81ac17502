"""The category lexicon of NQ heuristics 4 and 5, declared once (``transforms.core.spec``).

Hearst (1992) patterns over a corpus give categorical nouns ("countries such as ...");
``build_nq --categories`` reads the lexicon (NQ §3.1, heuristics 4 and 5).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from filters.nq.category_lexicon import lexicon_tsv
from transforms.categories.card import categories_card, categories_stats
from transforms.categories.counters import COUNTERS, FILES, PARAGRAPHS, PATTERN
from transforms.categories.refresh import (
    REFRESH_NOTE,
    UNIT,
    count_against_previous,
    recompute_everything,
    row_key,
)
from transforms.categories.stages import (
    FIELD_DOCS,
    LEXICON_FILE,
    LEXICON_SCHEMA,
    FindHearstMatches,
    ReadCorpus,
    lexicon_row,
)
from transforms.core.accounting import SIDE_OUTPUTS
from transforms.core.counters import Counts
from transforms.core.inputs import require_inputs
from transforms.core.options import (
    ReleaseOptions,
    max_decoded_option,
    mib_to_bytes,
    option,
    positive_int,
)
from transforms.core.progress import ShowProgress
from transforms.core.samples import sample_path
from transforms.core.spec import DatasetSpec, Plan, RefreshRule, ReleaseKind, TableInvariants
from transforms.core.summary import dead_letter_line, empty_release_warning
from transforms.release import (
    ReleaseTarget,
    WriteAccounting,
    WriteShards,
    parquet_bytes,
    write_bytes,
)
from transforms.sources.compressed import DEFAULT_MAX_DECODED_BYTES, MIB

LEXICON = "lexicon"


@dataclass(frozen=True)
class CategoriesOptions(ReleaseOptions):
    """``python -m pipelines.build_categories`` options."""

    input: tuple[str, ...] = option(
        (), "glob of corpus files (.txt one paragraph per line, .jsonl, .html); repeatable; "
            "default: the bundled corpus", repeat=True, rows=False)
    text_field: str = option("text", "JSONL field holding the text")
    batch_size: int = option(64, "paragraphs per spaCy batch", parse=positive_int, rows=False)
    max_decoded_mib: float = max_decoded_option(DEFAULT_MAX_DECODED_BYTES / MIB, "corpus file")


def sample_corpus_patterns() -> tuple[str, ...]:
    """The bundled corpus: team-written text, JSONL and Wikipedia-like pages."""
    return (sample_path("categories", "corpus.txt"), sample_path("categories", "corpus.jsonl"),
            sample_path("categories", "pages") + "/*.html")


RELEASE = ReleaseKind("categories",
                      "the categorical noun lexicon of NQ heuristics 4 and 5",
                      schema=LEXICON_SCHEMA, field_docs=FIELD_DOCS, make_stats=categories_stats,
                      make_card=categories_card,
                      invariants=(TableInvariants("lexicon", id_column="lemma"),))


def plan(options: CategoriesOptions) -> Plan[CategoriesOptions]:
    """The bundled corpus when no ``--input`` is given; every input must match a file; a
    refresh recomputes every row (``transforms.categories.refresh``)."""
    options = recompute_everything(
        replace(options, input=options.input or sample_corpus_patterns()))
    require_inputs(options.input)
    return Plan(options, RELEASE, (LEXICON,),
                {"kind": "corpus", "description": ", ".join(options.input)},
                refresh_note=REFRESH_NOTE if options.previous else "")


class BuildCategories(beam.PTransform):
    """Corpus -> paragraphs -> Hearst matches -> lexicon shards, ``categories.tsv`` and the
    accounting, all staged in ``target``."""

    def __init__(self, plan: Plan[CategoriesOptions], target: ReleaseTarget):
        super().__init__()
        self.options, self.target, self.previous = plan.options, target, plan.previous

    def expand(self, pbegin):
        options, staging = self.options, self.target.staging_dir
        paragraphs, results = pbegin | "Corpus" >> ReadCorpus(
            list(options.input), options.text_field, mib_to_bytes(options.max_decoded_mib))
        matches = (paragraphs
                   | "Progress" >> ShowProgress("paragraphs")
                   | "Batch" >> beam.BatchElements(min_batch_size=options.batch_size,
                                                   max_batch_size=options.batch_size)
                   | "Hearst" >> beam.ParDo(FindHearstMatches()).with_outputs(
                       *SIDE_OUTPUTS, main="main"))
        rows = (matches.main
                | "ByHypernym" >> beam.GroupByKey()
                | "LexiconRow" >> beam.Map(lexicon_row))
        lexicon = (rows
                   | "KeyLexicon" >> beam.Map(lambda row: (LEXICON, row))
                   | "WriteLexicon" >> WriteShards(staging, lambda row: row["lemma"],
                                                   parquet_bytes, "parquet", LEXICON_SCHEMA))
        tsv = (rows
               | "AllRows" >> beam.combiners.ToList()
               | "WriteTsv" >> beam.Map(_write_tsv, FileSystems.join(staging, LEXICON_FILE)))
        counted = count_against_previous(pbegin, self.previous, rows, LEXICON)
        accounting = pbegin | "Accounting" >> WriteAccounting(staging,
                                                              [*results, matches, *counted])
        return lexicon, tsv, accounting


def _write_tsv(rows: list[dict[str, Any]], path: str) -> None:
    write_bytes(path, lexicon_tsv(
        (r["lemma"], r["count"], r["distinct_hyponyms"], r["hyponyms"]) for r in rows
    ).encode("utf-8"))


def summary(result: dict[str, Any]) -> str:
    """The lines ``build_categories`` prints after a run."""
    counts = Counts(result["stats"]["counts"], COUNTERS)
    lines = [
        f"Category lexicon {result['manifest']['version']} written to {result['path']}",
        f"  files read:      {counts[FILES]}",
        f"  paragraphs:      {counts[PARAGRAPHS]}",
    ]
    for name, count in counts.family(PATTERN).items():
        lines.append(f"  matches, {name}: {count}")
    lines += [dead_letter_line(result["stats"]["counts"], width=17),
              f"  lexicon entries: {result['manifest']['rows_per_split'][LEXICON]}",
              f"  lexicon file:    {FileSystems.join(result['path'], LEXICON_FILE)}"]
    if "refresh" in result["stats"]:
        lines.append("  refresh:         every row recomputed: a lexicon row adds up the "
                     "whole corpus, none can be carried")
    return "\n".join(lines + empty_release_warning(result["manifest"]))


SPEC = DatasetSpec(
    name="categories",
    module="build_categories",
    version="1.0.0",
    about="the categorical noun lexicon of NQ heuristics 4 and 5",
    description="Build the NQ categorical noun lexicon from a text corpus with Hearst "
                "patterns. Any other --option is passed to Apache Beam.",
    options=CategoriesOptions,
    releases=(RELEASE,),
    counters=COUNTERS,
    plan=plan,
    transform=BuildCategories,
    summary=summary,
    refresh=RefreshRule(UNIT, row_key),
)
