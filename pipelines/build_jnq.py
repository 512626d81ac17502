"""Build Japanese Natural Questions (JNQ) or JBoolQ data from Japanese search-query logs.

    python -m pipelines.build_jnq --runner=DirectRunner                  # JNQ, bundled sample
    python -m pipelines.build_jnq --runner=DirectRunner --variant=jboolq
    python -m pipelines.build_jnq --stop-after questions --input 'logs/*.tsv'

Uematsu, Wang, Kawahara, Shibata, "A Benchmark Suite of Japanese Natural Questions":
queries without spaces, of 8+ words (fugashi/unidic-lite), matching pattern 1 (topic "は" +
an interrogative), 2 (final "?") or 3 (意味/方法/理由...) — or, for JBoolQ, more than six words
ending with "?" or "か" — are searched; the top-ranked ja.wikipedia.org article among the top 5
is the document; its first paragraph and the 4 paragraphs most similar to the search snippet
are the long-answer candidates. Other ``--options`` go to Beam.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from typing import Any

import apache_beam as beam

from filters.text.splits import assign_split
from pipelines.cli.beam_options import parse_pipeline_args
from pipelines.cli.entry import cli_main
from pipelines.cli.inputs import require_inputs
from pipelines.cli.linking import add_linking_arguments, backend_options, resolve_linking
from pipelines.cli.options import (
    add_flag,
    add_release_arguments,
    add_underscore_aliases,
    resolve_version,
    split_ratios_option,
)
from pipelines.cli.query_logs import add_query_log_arguments, log_fields, reader_options
from pipelines.cli.summary import dead_letter_line, empty_release_warning
from transforms.core.accounting import SIDE_OUTPUTS
from transforms.core.progress import ShowProgress
from transforms.jnq.card import jnq_card_for, jnq_dev_baselines, jnq_stats
from transforms.jnq.schema import (
    EXAMPLE_SCHEMA,
    FIELD_DOCS,
    QUESTION_SCHEMA,
    REJECTED_QUERY_SCHEMA,
)
from transforms.jnq.stages import (
    REJECTED_QUERIES,
    BuildJnqExamples,
    SelectJapaneseQuestions,
    key_by_ja_query,
)
from transforms.nq.linking import LinkAndFetch, summary_label
from transforms.nq.questions import IssuedByUsers
from transforms.release import (
    HistogramFn,
    ReleaseTarget,
    WriteAccounting,
    WriteShards,
    parquet_bytes,
    publish,
    recorded_options,
    rows_in_split_order,
    run_release,
)

DATASET_VERSION = "1.0.0"
VARIANTS = ("jnq", "jboolq")


COMMAND = "python -m pipelines.build_jnq"  # recorded in the manifest; the card names it


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.build_jnq",
        description="Build JNQ or JBoolQ from Japanese search-query logs. Any other --option "
                    "is passed to Apache Beam.")
    sample = str(resources.files("pipelines").joinpath("samples", "jnq", "query_log.tsv"))
    add_query_log_arguments(parser, sample, min_users=1)
    parser.add_argument("--variant", choices=VARIANTS, default="jnq",
                        help="jnq (patterns 1-3) or jboolq (yes/no questions)")
    add_flag(parser, "--count-symbols",
             "count punctuation and symbols as words (default: they do not)")
    add_flag(parser, "--extended-keywords",
             "pattern 3 also accepts the documented extended keyword set")
    add_flag(parser, "--keep-rejected",
             "also write rejected queries with reasons to rejected/queries/")
    parser.add_argument("--stop-after", choices=("questions", "examples"), default="examples",
                        help="questions: write only the accepted questions (release "
                             "<variant>_questions); examples (default): link and select "
                             "paragraphs (release <variant>)")
    add_release_arguments(parser, "jnq, jboolq, jnq_questions or jboolq_questions",
                          DATASET_VERSION)
    linking = add_linking_arguments(parser, "ja")
    linking.add_argument("--split-ratios", type=split_ratios_option,
                         default="train=0.8,dev=0.1,test=0.1",
                         help="split names and ratios")
    linking.add_argument("--split-salt", default="jnq",
                         help="salt of the split hash of the normalized question")
    return add_underscore_aliases(parser)


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    parser = build_parser()
    args, beam_args = parse_pipeline_args(parser, argv)
    require_inputs([args.input])
    resolve_linking(args, needs_index=args.stop_after == "examples")
    return args, beam_args


def build_pipeline(pipeline: beam.Pipeline, args: argparse.Namespace,
                   target: ReleaseTarget) -> list:
    by_users, results = pipeline | "Users" >> IssuedByUsers(
        args.input, log_fields(args), args.format, key_by_ja_query, args.min_users, args.window,
        args.keep_rejected, **reader_options(args))
    selected = (by_users.main
                | "Progress" >> ShowProgress("queries aggregated")
                | "Select" >> beam.ParDo(SelectJapaneseQuestions(
                    args.variant, args.count_symbols, args.extended_keywords,
                    args.keep_rejected))
                .with_outputs(*SIDE_OUTPUTS, REJECTED_QUERIES, main="main"))
    questions = selected.main
    results = [*results, by_users, selected]
    lengths = questions | "Words" >> beam.Map(lambda row: ("all/question_words", row["words"]))
    written = []
    if args.keep_rejected:
        too_few_users = by_users[REJECTED_QUERIES] | "AsQuestionRows" >> beam.Map(
            _from_nq_row, args.variant)
        written.append((too_few_users, selected[REJECTED_QUERIES])
                       | "RejectedQueries" >> beam.Flatten()
                       | "KeyRejected" >> beam.Map(lambda row: ("queries", row))
                       | "WriteRejected" >> WriteShards(
                           target.staging_dir, lambda r: r["question"], parquet_bytes,
                           "parquet", REJECTED_QUERY_SCHEMA, subdir="rejected"))
    if args.stop_after == "questions":
        written.append(questions
         | "KeyQuestions" >> beam.Map(lambda row: ("questions", row))
         | "WriteQuestions" >> WriteShards(target.staging_dir, lambda r: r["question"],
                                           parquet_bytes, "parquet", QUESTION_SCHEMA))
        page_stats = []
    else:
        pairs, linked = (questions | "LinkProgress" >> ShowProgress("questions linked")
                         | "LinkAndFetch" >> LinkAndFetch(
                             backend_options(args), args.lang, args.shards))
        built = (pairs
                 | "Paragraphs" >> beam.ParDo(BuildJnqExamples())
                 .with_outputs(*SIDE_OUTPUTS, main="main"))
        results += [*linked, built]
        salt, ratios = args.split_salt, args.split_ratios
        written.append(built.main
         | "Split" >> beam.Map(lambda row: (assign_split(row["question"], salt, ratios), row))
         | "WriteExamples" >> WriteShards(target.staging_dir, lambda r: r["question"],
                                          parquet_bytes, "parquet", EXAMPLE_SCHEMA))
        page_stats = [built.main | "ParagraphCounts" >> beam.Map(
            lambda row: ("all/paragraphs_per_document", len(row["paragraphs"])))]
    histograms = ((lengths, *page_stats)
                  | "AllLengths" >> beam.Flatten()
                  | "Histograms" >> beam.CombinePerKey(HistogramFn()))
    written.append(pipeline | "Accounting" >> WriteAccounting(target.staging_dir, results,
                                                              histograms))
    return written


def _from_nq_row(row: dict[str, Any], variant: str) -> dict[str, Any]:
    """A row rejected by the users/window rule, in the JNQ question layout."""
    return {"question": row["question"], "variant": variant, "variants": row["variants"],
            "events": row["events"], "users_in_window": row["users_in_window"],
            "distinct_users": row["distinct_users"], "words": 0, "patterns": [],
            "reason": row["reason"]}


def format_summary(result: dict[str, Any]) -> str:
    counts = result["stats"]["counts"]
    queries = counts.get("queries", {})
    lines = [f"{result['manifest']['dataset']} {result['manifest']['version']} written to "
             f"{result['path']}",
             f"  log rows read:      {counts.get('log', {}).get('rows', 0)}",
             f"  malformed rows:     {counts.get('log', {}).get('malformed_rows', 0)}",
             f"  distinct queries:   {queries.get('distinct', 0)}"]
    lines += [f"  rejected, {k[9:]}: {v}" for k, v in sorted(queries.items())
              if k.startswith("rejected.")]
    lines.append(f"  accepted questions: {queries.get('accepted', 0)}")
    lines += [f"    pattern {k[1:]}: {v}" for k, v in sorted(counts.get("patterns", {}).items())]
    for stage in ("linking", "pages", "examples"):
        lines += [f"  {summary_label(stage, k)}: {v}"
                  for k, v in sorted(counts.get(stage, {}).items())]
    lines.append(dead_letter_line(counts, width=20))
    lines += [f"  rows in {split}: {n}" for split, n in rows_in_split_order(result["manifest"])]
    return "\n".join(lines + empty_release_warning(result["manifest"]))


def run(argv: list[str] | None = None) -> dict[str, Any]:
    args, beam_args = parse_args(argv)
    args.version = resolve_version(args.version)
    questions_only = args.stop_after == "questions"
    dataset = f"{args.variant}_questions" if questions_only else args.variant
    target = ReleaseTarget.create(args.output, dataset, args.version)
    source = {"kind": "query_log", "description": f"query logs matching {args.input}",
              "search": args.search, "pages": args.pages, "index_dir": args.index_dir,
              "lang": args.lang}
    options = {**recorded_options(args, beam_args, COMMAND),
               "split_ratios": dict(args.split_ratios)}
    splits = ["questions"] if questions_only else [name for name, _ in args.split_ratios]
    schema = QUESTION_SCHEMA if questions_only else EXAMPLE_SCHEMA

    def finish() -> dict[str, Any]:
        return publish(target, overwrite=args.overwrite, allow_empty=args.allow_empty,
                       splits=splits, schema=schema,
                       field_docs=FIELD_DOCS, options=options, source=source,
                       make_stats=jnq_stats, make_card=jnq_card_for(args.variant),
                       baselines=None if questions_only else jnq_dev_baselines)

    return run_release(target, args.overwrite, beam_args,
                       lambda pipeline: build_pipeline(pipeline, args, target), finish,
                       skip_existing=args.skip_existing)


def main(argv: list[str] | None = None) -> int:
    return cli_main(run, format_summary, argv)


if __name__ == "__main__":
    sys.exit(main())
