"""Build an NLQuAD-style release from archived BBC News pages.

    python -m pipelines.build_nlquad --runner=DirectRunner            # bundled sample, offline
    python -m pipelines.build_nlquad --source html --input 'pages/*.html'
    python -m pipelines.build_nlquad --source warc --input 'crawl/*.warc.gz'
    python -m pipelines.build_nlquad --source wayback --from 2016 --to 2020

Options not listed by ``--help`` are Beam pipeline options (``--runner``,
``--direct_running_mode``, ``--direct_num_workers``, Dataflow options, ...).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from pipelines.cli.beam_options import parse_pipeline_args
from pipelines.cli.entry import cli_main
from pipelines.cli.http_limits import (
    add_decoded_limit_argument,
    add_wayback_limit_arguments,
    decoded_limit,
    wayback_policy,
)
from pipelines.cli.inputs import matching_files, require_inputs
from pipelines.cli.options import (
    add_flag,
    add_release_arguments,
    add_underscore_aliases,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    resolve_version,
    split_ratios_option,
)
from pipelines.cli.summary import dead_letter_line, empty_release_warning
from transforms.clients.wayback.policy import WaybackPolicy
from transforms.core.accounting import SIDE_OUTPUTS
from transforms.nlquad.card import cdx_count_rows, nlquad_baselines, nlquad_card, nlquad_stats
from transforms.nlquad.schema import FIELD_DOCS, NLQUAD_SCHEMA
from transforms.nlquad.stages import (
    DeduplicateArticles,
    ExtractQuestionAnswers,
    FindRepeatedParagraphs,
    ParsePages,
    squad_file,
)
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
    to_json_bytes,
    write_bytes,
)
from transforms.sources.page_files import ReadHtmlPages, ReadSamplePages, ReadWarcPages

DATASET = "nlquad"
DATASET_VERSION = "1.0.0"
MAX_PAGE_MIB = 64  # --max-decoded-mib: a real article page is well under 5 MiB
WAYBACK = WaybackPolicy()  # the defaults of the wayback source options


COMMAND = "python -m pipelines.build_nlquad"  # recorded in the manifest; the card names it


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.build_nlquad",
        description="Build an NLQuAD-style long-answer QA release from BBC News pages. "
                    "Any other --option is passed to Apache Beam (e.g. --runner, "
                    "--direct_running_mode=multi_processing, --direct_num_workers=2).",
    )
    parser.add_argument("--source", choices=("sample", "html", "warc", "wayback"),
                        default="sample",
                        help="where pages come from: the bundled sample (default, offline), "
                             "saved HTML files, WARC/ARC files, or the Wayback Machine")
    parser.add_argument("--input", help="glob of input files for --source html|warc "
                                        "(any Beam filesystem: local, gs://, ...)")
    parser.add_argument("--index", help="--source html: TSV sidecar (file, url, timestamp); "
                                        "default: index.tsv next to each page")
    add_release_arguments(parser, DATASET, DATASET_VERSION)
    parser.add_argument("--from", dest="from_year", type=int, default=2016,
                        help="--source wayback: first capture year (default 2016)")
    parser.add_argument("--to", dest="to_year", type=int, default=2020,
                        help="--source wayback: last capture year (default 2020)")
    parser.add_argument("--split-ratios", type=split_ratios_option,
                        default="train=0.8,dev=0.1,test=0.1",
                        help="split names and ratios, e.g. train=0.8,dev=0.1,test=0.1 "
                             "or 80/10/10")
    parser.add_argument("--split-salt", default="nlquad",
                        help="salt of the split hash; keep it fixed across versions")
    add_flag(parser, "--export-squad",
             "also write squad/<split>.json in exactly the SQuAD v1.1 format")
    add_flag(parser, "--squad-extra-fields",
             "with --export-squad, add NLQuAD's own fields (date, url, answer_end), which "
             "strict SQuAD v1.1 readers may refuse")
    parser.add_argument("--boilerplate-min-docs", type=boilerplate_min_docs, default=3,
                        help="a paragraph found in at least this many articles (2 or more) "
                             "is boilerplate")
    parser.add_argument("--boilerplate-min-words", type=non_negative_int, default=4,
                        help="shorter paragraphs are never treated as repeated boilerplate")
    parser.add_argument("--paragraph-separator", default="\n",
                        help="whitespace placed between paragraphs in the context")
    parser.add_argument("--max-rows-per-shard", type=positive_int, default=20_000,
                        help="Parquet rows per shard file")
    add_decoded_limit_argument(parser, MAX_PAGE_MIB,
                               "page (--source html: a page file; warc: one record's page)")
    wayback = parser.add_argument_group("wayback source")
    wayback.add_argument("--wayback-url", default="https://web.archive.org",
                         help="Wayback Machine base URL (tests point it at a local server)")
    wayback.add_argument("--cache-dir", default=".cache/wayback",
                         help="cache of CDX pages and captures, local or gs:// (re-runs never "
                              "refetch; a crashed run resumes from it)")
    wayback.add_argument("--fetch-workers", type=positive_int, default=WAYBACK.fetch_workers,
                         help="parallel fetchers; the archive sees at most "
                              "fetch-workers x per-worker rate")
    wayback.add_argument("--fetches-per-minute", type=positive_float,
                         default=WAYBACK.fetches_per_minute,
                         help="global page fetch rate (archive limit ~480/min per IP)")
    wayback.add_argument("--cdx-per-minute", type=positive_float, default=WAYBACK.cdx_per_minute,
                         help="CDX request rate (archive limit ~24/min per IP)")
    wayback.add_argument("--rate-limit-pause", type=non_negative_float,
                         default=WAYBACK.rate_limit_pause,
                         help="seconds to pause after HTTP 429 or a refused connection")
    wayback.add_argument("--max-captures", type=non_negative_int, default=0,
                         help="stop after this many article captures (0 = all)")
    add_wayback_limit_arguments(wayback)
    return add_underscore_aliases(parser)


def boilerplate_min_docs(value: str) -> int:
    """argparse ``type`` of ``--boilerplate-min-docs``: 2 or more (at 1 or below every
    paragraph, found in its own article, would be boilerplate)."""
    number = positive_int(value)
    if number < 2:
        raise argparse.ArgumentTypeError(f"must be 2 or more, got {number}")
    return number


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    parser = build_parser()
    args, beam_args = parse_pipeline_args(parser, argv)
    if args.source in ("html", "warc") and not args.input:
        parser.error(f"--source {args.source} needs --input GLOB")
    if args.paragraph_separator.strip() or not args.paragraph_separator:
        parser.error("--paragraph-separator must be non-empty whitespace")
    if args.source in ("html", "warc"):
        require_inputs([args.input, *([args.index] if args.index else [])])
    return args, beam_args


def read_pages(pipeline: beam.Pipeline, args: argparse.Namespace):
    """The chosen source: ``(pages, [tagged results carrying accounting outputs])``."""
    if args.source == "sample":
        return pipeline | "Sample" >> ReadSamplePages()
    if args.source == "html":
        return pipeline | "Html" >> ReadHtmlPages(args.input, args.index, decoded_limit(args))
    if args.source == "warc":
        return pipeline | "Warc" >> ReadWarcPages(args.input, decoded_limit(args))
    from transforms.sources.wayback import ReadWaybackPages

    return pipeline | "Wayback" >> ReadWaybackPages(
        base_url=args.wayback_url, from_year=args.from_year, to_year=args.to_year,
        policy=wayback_policy(args), max_captures=args.max_captures)


def build_pipeline(pipeline: beam.Pipeline, args: argparse.Namespace,
                   target: ReleaseTarget) -> list:
    """Compose the NLQuAD pipeline; everything it writes goes to the staging directory.
    Returns the writers' outputs (the release is published after them)."""
    pages, results = read_pages(pipeline, args)
    total = len(matching_files(args.input)) if args.source == "html" else None  # a page a file
    parsed = pages | "Parse" >> beam.ParDo(ParsePages(progress_total=total)).with_outputs(
        *SIDE_OUTPUTS, main="main")
    articles, dedup_results = parsed.main | "Deduplicate" >> DeduplicateArticles()
    repeated = articles | "RepeatedParagraphs" >> FindRepeatedParagraphs(
        args.boilerplate_min_docs, args.boilerplate_min_words)
    extracted = articles | "ExtractQA" >> beam.ParDo(
        ExtractQuestionAnswers(args.split_salt, args.split_ratios, args.paragraph_separator),
        repeated=beam.pvalue.AsDict(repeated),
    ).with_outputs(*SIDE_OUTPUTS, ExtractQuestionAnswers.STATS, main="main")
    rows = extracted.main
    written = [rows | "WriteSplits" >> WriteShards(
        target.staging_dir, lambda row: row["id"], parquet_bytes, "parquet",
        NLQUAD_SCHEMA, args.max_rows_per_shard)]
    if args.export_squad:
        staging = target.staging_dir
        written.append(rows
         | "GroupForSquad" >> beam.GroupByKey()
         | "WriteSquad" >> beam.Map(lambda kv: write_bytes(
             FileSystems.join(staging, "squad", f"{kv[0]}.json"),
             to_json_bytes(squad_file(kv[1], args.squad_extra_fields)))))
    histograms = (extracted[ExtractQuestionAnswers.STATS]
                  | "Histograms" >> beam.CombinePerKey(HistogramFn()))
    written.append(pipeline | "Accounting" >> WriteAccounting(
        target.staging_dir, [*results, parsed, *dedup_results, extracted], histograms))
    return written


def source_description(args: argparse.Namespace) -> dict[str, Any]:
    descriptions = {
        "sample": "pages bundled with the toolkit (synthetic BBC-like markup of every era)",
        "html": f"saved HTML pages matching {args.input}",
        "warc": f"WARC/ARC archives matching {args.input}",
        "wayback": f"Wayback Machine CDX captures of bbc.co.uk/news and bbc.com/news, "
                   f"{args.from_year}-{args.to_year}, via {args.wayback_url}",
    }
    return {"kind": args.source, "description": descriptions[args.source]}


def finalize(target: ReleaseTarget, args: argparse.Namespace,
             beam_args: list[str]) -> dict[str, Any]:
    """Empty SQuAD files for empty splits, then stats, card, manifest and the move."""
    split_names = [name for name, _ in args.split_ratios]
    if args.export_squad:
        for split in split_names:
            path = FileSystems.join(target.staging_dir, "squad", f"{split}.json")
            if not FileSystems.exists(path):
                write_bytes(path, to_json_bytes(squad_file([])))
    options = {**recorded_options(args, beam_args, COMMAND),
               "split_ratios": dict(args.split_ratios)}
    return publish(target, overwrite=args.overwrite, allow_empty=args.allow_empty,
                   splits=split_names, schema=NLQUAD_SCHEMA,
                   field_docs=FIELD_DOCS, options=options,
                   source=source_description(args), make_stats=nlquad_stats,
                   make_card=nlquad_card, baselines=nlquad_baselines)


def format_summary(result: dict[str, Any]) -> str:
    """The readable end-of-run summary printed to the user."""
    counts = result["stats"]["counts"]
    pages, questions = counts.get("pages", {}), counts.get("questions", {})
    dedup, inputs = counts.get("dedup", {}), counts.get("input", {})
    lines = [
        f"NLQuAD release {result['manifest']['version']} written to {result['path']}",
        *[f"  {label + ':':<22} {count}" for label, count in cdx_count_rows(counts)],
        f"  pages read:            {pages.get('read', 0)}",
        f"  articles parsed:       {pages.get('parsed', 0)}",
    ]
    for name, count in sorted(inputs.items()):
        if name != "pages":
            lines.append(f"  input {name}: {count}")
    for name, count in sorted(pages.items()):
        if name.startswith("skipped."):
            lines.append(f"  pages skipped, {name[8:]}: {count}")
    lines += [
        f"  duplicate captures:    {dedup.get('duplicate_capture', 0)}",
        f"  duplicate texts:       {dedup.get('duplicate_content', 0)}",
        f"  promo link lists removed: {counts.get('documents', {}).get('promo_list_removed', 0)}",
        f"  questions found:       {questions.get('found', 0)}",
        f"  QA pairs kept:         {questions.get('kept', 0)}",
    ]
    for name, count in sorted(questions.items()):
        if name.startswith("dropped."):
            lines.append(f"  QA pairs dropped, {name[8:]}: {count}")
    lines.append(dead_letter_line(counts))
    for split, rows in rows_in_split_order(result["manifest"]):
        lines.append(f"  rows in {split}: {rows}")
    return "\n".join(lines + empty_release_warning(result["manifest"]))


def run(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the pipeline and publish the release; returns manifest, stats and path."""
    args, beam_args = parse_args(argv)
    args.version = resolve_version(args.version)
    target = ReleaseTarget.create(args.output, DATASET, args.version)
    return run_release(target, args.overwrite, beam_args,
                       lambda pipeline: build_pipeline(pipeline, args, target),
                       lambda: finalize(target, args, beam_args),
                       skip_existing=args.skip_existing)


def main(argv: list[str] | None = None) -> int:
    return cli_main(run, format_summary, argv)


if __name__ == "__main__":
    sys.exit(main())
