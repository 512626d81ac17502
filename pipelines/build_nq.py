"""Build Natural Questions-style data from search-query logs (NQ, Kwiatkowski et al. 2019).

    python -m pipelines.build_nq --runner=DirectRunner             # bundled sample log
    python -m pipelines.build_nq --input 'logs/*.parquet' --min-users 5 --window 7d

Stage 1: query logs -> normalization -> users within a window -> 8+ tokens -> NQ heuristics
1-5 -> the accepted questions (``--stop-after questions`` writes them as the release
``nq_questions``). Stage 2 (NQ §3.1, §4.1): search -> the top-ranked Wikipedia page among the
top 5 -> its page -> NQ tokens and long-answer candidates -> the release ``nq`` in the NQ
original format (``nq_original/<split>/*.jsonl.gz``) and the HuggingFace layout
(``<split>/*.parquet``). Other ``--options`` go to Beam.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from filters.text.splits import assign_split
from pipelines.cli.beam_options import parse_pipeline_args
from pipelines.cli.entry import cli_main
from pipelines.cli.inputs import require_inputs
from pipelines.cli.linking import add_linking_arguments, backend_options, resolve_linking
from pipelines.cli.options import (
    add_flag,
    add_release_arguments,
    add_underscore_aliases,
    non_negative_int,
    positive_int,
    resolve_version,
    split_ratios_option,
)
from pipelines.cli.query_logs import add_query_log_arguments, log_fields, reader_options
from pipelines.cli.summary import dead_letter_line, empty_release_warning
from transforms.core.accounting import SIDE_OUTPUTS
from transforms.core.progress import ShowProgress
from transforms.nq.card import nq_card, nq_questions_card, nq_stats
from transforms.nq.examples import FIELD_DOCS as EXAMPLE_FIELD_DOCS
from transforms.nq.examples import (
    HF_SCHEMA,
    hf_example,
    jsonl_gz_bytes,
    nq_shard_name,
    original_example,
)
from transforms.nq.linking import BuildExamples, LinkAndFetch, summary_label
from transforms.nq.publish import ensure_empty_jsonl, nq_dev_baselines
from transforms.nq.questions import REJECTED_QUERIES, IssuedByUsers, SelectQuestions
from transforms.nq.schema import FIELD_DOCS, QUESTION_SCHEMA, REJECTED_QUERY_SCHEMA
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
from transforms.sources.query_logs import key_by_normalized_query

DATASET_QUESTIONS = "nq_questions"
DATASET_VERSION = "1.0.0"
DATASET_EXAMPLES = "nq"
STAGES = ("questions", "examples")
NQ_SPLITS = "train=307373,dev=7830,test=7842"  # NQ's own split sizes


def _sample(*parts: str) -> str:
    return str(resources.files("pipelines").joinpath("samples", *parts))


COMMAND = "python -m pipelines.build_nq"  # recorded in the manifest; the card names it


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.build_nq",
        description="Select Natural Questions-style questions from search-query logs "
                    "(NQ §3.1). Any other --option is passed to Apache Beam.")
    add_query_log_arguments(parser, _sample("nq", "query_log.tsv"), min_users=2)
    parser.add_argument("--categories", default=_sample("nq", "categories.tsv"),
                        help="category lexicon TSV (from build_categories) or a categories "
                             "release directory; default: the bundled lexicon")
    parser.add_argument("--min-category-count", type=non_negative_int, default=2,
                        help="lexicon entries found fewer times are ignored")
    add_flag(parser, "--keep-rejected",
             "also write the rejected queries with reasons to rejected/queries/")
    parser.add_argument("--stop-after", choices=STAGES, default="examples",
                        help="questions: write the selected questions (release nq_questions); "
                             "examples (default): link, fetch pages, write NQ examples "
                             "(release nq)")
    add_release_arguments(parser, "nq or nq_questions", DATASET_VERSION)
    linking = add_linking_arguments(parser, "en")
    linking.add_argument("--split-ratios", type=split_ratios_option, default=NQ_SPLITS,
                         help=f"split names and sizes/ratios (default NQ's: {NQ_SPLITS})")
    linking.add_argument("--split-salt", default="nq",
                         help="salt of the split hash of the normalized question")
    linking.add_argument("--max-rows-per-shard", type=positive_int, default=500,
                         help="examples per output file (pages are large)")
    parser.add_argument("--batch-size", type=positive_int, default=256,
                        help="queries per spaCy batch")
    return add_underscore_aliases(parser)


def categories_file(path: str) -> str:
    """The lexicon TSV of ``--categories``: the file, or ``categories.tsv`` of a release."""
    return path if path.endswith(".tsv") else FileSystems.join(path, "categories.tsv")


def read_categories(path: str) -> str:
    """The lexicon TSV text from a file or a categories release directory."""
    path = categories_file(path)
    with FileSystems.open(path) as handle:
        return handle.read().decode("utf-8")


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    parser = build_parser()
    args, beam_args = parse_pipeline_args(parser, argv)
    if args.min_users < 1:
        parser.error("--min-users must be at least 1")
    require_inputs([args.input, categories_file(args.categories)])
    try:
        args._categories_tsv = read_categories(args.categories)
    except OSError as error:
        parser.error(f"cannot read --categories {args.categories}: {error}")
    resolve_linking(args, needs_index=args.stop_after == "examples")
    return args, beam_args


def build_pipeline(pipeline: beam.Pipeline, args: argparse.Namespace,
                   target: ReleaseTarget) -> list:
    by_users, results = pipeline | "Users" >> IssuedByUsers(
        args.input, log_fields(args), args.format, key_by_normalized_query, args.min_users,
        args.window, args.keep_rejected, **reader_options(args))
    selected = (by_users.main
                | "Progress" >> ShowProgress("queries aggregated")
                | "Batch" >> beam.BatchElements(min_batch_size=args.batch_size,
                                                max_batch_size=args.batch_size)
                | "Heuristics" >> beam.ParDo(SelectQuestions(
                    args._categories_tsv, args.min_category_count, args.keep_rejected))
                .with_outputs(*SIDE_OUTPUTS, REJECTED_QUERIES, main="main"))
    questions = selected.main
    results = [*results, by_users, selected]
    if args.stop_after == "questions":
        written = [questions
                   | "KeyQuestions" >> beam.Map(lambda row: ("questions", row))
                   | "WriteQuestions" >> WriteShards(target.staging_dir, lambda r: r["question"],
                                                     parquet_bytes, "parquet", QUESTION_SCHEMA)]
        page_stats = []
    else:
        page_stats, linked_results, written = write_examples(questions, args, target)
        results += linked_results
    if args.keep_rejected:
        written.append((by_users[REJECTED_QUERIES], selected[REJECTED_QUERIES])
         | "RejectedQueries" >> beam.Flatten()
         | "KeyRejected" >> beam.Map(lambda row: ("queries", row))
         | "WriteRejected" >> WriteShards(target.staging_dir, lambda r: r["question"],
                                          parquet_bytes, "parquet", REJECTED_QUERY_SCHEMA,
                                          subdir="rejected"))
    lengths = (questions
               | "Lengths" >> beam.FlatMap(lambda row: [
                   ("all/question_tokens", row["tokens"]),
                   ("all/users_in_window", row["users_in_window"])]))
    histograms = ((lengths, *page_stats)
                  | "AllLengths" >> beam.Flatten()
                  | "Histograms" >> beam.CombinePerKey(HistogramFn()))
    written.append(pipeline | "Accounting" >> WriteAccounting(target.staging_dir, results,
                                                              histograms))
    return written


def _hf_parquet(rows: list[dict], schema) -> bytes:
    return parquet_bytes([hf_example(row) for row in rows], schema)


def _page_lengths(example: dict) -> list[tuple[str, int]]:
    return [("all/page_bytes", len(example["document_html"].encode("utf-8"))),
            ("all/page_tokens", len(example["document_tokens"])),
            ("all/candidates_per_page", len(example["long_answer_candidates"]))]


def write_examples(questions, args: argparse.Namespace, target: ReleaseTarget):
    """Stage 2: link, fetch, tokenize, split, write both formats.
    Returns (length stats, accounting results, writers' outputs)."""
    from filters.nq.candidates import nq_document

    pairs, linked_results = (questions | "LinkProgress" >> ShowProgress("questions linked")
                             | "LinkAndFetch" >> LinkAndFetch(
                                 backend_options(args), args.lang, args.shards))
    built = (pairs
             | "Tokenize" >> beam.ParDo(BuildExamples(nq_document))
             .with_outputs(*SIDE_OUTPUTS, main="main"))
    salt, ratios = args.split_salt, args.split_ratios
    examples = (built.main
                | "Example" >> beam.MapTuple(original_example)
                | "Split" >> beam.Map(lambda ex: (
                    assign_split(ex["question_text"], salt, ratios), ex)))
    sort_key = lambda ex: ex["question_text"]  # noqa: E731 - shared by both writers
    written = [
        examples | "WriteParquet" >> WriteShards(
            target.staging_dir, sort_key, _hf_parquet, "parquet", HF_SCHEMA,
            args.max_rows_per_shard),
        examples | "WriteOriginal" >> WriteShards(
            target.staging_dir, sort_key, jsonl_gz_bytes, "jsonl.gz",
            max_rows_per_shard=args.max_rows_per_shard, subdir="nq_original",
            namer=nq_shard_name),
    ]
    page_stats = examples | "PageLengths" >> beam.FlatMap(lambda kv: _page_lengths(kv[1]))
    return [page_stats], [*linked_results, built], written


def format_summary(result: dict[str, Any]) -> str:
    counts = result["stats"]["counts"]
    log, queries = counts.get("log", {}), counts.get("queries", {})
    lines = [
        f"{result['manifest']['dataset']} {result['manifest']['version']} written to "
        f"{result['path']}",
        f"  log rows read:         {log.get('rows', 0)}",
        f"  malformed rows:        {log.get('malformed_rows', 0)} (see rejected/dead_letter/)",
        f"  distinct queries:      {queries.get('distinct', 0)}",
    ]
    for name, count in sorted(queries.items()):
        if name.startswith("rejected."):
            lines.append(f"  rejected, {name[9:]}: {count}")
    lines.append(f"  accepted questions:    {queries.get('accepted', 0)}")
    for name, count in sorted(counts.get("heuristics", {}).items()):
        lines.append(f"    heuristic {name[1:]} fired: {count}")
    if result["manifest"]["dataset"] == DATASET_QUESTIONS:
        lines.append("  stopped after question selection (--stop-after questions)")
        lines.append(dead_letter_line(counts))
        return "\n".join(lines + empty_release_warning(result["manifest"]))
    for stage in ("linking", "pages", "examples"):
        for name, count in sorted(counts.get(stage, {}).items()):
            lines.append(f"  {summary_label(stage, name)}: {count}")
    share = result["stats"]["wikipedia_in_top5_share"]
    lines.append(f"  questions with a Wikipedia page in the top 5: "
                 f"{'-' if share is None else f'{share:.1%}'}")
    lines.append(dead_letter_line(counts))
    for split, rows in rows_in_split_order(result["manifest"]):
        lines.append(f"  examples in {split}: {rows}")
    return "\n".join(lines + empty_release_warning(result["manifest"]))


def run(argv: list[str] | None = None) -> dict[str, Any]:
    args, beam_args = parse_args(argv)
    args.version = resolve_version(args.version)
    questions_only = args.stop_after == "questions"
    dataset = DATASET_QUESTIONS if questions_only else DATASET_EXAMPLES
    target = ReleaseTarget.create(args.output, dataset, args.version)
    source = {"kind": "query_log", "description": f"query logs matching {args.input}",
              "categories": args.categories, "search": args.search, "pages": args.pages,
              "index_dir": args.index_dir, "lang": args.lang}
    options = {**recorded_options(args, beam_args, COMMAND),
               "split_ratios": dict(args.split_ratios)}

    def finish() -> dict[str, Any]:
        if questions_only:
            return publish(target, overwrite=args.overwrite, allow_empty=args.allow_empty,
                           splits=["questions"],
                           schema=QUESTION_SCHEMA, field_docs=FIELD_DOCS, options=options,
                           source=source, make_stats=nq_stats, make_card=nq_questions_card)
        split_names = [name for name, _ in args.split_ratios]
        ensure_empty_jsonl(target, split_names)
        return publish(target, overwrite=args.overwrite, allow_empty=args.allow_empty,
                       splits=split_names,
                       schema=HF_SCHEMA, field_docs={**FIELD_DOCS, **EXAMPLE_FIELD_DOCS},
                       options=options,
                       source=source, make_stats=nq_stats, make_card=nq_card,
                       baselines=nq_dev_baselines)

    return run_release(target, args.overwrite, beam_args,
                       lambda pipeline: build_pipeline(pipeline, args, target), finish,
                       skip_existing=args.skip_existing)


def main(argv: list[str] | None = None) -> int:
    return cli_main(run, format_summary, argv)


if __name__ == "__main__":
    sys.exit(main())
