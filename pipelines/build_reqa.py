"""Build a ReQA sentence-retrieval set (Ahmad, Constant, Yang, Cer 2019) from SQuAD, NQ or NLQuAD.

    python -m pipelines.build_reqa --runner=DirectRunner                  # bundled SQuAD sample
    python -m pipelines.build_reqa --source nq                            # bundled NQ sample
    python -m pipelines.build_reqa --source squad --input train-v1.1.json
    python -m pipelines.build_reqa --source squad --input train-v1.1.json --splitter reqa
    python -m pipelines.build_reqa --source nq --input 'v1.0/train/nq-train-*.jsonl.gz'
    python -m pipelines.build_reqa --source nq --input releases/nq/1.0.0 --split dev
    python -m pipelines.build_reqa --source nlquad --input releases/nlquad/1.0.0

ReQA ("ReQA: An Evaluation for End-to-End Answer Retrieval Models", MRQA 2019) splits every
paragraph into sentences; the answer index holds each sentence with its paragraph as context,
and a question's correct answers are the sentences containing its answer span. Writes
``<output>/reqa_<source>/<version>/``: ``questions/*.parquet`` (qid, question,
correct_candidate_ids, source, document, example_ids), ``candidates/*.parquet``
(candidate_id, sentence, context, paragraph_id, document, source, sentence_start,
sentence_end), ``rejected/`` (dropped examples with their reason, dead letters),
``stats.json`` (with BM25 baselines over every question at sentence and paragraph level),
a card and the manifest. ``--splitter reqa`` uses the paper's own sentence rules instead of
spaCy's ``senter``. ``--source nlquad`` needs ``--input`` (an NLQuAD
release directory or Parquet glob). Other ``--options`` go to Beam.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

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
from transforms.release import (
    HistogramFn,
    InvalidLatestError,
    NotAReleaseError,
    ReleaseTarget,
    WriteAccounting,
    WriteShards,
    list_files,
    parquet_bytes,
    publish,
    recorded_options,
    require_intact,
    resolve_release,
    run_release,
    write_bytes,
)
from transforms.release.formats import shard_name
from transforms.reqa.baselines import reqa_baselines
from transforms.reqa.build import BuildReqa
from transforms.reqa.card import SOURCE_NAMES, reqa_card_for, reqa_stats, summary_value
from transforms.reqa.labeling import SPLITTERS
from transforms.reqa.schema import (
    CANDIDATES_SCHEMA,
    FIELD_DOCS,
    QUESTIONS_SCHEMA,
    RELEASE_SCHEMA,
    SOURCES,
)
from transforms.sources.compressed import DEFAULT_MAX_DECODED_BYTES, MIB

DATASET_PREFIX = "reqa_"
DATASET_VERSION = "1.0.0"
NQ_MAX_DECODED_MIB = 16 * 1024  # per NQ file, streamed: memory holds one line
OTHER_MAX_DECODED_MIB = DEFAULT_MAX_DECODED_BYTES / MIB  # per SQuAD file, read whole
GROUPS = ("questions", "candidates")
SCHEMAS = {"questions": QUESTIONS_SCHEMA, "candidates": CANDIDATES_SCHEMA}
SAMPLES = {"squad": "squad_sample.json", "nq": "nq_sample.jsonl.gz"}


def sample_path(source: str) -> str:
    """The bundled sample of ``source`` (team-written; no sample for nlquad)."""
    return str(resources.files("pipelines").joinpath("samples", "reqa", SAMPLES[source]))


def dataset_name(source: str) -> str:
    return DATASET_PREFIX + source


COMMAND = "python -m pipelines.build_reqa"  # recorded in the manifest; the card names it


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.build_reqa",
        description="Build a ReQA sentence-level answer retrieval set (questions and "
                    "candidate sentences with their paragraph) from SQuAD v1.1, Natural "
                    "Questions or an NLQuAD release. Any other --option is passed to Beam.")
    parser.add_argument("--source", choices=SOURCES, default="squad",
                        help="input format: squad (SQuAD v1.1 JSON, default), nq (NQ "
                             "original-format JSON lines) or nlquad (NLQuAD release Parquet)")
    parser.add_argument("--input",
                        help="glob of input files, or a release directory (nq: "
                             "<release>/nq_original/<split>/*.jsonl.gz; nlquad: "
                             "<release>/<split>/*.parquet; a dataset directory with LATEST "
                             "means that version); default: the bundled sample of squad and "
                             "nq; required for nlquad")
    parser.add_argument("--no-verify", action="store_true",
                        help="with a release as --input, do not check it against its "
                             "manifest first (a damaged release is refused, exit 5)")
    parser.add_argument("--split", default="",
                        help="with a release directory as --input: read only this split "
                             "(default: every split)")
    add_release_arguments(parser, "reqa_<source>", DATASET_VERSION)
    parser.add_argument("--splitter", choices=SPLITTERS, default="senter",
                        help="sentence splitter: senter (spaCy en_core_web_sm's statistical "
                             "senter, default) or reqa (the ReQA paper's regular-expression "
                             "rules, sb_sed.py of google/retrieval-qa-eval: rebuilds ReQA "
                             "SQuAD as published, e.g. 10,250 candidates on SQuAD v1.1 dev)")
    parser.add_argument("--batch-size", type=positive_int, default=64,
                        help="paragraphs' tasks per spaCy batch")
    parser.add_argument("--max-rows-per-shard", type=positive_int, default=50_000,
                        help="Parquet rows per shard file")
    add_decoded_limit_argument(
        parser, None, "input file",
        f"{NQ_MAX_DECODED_MIB} for --source nq, whose files are streamed a line at a time and "
        f"an official NQ train file decodes to several GiB; {OTHER_MAX_DECODED_MIB:g} for "
        "squad, read whole")
    return add_underscore_aliases(parser)


def max_decoded_bytes(args: argparse.Namespace) -> int:
    """``--max-decoded-mib`` in bytes, its default depending on ``--source``."""
    return decoded_limit(args, NQ_MAX_DECODED_MIB if args.source == "nq"
                         else OTHER_MAX_DECODED_MIB)


def _is_dir(path: str) -> bool:
    if "*" in path or "?" in path or "[" in path:
        return False
    if "://" not in path:
        import os

        return os.path.isdir(path)
    return bool(FileSystems.match([path.rstrip("/") + "/*"])[0].metadata_list)


def resolve_input(source: str, path: str | None, split: str = "") -> str:
    """The file glob to read for ``--input`` (see ``--help``)."""
    if not path:
        if source not in SAMPLES:
            raise ValueError(f"--source {source} needs --input (a release directory or glob)")
        return sample_path(source)
    if not _is_dir(path):
        return path
    root = _release_dir(path) or path.rstrip("/")  # else a directory of input files
    part = split or "*"
    if source == "nq":
        if FileSystems.exists(FileSystems.join(root, "nq_original")):
            return FileSystems.join(root, "nq_original", part, "*.jsonl*")
        return FileSystems.join(root, "*.jsonl*")
    if source == "nlquad":
        return FileSystems.join(root, part, "*.parquet")
    return FileSystems.join(root, "*.json")


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    parser = build_parser()
    args, beam_args = parse_pipeline_args(parser, argv)
    if args.batch_size < 1:
        parser.error("--batch-size must be at least 1")
    try:
        args._pattern = resolve_input(args.source, args.input, args.split)
    except ValueError as error:
        parser.error(str(error))
    require_inputs([args._pattern])
    release = release_of(args.input)
    if release and not args.no_verify:
        require_intact(release)
    return args, beam_args


def release_of(path: str | None) -> str | None:
    """The release version directory ``--input`` names, if it names one."""
    if not path or not _is_dir(path):
        return None
    return _release_dir(path)


def _release_dir(path: str) -> str | None:
    """The version directory a directory means (itself, or its ``LATEST``'s version:
    ``resolve_release``), ``None`` when it is no release; a ``LATEST`` naming no sibling
    version raises ``InvalidLatestError`` (a usage error, exit 2)."""
    try:
        return resolve_release(path)
    except InvalidLatestError:
        raise
    except NotAReleaseError:
        return None


def build_pipeline(pipeline: beam.Pipeline, args: argparse.Namespace,
                   target: ReleaseTarget) -> list:
    """Compose the ReQA pipeline into the staging directory; returns the writers' outputs."""
    questions, candidates, statistics, results = pipeline | "Reqa" >> BuildReqa(
        args.source, args._pattern, args.batch_size, args.splitter, max_decoded_bytes(args))
    staging, max_rows = target.staging_dir, args.max_rows_per_shard
    written = [
        questions
        | "KeyQuestions" >> beam.Map(lambda row: ("questions", row))
        | "WriteQuestions" >> WriteShards(
            staging, lambda row: f"{row['question']}\x00{row['qid']}", parquet_bytes,
            "parquet", QUESTIONS_SCHEMA, max_rows),
        candidates
        | "KeyCandidates" >> beam.Map(lambda row: ("candidates", row))
        | "WriteCandidates" >> WriteShards(
            staging, lambda row: f"{row['document']}\x00{row['paragraph_id']}\x00"
                                 f"{row['sentence_start']:010d}\x00{row['candidate_id']}",
            parquet_bytes, "parquet", CANDIDATES_SCHEMA, max_rows),
    ]
    histograms = statistics | "Histograms" >> beam.CombinePerKey(HistogramFn())
    written.append(pipeline | "Accounting" >> WriteAccounting(staging, results, histograms))
    return written


def ensure_groups(target: ReleaseTarget) -> None:
    """A zero-row file with the group's own schema for a group that got no rows."""
    present = {p.split("/")[0] for p in list_files(target.staging_dir)}
    for group in GROUPS:
        if group not in present:
            write_bytes(FileSystems.join(target.staging_dir, group,
                                         shard_name(group, 0, 1, "parquet")),
                        parquet_bytes([], SCHEMAS[group]))


def source_description(args: argparse.Namespace) -> dict[str, Any]:
    origin = "the bundled sample" if not args.input else args.input
    return {"kind": args.source,
            "description": f"{SOURCE_NAMES[args.source]}, {origin} ({args._pattern})",
            "pattern": args._pattern, "split": args.split or "all"}


def run(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the pipeline and publish the release; returns manifest, stats and path."""
    args, beam_args = parse_args(argv)
    args.version = resolve_version(args.version)
    target = ReleaseTarget.create(args.output, dataset_name(args.source), args.version)
    source = source_description(args)

    def finish() -> dict[str, Any]:
        ensure_groups(target)
        return publish(target, overwrite=args.overwrite, allow_empty=args.allow_empty,
                       splits=list(GROUPS),
                       schema=RELEASE_SCHEMA, field_docs=FIELD_DOCS,
                       options=recorded_options(args, beam_args, COMMAND), source=source,
                       make_stats=reqa_stats, make_card=reqa_card_for(args.source),
                       baselines=reqa_baselines)

    return run_release(target, args.overwrite, beam_args,
                       lambda pipeline: build_pipeline(pipeline, args, target), finish,
                       skip_existing=args.skip_existing)


def format_summary(result: dict[str, Any]) -> str:
    """The readable end-of-run summary printed to the user."""
    stats, manifest = result["stats"], result["manifest"]
    examples = stats["examples"]
    lengths = stats["lengths"]
    lines = [
        f"{manifest['dataset']} {manifest['version']} written to {result['path']}",
        f"  input examples:        {examples['read']}",
        f"  kept:                  {examples['kept']}",
    ]
    for reason, count in stats["drop_reasons"].items():
        lines.append(f"  dropped, {reason}: {count}")
    lines += [
        f"  malformed:             {examples['malformed']} (see rejected/dead_letter/)",
        dead_letter_line(stats["counts"]),
        f"  questions:             {stats['questions']}",
        f"  candidate sentences:   {stats['candidates']}",
        f"  paragraphs:            {stats['paragraphs']}",
        f"  sentences/paragraph:   {summary_value(lengths, 'sentences_per_paragraph')}",
        f"  correct/question:      {summary_value(lengths, 'correct_per_question')}",
    ]
    return "\n".join(lines + empty_release_warning(manifest))


def main(argv: list[str] | None = None) -> int:
    return cli_main(run, format_summary, argv)


if __name__ == "__main__":
    sys.exit(main())
