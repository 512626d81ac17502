"""Build Natural Questions-style data from search-query logs (NQ, Kwiatkowski et al. 2019).

    python -m pipelines.build_nq --runner=DirectRunner             # bundled sample log
    python -m pipelines.build_nq --input 'logs/*.parquet' --min-users 5 --window 7d

Stage 1 (this module): query logs -> normalization -> users within a window -> 8+ tokens ->
NQ heuristics 1-5 -> the accepted questions, written as the release ``nq_questions``. Wikipedia
linking and long-answer candidates (NQ §3.1 step 2 and §4.1) are not built yet: the pipeline
stops after question selection and says so. Other ``--options`` go to Beam.
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib import resources
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from transforms.accounting import SIDE_OUTPUTS
from transforms.accounting_io import HistogramFn, WriteAccounting
from transforms.nq_questions import REJECTED_QUERIES, FilterByUsers, SelectQuestions
from transforms.nq_schema import FIELD_DOCS, QUESTION_SCHEMA, REJECTED_QUERY_SCHEMA
from transforms.query_logs import (
    FORMATS,
    AggregateQueryFn,
    LogFields,
    ReadQueryLog,
    key_by_normalized_query,
)
from transforms.release import ReleaseTarget, WriteShards, parquet_bytes
from transforms.release_docs import group_tallies, length_statistics, top_prefixes
from transforms.release_run import (
    add_release_arguments,
    cli_main,
    publish,
    recorded_options,
    run_release,
)

DATASET_QUESTIONS = "nq_questions"
DATASET_VERSION = "1.0.0"
STAGES = ("questions",)
NOT_YET = ("Wikipedia linking and long-answer candidates are not implemented yet: stopped "
           "after question selection (--stop-after=questions).")


def _sample(*parts: str) -> str:
    return str(resources.files("pipelines").joinpath("samples", *parts))


def parse_window(value: str) -> int:
    """``7d`` or ``7`` -> 7 days (the aggregation is exact at day granularity)."""
    match = re.fullmatch(r"\s*(\d+)\s*d?\s*", value or "")
    if not match or int(match.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"--window must be a number of days like 7d: {value!r}")
    return int(match.group(1))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.build_nq",
        description="Select Natural Questions-style questions from search-query logs "
                    "(NQ §3.1). Any other --option is passed to Apache Beam.")
    parser.add_argument("--input", default=_sample("nq", "query_log.tsv"),
                        help="glob of query logs (local or any Beam filesystem); default: "
                             "the bundled sample log")
    parser.add_argument("--format", choices=FORMATS,
                        help="log format; default: from the file extension")
    parser.add_argument("--query-field", default="query", help="column of the query text")
    parser.add_argument("--time-field", default="timestamp",
                        help="column of the event time (ISO 8601 or epoch seconds)")
    parser.add_argument("--user-field", default="user_id", help="column of the user/session id")
    parser.add_argument("--count-field", default="count",
                        help="pre-aggregated logs: column of the number of events")
    parser.add_argument("--users-field", default="users",
                        help="pre-aggregated logs: column of the number of distinct users; a "
                             "row with this field is treated as pre-aggregated")
    parser.add_argument("--min-users", type=int, default=2,
                        help="distinct users that must issue a query within --window (NQ: "
                             "'multiple users'); default 2")
    parser.add_argument("--window", type=parse_window, default=7,
                        help="length of the period, in days (e.g. 7d); default 7 days")
    parser.add_argument("--categories", default=_sample("nq", "categories.tsv"),
                        help="category lexicon TSV (from build_categories) or a categories "
                             "release directory; default: the bundled lexicon")
    parser.add_argument("--min-category-count", type=int, default=2,
                        help="lexicon entries found fewer times are ignored")
    parser.add_argument("--keep-rejected", action="store_true",
                        help="also write the rejected queries with reasons to rejected/queries/")
    parser.add_argument("--stop-after", choices=STAGES, default="questions",
                        help="last stage to run; only 'questions' exists so far")
    add_release_arguments(parser, DATASET_QUESTIONS, DATASET_VERSION)
    parser.add_argument("--batch-size", type=int, default=256,
                        help="queries per spaCy batch")
    return parser


def read_categories(path: str) -> str:
    """The lexicon TSV text from a file or a categories release directory."""
    if not path.endswith(".tsv"):
        path = FileSystems.join(path, "categories.tsv")
    with FileSystems.open(path) as handle:
        return handle.read().decode("utf-8")


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    parser = build_parser()
    args, beam_args = parser.parse_known_args(argv)
    if args.min_users < 1:
        parser.error("--min-users must be at least 1")
    try:
        args._categories_tsv = read_categories(args.categories)
    except OSError as error:
        parser.error(f"cannot read --categories {args.categories}: {error}")
    return args, beam_args


def build_pipeline(pipeline: beam.Pipeline, args: argparse.Namespace,
                   target: ReleaseTarget) -> None:
    fields = LogFields(args.query_field, args.time_field, args.user_field, args.count_field,
                       args.users_field)
    records, results = pipeline | "ReadLogs" >> ReadQueryLog(args.input, fields, args.format)
    by_users = (records
                | "Normalize" >> beam.Map(key_by_normalized_query)
                | "Aggregate" >> beam.CombinePerKey(AggregateQueryFn())
                | "Users" >> beam.ParDo(FilterByUsers(args.min_users, args.window,
                                                      args.keep_rejected))
                .with_outputs(*SIDE_OUTPUTS, REJECTED_QUERIES, main="main"))
    selected = (by_users.main
                | "Batch" >> beam.BatchElements(min_batch_size=args.batch_size,
                                                max_batch_size=args.batch_size)
                | "Heuristics" >> beam.ParDo(SelectQuestions(
                    args._categories_tsv, args.min_category_count, args.keep_rejected))
                .with_outputs(*SIDE_OUTPUTS, REJECTED_QUERIES, main="main"))
    questions = selected.main
    (questions
     | "KeyQuestions" >> beam.Map(lambda row: ("questions", row))
     | "WriteQuestions" >> WriteShards(target.staging_dir, lambda r: r["question"],
                                       parquet_bytes, "parquet", QUESTION_SCHEMA))
    if args.keep_rejected:
        ((by_users[REJECTED_QUERIES], selected[REJECTED_QUERIES])
         | "RejectedQueries" >> beam.Flatten()
         | "KeyRejected" >> beam.Map(lambda row: ("queries", row))
         | "WriteRejected" >> WriteShards(target.staging_dir, lambda r: r["question"],
                                          parquet_bytes, "parquet", REJECTED_QUERY_SCHEMA,
                                          subdir="rejected"))
    histograms = (questions
                  | "Lengths" >> beam.FlatMap(lambda row: [
                      ("all/question_tokens", row["tokens"]),
                      ("all/users_in_window", row["users_in_window"])])
                  | "Histograms" >> beam.CombinePerKey(HistogramFn()))
    pipeline | "Accounting" >> WriteAccounting(
        target.staging_dir, [*results, by_users, selected], histograms)


def nq_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    return {"counts": group_tallies(tallies), "lengths": length_statistics(histograms),
            "question_prefixes": top_prefixes(tallies)}


def nq_questions_card(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    counts = stats["counts"]
    queries, heuristics = counts.get("queries", {}), counts.get("heuristics", {})
    options = manifest["options"]
    return "\n".join([
        f"# NQ question selection, version {manifest['version']}",
        "",
        "Queries selected from a search log the way Natural Questions selected its questions "
        "(Kwiatkowski et al. 2019, §3.1): issued by at least "
        f"{options['min_users']} distinct users within {options['window']} days, at least 8 "
        "spaCy tokens, and accepted by at least one of the five NQ heuristics.",
        "",
        f"Source: {manifest['source']['description']}.",
        "",
        "| what | count |",
        "|---|---|",
        f"| log rows | {counts.get('log', {}).get('rows', 0)} |",
        f"| malformed rows (dead-lettered) | {counts.get('log', {}).get('malformed_rows', 0)} |",
        f"| distinct normalized queries | {queries.get('distinct', 0)} |",
        *[f"| rejected, {k.split('.', 1)[1]} | {v} |" for k, v in sorted(queries.items())
          if k.startswith("rejected.")],
        f"| accepted questions | {queries.get('accepted', 0)} |",
        *[f"| accepted by heuristic {k[1:]} | {v} |" for k, v in sorted(heuristics.items())],
        "",
        "Columns are documented in `dataset_info.json`. Load with "
        "`pyarrow.dataset.dataset('questions', format='parquet')`.",
        "",
        "Next step (not built yet): link each question to the top Wikipedia page among the "
        "top-5 search results and extract long-answer candidates.",
        "",
    ])


def format_summary(result: dict[str, Any]) -> str:
    counts = result["stats"]["counts"]
    log, queries = counts.get("log", {}), counts.get("queries", {})
    lines = [
        f"NQ questions {result['manifest']['version']} written to {result['path']}",
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
    lines.append(NOT_YET)
    return "\n".join(lines)


def run(argv: list[str] | None = None) -> dict[str, Any]:
    args, beam_args = parse_args(argv)
    target = ReleaseTarget.create(args.output, DATASET_QUESTIONS, args.version)
    source = {"kind": "query_log", "description": f"query logs matching {args.input}",
              "categories": args.categories}

    def finish() -> dict[str, Any]:
        return publish(target, overwrite=args.overwrite, splits=["questions"],
                       schema=QUESTION_SCHEMA, field_docs=FIELD_DOCS,
                       options=recorded_options(args, beam_args), source=source,
                       make_stats=nq_stats, make_card=nq_questions_card)

    return run_release(target, args.overwrite, beam_args,
                       lambda pipeline: build_pipeline(pipeline, args, target), finish)


def main(argv: list[str] | None = None) -> int:
    return cli_main(run, format_summary, argv)


if __name__ == "__main__":
    sys.exit(main())
