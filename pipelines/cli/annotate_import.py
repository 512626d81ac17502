"""``python -m pipelines.annotate import``: votes into a versioned annotated release (Beam).

The one ``annotate`` command that runs a Beam job; ``pipelines.annotate`` imports this module
only for it, so ``export``, ``simulate`` and ``next`` run without importing Beam. Every option,
input and ``--previous`` is checked before any work (exit 2, or 5 for a damaged release).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from filters.annotation.jnq import JnqThresholds
from filters.text.terminal import printable
from pipelines.cli.annotate_next import NQ_NOT_CURTAILED
from pipelines.cli.annotate_parser import COMMAND, DEFAULT_WAYS, build_parser, ways_for, ways_option
from pipelines.cli.annotate_quality import FIELD_DOCS as QUALITY_FIELD_DOCS
from pipelines.cli.annotate_quality import check_quality_options, read_gold_file
from pipelines.cli.annotate_stop import import_stop_rule
from pipelines.cli.errors import UsageError
from pipelines.cli.inputs import matching_files, require_inputs
from pipelines.cli.options import resolve_version
from pipelines.cli.rerun import rerun_argv, subcommand
from pipelines.cli.summary import dead_letter_line, empty_release_warning
from transforms.annotation import jnq_import, jnq_schema, nq_import
from transforms.annotation.build import AnnotateRelease, ImportInput
from transforms.annotation.carry_report import carried_summary_line
from transforms.annotation.counters import EXAMPLES, VOTES
from transforms.annotation.judgment_counts import judgment_summary_lines
from transforms.annotation.manifest import (
    EXPORT_MANIFEST,
    InvalidLatestError,
    NotAReleaseError,
    base_dataset,
    read_release,
)
from transforms.annotation.nq_attach import AttachNqAnnotations
from transforms.annotation.previous import (
    PreviousAnnotations,
    PreviousRefused,
    changed_options,
    open_previous,
    previous_path,
)
from transforms.annotation.publish import annotation_dataset_card, annotation_stats, jnq_baselines
from transforms.annotation.read_votes import not_regular_file
from transforms.annotation.release_examples import split_files, split_patterns
from transforms.annotation.suggestion_agreement import (
    export_manifest_path,
    read_export_suggestions,
)
from transforms.annotation.worker_table import (
    DECISION_SCHEMA,
    NQ_DECISION_SCHEMA,
    WORKER_SCHEMA,
)
from transforms.jnq.schema import FIELD_DOCS as JNQ_FIELD_DOCS
from transforms.jnq.training_tables import FIELD_DOCS as TRAINING_FIELD_DOCS
from transforms.jnq.training_tables import TRAINING_TABLES
from transforms.nq.examples import FIELD_DOCS as NQ_FIELD_DOCS
from transforms.nq.examples import HF_SCHEMA
from transforms.nq.publish import ensure_empty_jsonl, nq_dev_baselines
from transforms.nq.simplified import FIELD_DOCS as SIMPLIFIED_FIELD_DOCS
from transforms.nq.simplified import WriteSimplified, ensure_simplified
from transforms.registry import release_kind
from transforms.release import (
    ReleaseTarget,
    WriteAccounting,
    WriteShards,
    list_files,
    parquet_bytes,
    parquet_rows,
    publish,
    recorded_options,
    require_intact,
    rows_in_split_order,
    run_release,
)


def _inputs(args: argparse.Namespace) -> list[ImportInput]:
    inputs = []
    for path in args.input:
        try:
            release = read_release(path)
        except InvalidLatestError as error:  # a dataset root whose LATEST names no version
            raise UsageError(str(error)) from None
        except NotAReleaseError:
            release = None
        if release is None:
            files = matching_files(path)
            if not files:
                raise UsageError(f"--input {path} is neither a release nor matching files")
            split = (args.split or ["dev"])[0]
            kinds = {"nq" if ".jsonl" in f else "jnq" if f.endswith(".parquet") else "?"
                     for f in files}
            wanted = "nq" if args.dataset == "nq" else "jnq"
            if kinds != {wanted}:
                kind = "NQ original-format .jsonl[.gz]" if wanted == "nq" else "JNQ Parquet"
                raise UsageError(f"--input {path}: --dataset {args.dataset} reads {kind} files")
            base = args.dataset
            inputs.append(ImportInput(path, base, None, (split,),
                                      tuple(split_files([(split, path)]))))
            continue
        if not args.no_verify:
            require_intact(release.path)
        base = base_dataset(release)
        allowed = ("jboolq", "jnq") if args.dataset == "jboolq" else (args.dataset,)
        if base not in allowed:
            raise UsageError(f"--input {path} is a {base} release, not {args.dataset}")
        splits = args.split or list(release.splits)
        missing = [s for s in splits if s not in release.splits]
        if missing:
            raise UsageError(f"split(s) {', '.join(missing)} not in {path}")
        inputs.append(ImportInput(release.path, base, release.fingerprint, tuple(splits),
                                  tuple(split_files(split_patterns(release.path, base,
                                                                   splits))),
                                  release.version))
    return inputs



def write_worker_tables(tables: dict[str, Any], staging: str, max_rows: int,
                        nq: bool = False) -> list:
    """Write ``workers/all/`` and ``decisions/<split>/``. The workers table is one group,
    ``all``, below ``workers/`` (a table directly in the version directory would read as a
    split)."""
    if not tables:
        return []
    schema, item = (NQ_DECISION_SCHEMA, "example_id") if nq else (DECISION_SCHEMA,
                                                                   "question_id")
    return [
        tables["workers"] | "WriteWorkers" >> WriteShards(
            staging, lambda r: r["annotator_id"], parquet_bytes, "parquet", WORKER_SCHEMA,
            max_rows, subdir="workers"),
        tables["decisions"] | "WriteDecisions" >> WriteShards(
            staging, lambda r: f"{r[item]}/{r['decision']}/{r.get('paragraph')}",
            parquet_bytes, "parquet", schema, max_rows, subdir="decisions"),
    ]


def build_import(pipeline: beam.Pipeline, args: argparse.Namespace, inputs: list[ImportInput],
                 ways: dict[str, int], target: ReleaseTarget,
                 previous: PreviousAnnotations | None = None) -> list:
    thresholds = JnqThresholds(**{k[2:]: v for k, v in vars(args).items()
                                  if k.startswith("t_")})
    annotate = AnnotateRelease(
        args.dataset, inputs, args.votes, ways, thresholds, previous, args.recompute_all,
        curtailed=args.curtailed, aggregate=args.aggregate, gold=read_gold_file(args.gold),
        stop=import_stop_rule(args))
    rows, judgments, results = pipeline | "Annotate" >> annotate
    staging, max_rows = target.staging_dir, args.max_rows_per_shard
    if args.dataset == "nq":
        vote_schema = nq_import.VOTE_SCHEMA
        files = [f for item in inputs for f in item.files]
        attached = (pipeline
                    | "AnnotatedFiles" >> beam.Create(files)
                    | "AttachAnnotations" >> beam.ParDo(AttachNqAnnotations(staging),
                                                        beam.pvalue.AsDict(rows)))
        written = [attached, attached | "WriteSimplified" >> WriteSimplified(staging)]
        vote_key = lambda r: f"{r['example_id']}/{r['annotator_id']}"  # noqa: E731
    else:
        vote_schema = jnq_import.VOTE_SCHEMA
        written = [rows | "WriteRows" >> WriteShards(
            staging, lambda r: r["question"], parquet_bytes, "parquet",
            jnq_schema.ANNOTATED_SCHEMA, max_rows)]
        for config, (make_rows, schema) in TRAINING_TABLES[args.dataset].items():
            written.append(rows
                           | f"Pairs_{config}" >> beam.FlatMapTuple(
                               lambda split, row, f=make_rows: ((split, r) for r in f(row)))
                           | f"Write_{config}" >> WriteShards(
                               staging, lambda r: r["id"], parquet_bytes, "parquet", schema,
                               max_rows, subdir=config))
        vote_key = lambda r: (f"{r['question_id']}/{r['annotator_id']}/{r['stage']}/"  # noqa: E731
                              f"{r['paragraph']}")
    written.append(judgments | "WriteVotes" >> WriteShards(
        staging, vote_key, parquet_bytes, "parquet", vote_schema, max_rows, subdir="votes"))
    written += write_worker_tables(annotate.tables, staging, max_rows,
                                   nq=args.dataset == "nq")
    written.append(pipeline | "Accounting" >> WriteAccounting(staging, results))
    return written


def _export_ways(args: argparse.Namespace, first: ImportInput) -> dict[str, int] | None:
    """The ways of ``--export``'s manifest (an export's, or an ``annotate next`` round's),
    after checking it is an export of ``first``."""
    if not args.export:
        return None
    path = export_manifest_path(args.export)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        fingerprint = manifest["release"]["fingerprint"]
        ways = manifest["ways"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(f"--export {args.export}: no readable {EXPORT_MANIFEST} ({error})"
                         ) from None
    if first.fingerprint is not None and fingerprint != first.fingerprint:
        raise UsageError(f"--export {args.export} was exported from release {fingerprint}, "
                         f"not from {first.path} ({first.fingerprint})")
    if not isinstance(ways, dict):
        raise UsageError(f"--export {args.export}: its ways are not per split")
    return ways


def _baseline_split(staging_dir: str, base: str, splits: list[str]) -> str:
    """dev, else test, else any split with annotated rows (the baselines' split)."""
    preferred = [s for s in ("dev", "test") if s in splits] + splits
    rows: dict[str, int] = {}
    for name in list_files(staging_dir):
        split = name.split("/")[0]
        if name.endswith(".parquet") and split in splits:
            path = FileSystems.join(staging_dir, *name.split("/"))
            rows[split] = rows.get(split, 0) + parquet_rows(path)
    return next((split for split in preferred if rows.get(split)), preferred[0])


def _check_thresholds(args: argparse.Namespace) -> None:
    t = {k[2:]: v for k, v in vars(args).items() if k.startswith("t_")}
    if (t["workers"] < 1 or min(t.values()) < 0 or t["exist"] < t["ambiguous"]
            or t["yes_no_question"] < t["yes_no_ambiguous"]
            or max(v for k, v in t.items() if k not in ("workers", "span_min_votes"))
            > t["workers"]):
        raise UsageError("JNQ thresholds must be counts out of --workers (>= 1), with "
                         "--exist >= --ambiguous and --yes-no-question >= --yes-no-ambiguous")


def _check_vote_files(patterns: list[str]) -> None:
    """Every ``--votes`` pattern matches files, and only regular files: a directory fails
    the job and a FIFO blocks it forever, so either is a usage error before any work."""
    require_inputs(patterns)
    for pattern in patterns:
        for path in matching_files(pattern):
            if not_regular_file(path):
                raise UsageError(f"--votes {printable(pattern)}: {printable(path)} is not a "
                                 "regular file (a directory, FIFO or device); name votes files")


def _import_previous(args: argparse.Namespace, first: ImportInput, target: ReleaseTarget
                     ) -> PreviousAnnotations | None:
    """``--previous`` of ``import``, checked and verified (exit 2 or 5) before any work."""
    if not args.previous:
        if args.recompute_all:
            raise UsageError("--recompute-all applies to --previous (aggregate everything "
                             "anew instead of carrying its annotations)")
        return None
    path = previous_path(args.previous, args.output, args.dataset)
    if path is None:
        return None
    if path.rstrip("/") == target.final_dir.rstrip("/"):
        raise PreviousRefused(f"--previous {args.previous} is the version being written "
                              f"({target.final_dir}); name a new --version")
    return open_previous(path, args.dataset, first.path if first.fingerprint else None,
                         first.fingerprint)


def _import_ways(args: argparse.Namespace, splits: list[str], first: ImportInput,
                 previous: PreviousAnnotations | None) -> dict[str, int]:
    """``--ways``, else the export's, else the previous annotated release's, else the
    dataset's default, per split."""
    exported = _export_ways(args, first) or {}
    if args.ways:
        return ways_for(args.ways, splits)
    default = ways_option(DEFAULT_WAYS[args.dataset])
    carried = previous.ways if previous is not None else {}
    ways = {split: exported.get(split) or carried.get(split) or (
        default if isinstance(default, int) else default.get(split, 0)) for split in splits}
    if not all(ways.values()):
        raise UsageError(f"--ways names no count for split(s) "
                         f"{', '.join(s for s, n in ways.items() if not n)}")
    return ways


def run_import(args: argparse.Namespace, beam_args: list[str]) -> dict[str, Any]:
    _check_thresholds(args)
    if args.curtailed and args.dataset == "nq":
        raise UsageError(NQ_NOT_CURTAILED)
    stop = import_stop_rule(args)
    check_quality_options(args)
    _check_vote_files(args.votes)
    inputs = _inputs(args)
    splits = sorted({s for item in inputs for s in item.splits},
                    key=lambda s: ({"train": 0, "dev": 1, "test": 2}.get(s, 3), s))
    args.version = resolve_version(args.version)
    target = ReleaseTarget.create(args.output, f"{args.dataset}_annotated", args.version)
    first = inputs[0]
    previous = _import_previous(args, first, target)
    ways = _import_ways(args, splits, first, previous)
    thresholds = {k: v for k, v in vars(args).items() if k.startswith("t_")}
    changed = (changed_options(previous, ways, thresholds, args.aggregate, stop)
               if previous is not None else [])
    if changed and not args.recompute_all:
        raise PreviousRefused(
            f"{', '.join(changed)}: the annotations of --previous {previous.label} were "
            "aggregated otherwise, so they cannot be carried; pass the previous values, or "
            "--recompute-all to aggregate every item anew from the votes given")
    source = {"kind": "annotation", "votes": list(args.votes),
              "annotates": {"dataset": args.dataset, "base_dataset": args.dataset,
                            "path": first.path, "fingerprint": first.fingerprint or "-",
                            "version": first.version},
              "merged": [item.path for item in inputs[1:]]}
    if previous is not None:
        source["carried_from"] = previous.describe()
    command_line = rerun_argv(subcommand(build_parser(), "import"), vars(args), beam_args,
                              COMMAND)
    options = {**recorded_options(args, beam_args, COMMAND, command_line), "ways": ways}
    base = args.dataset
    carried = {} if previous is None else {
        "carried_from": previous.describe(), "recompute_all": bool(args.recompute_all),
        "carried_simulated": previous.simulated()}
    suggested = read_export_suggestions(args.export)

    def finish() -> dict[str, Any]:
        if base == "nq":
            ensure_empty_jsonl(target, splits)
            ensure_simplified(target.staging_dir)
        schema = HF_SCHEMA if base == "nq" else jnq_schema.ANNOTATED_SCHEMA
        docs = ({**nq_import.VOTE_FIELD_DOCS, **NQ_FIELD_DOCS, **SIMPLIFIED_FIELD_DOCS,
                 **QUALITY_FIELD_DOCS}
                if base == "nq" else
                {**jnq_import.VOTE_FIELD_DOCS, **JNQ_FIELD_DOCS, **QUALITY_FIELD_DOCS,
                 **jnq_schema.ANNOTATED_FIELD_DOCS, **TRAINING_FIELD_DOCS})
        eval_split = _baseline_split(target.staging_dir, base, splits)
        return publish(
            target, overwrite=args.overwrite, allow_empty=args.allow_empty, splits=splits,
            schema=schema, field_docs=docs, options=options, source=source,
            make_stats=lambda t, h: annotation_stats(base, target.staging_dir, splits, t, h,
                                                     **carried, suggestions=suggested,
                                                     stop=stop.describe() if stop.confident
                                                     else None),
            make_card=annotation_dataset_card(base),
            baselines=(lambda d: nq_dev_baselines(d, eval_split)) if base == "nq"
            else (lambda d: jnq_baselines(d, eval_split)),
            lineage=None if previous is None else previous.lineage,
            invariants=_invariants(target.dataset))

    return run_release(target, args.overwrite, beam_args,
                       lambda pipeline: build_import(pipeline, args, inputs, ways, target,
                                                     previous),
                       finish, skip_existing=args.skip_existing)


def _invariants(dataset: str) -> tuple:
    """What every row of an annotated release must hold (its spec's release kind)."""
    kind = release_kind(dataset)
    return kind.invariants if kind is not None else ()


def import_summary(result: dict[str, Any]) -> str:
    """The summary of an import: the release written, its vote and example counts, what
    was carried, the judgments spent, dead letters and rows per split."""
    counts = result["stats"]["counts"]
    manifest = result["manifest"]
    lines = [f"{manifest['dataset']} {manifest['version']} written to {result['path']}"]
    for stage in (VOTES, EXAMPLES):
        lines += [f"  {stage} {name.replace('.', ', ')}: {n}"
                  for name, n in sorted(counts.get(stage, {}).items())]
    lines += carried_summary_line(result["stats"])
    lines += judgment_summary_lines(result["stats"])
    if result["stats"].get("simulated_votes"):
        lines.append("  NOTE: simulated annotations (annotate simulate), not real workers")
    lines.append(dead_letter_line(counts))
    lines += [f"  rows in {split}: {n}" for split, n in rows_in_split_order(manifest)]
    return "\n".join(lines + empty_release_warning(manifest))
