"""Build the categorical noun lexicon for NQ heuristics 4 and 5 with Hearst patterns.

    python -m pipelines.build_categories --runner=DirectRunner        # bundled corpus
    python -m pipelines.build_categories --input 'corpus/*.txt' --input 'wiki/*.html'

Reads plain text (one paragraph per line), JSONL (``--text-field``) or Wikipedia HTML pages,
runs the Hearst (1992) patterns over every sentence and writes
``<output>/categories/<version>/``: ``categories.tsv`` (lemma, count, distinct hyponyms,
examples; what ``build_nq --categories`` reads), ``lexicon/*.parquet``, ``stats.json``, a card
and the manifest. Other ``--options`` go to Beam.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from filters.nq.category_lexicon import lexicon_tsv
from pipelines.cli.beam_options import parse_pipeline_args
from pipelines.cli.entry import cli_main
from pipelines.cli.http_limits import add_decoded_limit_argument, decoded_limit
from pipelines.cli.inputs import require_inputs
from pipelines.cli.options import (
    add_release_arguments,
    add_underscore_aliases,
    positive_int,
    resolve_version,
)
from pipelines.cli.summary import dead_letter_line, empty_release_warning
from transforms.categories.card import categories_card, categories_stats
from transforms.categories.stages import (
    FIELD_DOCS,
    LEXICON_FILE,
    LEXICON_SCHEMA,
    FindHearstMatches,
    ReadCorpus,
    lexicon_row,
)
from transforms.core.progress import ShowProgress
from transforms.release import (
    ReleaseTarget,
    WriteShards,
    parquet_bytes,
    publish,
    recorded_options,
    run_release,
    write_bytes,
)
from transforms.sources.compressed import DEFAULT_MAX_DECODED_BYTES, MIB

DATASET = "categories"
DATASET_VERSION = "1.0.0"


def sample_corpus_patterns() -> list[str]:
    """The bundled corpus: team-written text, JSONL and Wikipedia-like pages."""
    base = resources.files("pipelines").joinpath("samples", "categories")
    return [str(base.joinpath("corpus.txt")), str(base.joinpath("corpus.jsonl")),
            str(base.joinpath("pages")) + "/*.html"]


COMMAND = "python -m pipelines.build_categories"  # recorded in the manifest; the card names it


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.build_categories",
        description="Build the NQ categorical noun lexicon from a text corpus with Hearst "
                    "patterns. Any other --option is passed to Apache Beam.")
    parser.add_argument("--input", action="append",
                        help="glob of corpus files (.txt one paragraph per line, .jsonl, "
                             ".html); repeatable; default: the bundled corpus")
    parser.add_argument("--text-field", default="text", help="JSONL field holding the text")
    add_release_arguments(parser, DATASET, DATASET_VERSION)
    parser.add_argument("--batch-size", type=positive_int, default=64,
                        help="paragraphs per spaCy batch")
    add_decoded_limit_argument(parser, DEFAULT_MAX_DECODED_BYTES / MIB, "corpus file")
    return add_underscore_aliases(parser)


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    args, beam_args = parse_pipeline_args(build_parser(), argv)
    args.input = args.input or sample_corpus_patterns()
    require_inputs(args.input)
    return args, beam_args


def build_pipeline(pipeline: beam.Pipeline, args: argparse.Namespace,
                   target: ReleaseTarget) -> list:
    from transforms.core.accounting import SIDE_OUTPUTS
    from transforms.release import WriteAccounting

    paragraphs, results = pipeline | "Corpus" >> ReadCorpus(args.input, args.text_field,
                                                                  decoded_limit(args))
    matches = (paragraphs
               | "Progress" >> ShowProgress("paragraphs")
               | "Batch" >> beam.BatchElements(min_batch_size=args.batch_size,
                                               max_batch_size=args.batch_size)
               | "Hearst" >> beam.ParDo(FindHearstMatches()).with_outputs(
                   *SIDE_OUTPUTS, main="main"))
    rows = (matches.main
            | "ByHypernym" >> beam.GroupByKey()
            | "LexiconRow" >> beam.Map(lexicon_row))
    lexicon = (rows
               | "KeyLexicon" >> beam.Map(lambda row: ("lexicon", row))
               | "WriteLexicon" >> WriteShards(target.staging_dir, lambda row: row["lemma"],
                                               parquet_bytes, "parquet", LEXICON_SCHEMA))
    tsv_path = FileSystems.join(target.staging_dir, LEXICON_FILE)
    tsv = (rows
     | "AllRows" >> beam.combiners.ToList()
     | "WriteTsv" >> beam.Map(lambda all_rows: write_bytes(tsv_path, lexicon_tsv(
         (r["lemma"], r["count"], r["distinct_hyponyms"], r["hyponyms"]) for r in all_rows
     ).encode("utf-8"))))
    accounting = pipeline | "Accounting" >> WriteAccounting(target.staging_dir,
                                                            [*results, matches])
    return [lexicon, tsv, accounting]


def run(argv: list[str] | None = None) -> dict[str, Any]:
    args, beam_args = parse_args(argv)
    args.version = resolve_version(args.version)
    target = ReleaseTarget.create(args.output, DATASET, args.version)
    source = {"kind": "corpus", "description": ", ".join(args.input)}

    def finish() -> dict[str, Any]:
        return publish(target, overwrite=args.overwrite, allow_empty=args.allow_empty,
                       splits=["lexicon"],
                       schema=LEXICON_SCHEMA, field_docs=FIELD_DOCS,
                       options=recorded_options(args, beam_args, COMMAND), source=source,
                       make_stats=categories_stats, make_card=categories_card)

    return run_release(target, args.overwrite, beam_args,
                       lambda pipeline: build_pipeline(pipeline, args, target), finish,
                       skip_existing=args.skip_existing)


def format_summary(result: dict[str, Any]) -> str:
    counts = result["stats"]["counts"]
    lines = [
        f"Category lexicon {result['manifest']['version']} written to {result['path']}",
        f"  files read:      {counts.get('corpus', {}).get('files', 0)}",
        f"  paragraphs:      {counts.get('corpus', {}).get('paragraphs', 0)}",
    ]
    for name, count in sorted(counts.get("hearst", {}).items()):
        lines.append(f"  {name.replace('pattern.', 'matches, ')}: {count}")
    lines += [dead_letter_line(counts, width=17),
              f"  lexicon entries: {result['manifest']['rows_per_split']['lexicon']}",
              f"  lexicon file:    {FileSystems.join(result['path'], LEXICON_FILE)}"]
    return "\n".join(lines + empty_release_warning(result["manifest"]))


def main(argv: list[str] | None = None) -> int:
    return cli_main(run, format_summary, argv)


if __name__ == "__main__":
    sys.exit(main())
