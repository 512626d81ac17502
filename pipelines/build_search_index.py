"""Build the local BM25 search index used by ``build_nq --search local``.

    python -m pipelines.build_search_index --runner=DirectRunner          # bundled corpus
    python -m pipelines.build_search_index --source pages --input DIR     # DIR/index.tsv + pages
    python -m pipelines.build_search_index --source enterprise \\
        --input 'enwiki-NS0-*-ENTERPRISE-HTML.json.tar.gz' --lang en

Beam reads and cleans the pages (in parallel over dump files); the BM25 index is then built
on one machine, out of core (memory bounded by the vocabulary, not the corpus; see the README's
"Search at Wikipedia scale"). Output ``<output>/search_<lang>/<version>/``: ``bm25/`` (bm25s
files), ``pages/`` (the page store), ``docs/*.parquet``, stats, card and manifest.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from pipelines.cli.beam_options import parse_pipeline_args
from pipelines.cli.entry import cli_main
from pipelines.cli.errors import NoInputError, UsageError
from pipelines.cli.http_limits import add_decoded_limit_argument, decoded_limit
from pipelines.cli.inputs import require_inputs
from pipelines.cli.options import add_release_arguments, add_underscore_aliases, resolve_version
from pipelines.cli.summary import dead_letter_line, empty_release_warning
from transforms.core.accounting import SIDE_OUTPUTS
from transforms.core.progress import ShowProgress
from transforms.release import (
    ReleaseTarget,
    WriteAccounting,
    WriteShards,
    list_files,
    parquet_bytes,
    publish,
    recorded_options,
    run_release,
)
from transforms.search_index.card import index_card_for, index_stats
from transforms.search_index.stages import (
    EXTRACT_ROWS_PER_SHARD,
    EXTRACT_SCHEMA,
    EXTRACTED,
    ReadCorpusDirectory,
    ReadEnterpriseDump,
    index_extracted,
)
from transforms.sources.compressed import DEFAULT_MAX_DECODED_BYTES, MIB
from transforms.sources.search_corpus import (
    DOC_SCHEMA,
    FIELD_DOCS,
    sample_corpus_dir,
)

DATASET_VERSION = "1.0.0"


COMMAND = "python -m pipelines.build_search_index"  # recorded in the manifest; the card names it


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.build_search_index",
        description="Build the local BM25 search index (bm25s) over Wikipedia and web pages. "
                    "Any other --option is passed to Apache Beam.")
    parser.add_argument("--source", choices=("sample", "pages", "enterprise"), default="sample",
                        help="bundled corpus (default), a directory with index.tsv, or "
                             "Wikimedia Enterprise HTML dumps (*.json.tar.gz)")
    parser.add_argument("--input", help="--source pages: the directory; enterprise: a glob")
    parser.add_argument("--lang", default="en", help="Wikipedia language of the pages")
    add_release_arguments(parser, "search_<lang>", DATASET_VERSION)
    add_decoded_limit_argument(parser, DEFAULT_MAX_DECODED_BYTES / MIB,
                               "page file, index.tsv or dump line")
    parser.set_defaults(output="indexes")
    return add_underscore_aliases(parser)


def build_pipeline(pipeline: beam.Pipeline, args: argparse.Namespace,
                   target: ReleaseTarget) -> list:
    if args.source == "enterprise":
        read = (pipeline
                | "MatchDumps" >> fileio.MatchFiles(args.input)
                | "OpenDumps" >> fileio.ReadMatches(compression=CompressionTypes.UNCOMPRESSED)
                | "ReadDumps" >> beam.ParDo(ReadEnterpriseDump(args.lang, decoded_limit(args)))
                .with_outputs(*SIDE_OUTPUTS, main="main"))
    else:
        directory = args.input or sample_corpus_dir(args.lang)
        read = (pipeline
                | "Directory" >> beam.Create([directory])
                | "ReadDirectory" >> beam.ParDo(ReadCorpusDirectory(decoded_limit(args)))
                .with_outputs(*SIDE_OUTPUTS, main="main"))
    pages = (read.main
     | "Progress" >> ShowProgress("pages indexed")
     | "Key" >> beam.Map(lambda record: ("pages", record))
     | "WritePages" >> WriteShards(FileSystems.join(target.staging_dir, EXTRACTED),
                                   lambda r: r["url"], parquet_bytes, "parquet",
                                   EXTRACT_SCHEMA, max_rows_per_shard=EXTRACT_ROWS_PER_SHARD))
    return [pages, pipeline | "Accounting" >> WriteAccounting(target.staging_dir, [read])]


def input_patterns(args: argparse.Namespace) -> list[str]:
    """What must exist before the job: the dump glob, or the directory's ``index.tsv``."""
    if args.source == "enterprise":
        return [args.input]
    return [FileSystems.join(args.input or sample_corpus_dir(args.lang), "index.tsv")]


def index_pages(target: ReleaseTarget, lang: str, source: str) -> None:
    """Build the index from the staged pages. No page read is an error even with
    ``--allow-empty``: bm25s cannot index nothing."""
    if not any(name.startswith(f"{EXTRACTED}/") for name in list_files(target.staging_dir)):
        raise NoInputError(f"no pages were read from {source}: nothing to index")
    index_extracted(target, lang)


def run(argv: list[str] | None = None) -> dict[str, Any]:
    parser = build_parser()
    args, beam_args = parse_pipeline_args(parser, argv)
    args.version = resolve_version(args.version)
    if args.source == "enterprise" and not args.input:
        raise UsageError("--source enterprise needs --input GLOB")
    if "://" in args.output:
        raise UsageError("the index is built on this machine: --output must be a local path")
    require_inputs(input_patterns(args))
    target = ReleaseTarget.create(args.output, f"search_{args.lang}", args.version)
    source = {"kind": args.source, "description": args.input or sample_corpus_dir(args.lang)}

    def finish() -> dict[str, Any]:
        index_pages(target, args.lang, source["description"])
        return publish(target, overwrite=args.overwrite, allow_empty=args.allow_empty,
                       splits=["docs"], schema=DOC_SCHEMA,
                       field_docs=FIELD_DOCS, options=recorded_options(args, beam_args, COMMAND),
                       source=source, make_stats=index_stats, make_card=index_card_for(args.lang))

    return run_release(target, args.overwrite, beam_args,
                       lambda pipeline: build_pipeline(pipeline, args, target), finish,
                       skip_existing=args.skip_existing)


def format_summary(result: dict[str, Any]) -> str:
    counts = result["stats"]["counts"]
    pages = counts.get("pages", {})
    return "\n".join([
        f"Search index written to {result['path']}",
        f"  pages read:    {pages.get('read', 0)}",
        f"  pages indexed: {result['manifest']['rows_per_split']['docs']}",
        f"  malformed dump lines: {pages.get('malformed_lines', 0)}",
        f"  unreadable pages: {pages.get('unreadable_files', 0)}",
        dead_letter_line(counts, width=15),
        *empty_release_warning(result["manifest"]),
    ])


def main(argv: list[str] | None = None) -> int:
    return cli_main(run, format_summary, argv)


if __name__ == "__main__":
    sys.exit(main())
