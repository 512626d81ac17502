"""The annotation round trip: export tasks, simulate workers, import votes into a release.

    python -m pipelines.annotate export --release DIR --tool label-studio|votes --out DIR
        [--stage S ...] [--ways K] [--split S ...] [--votes GLOB ...] [--previous ANNOTATED]
    python -m pipelines.annotate simulate --release DIR --out votes.jsonl [--ways K]
        [--split S ...] [--workers N] [--spammers SHARE] [--accuracy LOW,HIGH] [--seed N]
        [--truth FILE]
    python -m pipelines.annotate import --dataset nq|jnq|jboolq --input DIR --votes GLOB
        [--output ROOT] [--version V] [--ways train=1,dev=5,test=5]
        [--previous ANNOTATED [--recompute-all]] [Beam options]

``import`` is a Beam pipeline that writes a versioned annotated release
(``<output>/<dataset>_annotated/<version>/``); ``export`` and ``simulate`` write plain files.
With ``--previous`` (an earlier annotated release, or ``auto``), ``export`` writes tasks only
for the examples that still need judgments and ``import`` carries the judgments that still
hold (``transforms.annotation.carry``).
"""

from __future__ import annotations

import argparse
import sys

if __name__ == "__main__":  # --help without importing Beam (pipelines.cli.quick_help)
    from pipelines.cli.quick_help import exit_with_stored_help

    exit_with_stored_help("python -m pipelines.annotate")
from pathlib import Path
from typing import Any

from pipelines.cli.annotate_next import next_summary, run_next, run_simulate_requests
from pipelines.cli.annotate_parser import (
    COMMAND,  # noqa: F401 - the command's name, as before (pipelines.annotate.COMMAND)
    DATASETS,
    DEFAULT_WAYS,
    build_parser,
    ways_for,
    ways_option,
)
from pipelines.cli.beam_options import parse_pipeline_args
from pipelines.cli.entry import cli_main
from pipelines.cli.errors import UsageError
from pipelines.cli.inputs import matching_files
from transforms.annotation.export import STAGES, ExportError, check_export, export_tasks
from transforms.annotation.manifest import NotAReleaseError, base_dataset, read_release
from transforms.annotation.nq_files import NqFilesError, nq_files_release
from transforms.annotation.previous import PreviousAnnotations, open_previous, previous_path
from transforms.annotation.simulate import WorkerPool
from transforms.annotation.simulate_release import write_simulated_votes
from transforms.annotation.suggestions import SuggestionError, suggestions_for, summary_lines
from transforms.core.files import FileSystems


def _release(path: str):
    try:
        return read_release(path)
    except NotAReleaseError as error:
        raise UsageError(str(error)) from None


def _export_previous(args: argparse.Namespace, release, base: str
                     ) -> PreviousAnnotations | None:
    """``--previous`` of ``export``: ``auto`` looks next to the release's dataset directory."""
    if not args.previous:
        return None
    root = FileSystems.split(FileSystems.split(release.path)[0])[0]
    path = previous_path(args.previous, root, base)
    return None if path is None else open_previous(path, base, release.path,
                                                   release.fingerprint)


def _export_release(args: argparse.Namespace):
    """``--release``: a release, or Google's NQ original-format files (``nq_files``), checked
    before any work."""
    try:
        return read_release(args.release)
    except NotAReleaseError as error:
        if not matching_files(args.release):
            raise UsageError(f"--release {error}, nor does it match NQ original-format "
                             ".jsonl / .jsonl.gz files") from None
    if args.previous:
        raise UsageError("--previous needs a --release that is a release, not NQ files")
    try:
        return nq_files_release(args.release, args.split)
    except NqFilesError as error:
        raise UsageError(str(error)) from None


def run_export(args: argparse.Namespace) -> dict[str, Any]:
    release = _export_release(args)
    base = base_dataset(release)
    stages = args.stage or list(STAGES.get(base, ()))
    splits = args.split or list(release.splits)
    default = ways_for(ways_option(DEFAULT_WAYS.get(base, "10")), splits)
    try:
        check_export(release, args.tool, stages, default, splits, args.out,
                     args.tasks_per_file)
        suggestions = suggestions_for(args.suggestions, args.control_rate, args.seed, base)
        previous = _export_previous(args, release, base)
        ways = (ways_for(args.ways, splits) if args.ways else
                {s: (previous.ways if previous else {}).get(s, n) for s, n in default.items()})
        manifest = export_tasks(release, args.tool, stages, ways, splits, args.out,
                                args.votes, args.tasks_per_file, previous=previous,
                                suggestions=suggestions)
    except (ExportError, SuggestionError, NqFilesError) as error:
        raise UsageError(str(error)) from None
    return {"command": "export", "out": args.out, "manifest": manifest,
            "previous": args.previous}


def run_simulate(args: argparse.Namespace) -> dict[str, Any]:
    if args.requests or args.votes:
        return run_simulate_requests(args)
    release = _release(args.release)
    base = base_dataset(release)
    if base not in DATASETS:
        raise UsageError(f"{release.dataset} releases cannot be annotated")
    splits = args.split or list(release.splits)
    ways = ways_for(args.ways or ways_option(DEFAULT_WAYS[base]), splits)
    for path in filter(None, (args.out, args.truth)):
        if Path(path).exists():
            raise UsageError(f"{path} exists; simulate never overwrites")
    if args.truth is not None and Path(args.truth).resolve() == Path(args.out).resolve():
        raise UsageError("--truth must be another file than --out")
    if args.workers < max(ways.values()):
        raise UsageError("--workers must be at least --ways")
    pool = WorkerPool(size=args.workers, accuracy=args.accuracy, spammer_share=args.spammers,
                      seed=args.seed)
    counts = write_simulated_votes(release, splits, ways, pool, args.out, truth=args.truth)
    return {"command": "simulate", "out": args.out, "truth": args.truth, "counts": counts}


def run(argv: list[str] | None = None) -> dict[str, Any]:
    parser = build_parser()
    args, beam_args = parse_pipeline_args(parser, argv)
    if args.command != "import" and beam_args:
        raise UsageError(f"unrecognized options: {' '.join(beam_args)}")
    if args.command == "export":
        return run_export(args)
    if args.command == "simulate":
        return run_simulate(args)
    if args.command == "next":
        return run_next(args)
    from pipelines.cli.annotate_import import run_import  # the one command that needs Beam

    return run_import(args, beam_args)


def format_summary(result: dict[str, Any]) -> str:
    if result.get("command") == "next":
        return next_summary(result)
    if result.get("command") == "export":
        manifest = result["manifest"]
        ways = ", ".join(f"{split} {n}-way" for split, n in manifest["ways"].items())
        lines = [f"exported {manifest['release']['dataset']} {manifest['release']['version']} "
                 f"for {manifest['tool']} to {result['out']} ({ways})"]
        lines += [f"  {stage}: {n} tasks" for stage, n in manifest["tasks"].items()]
        lines += summary_lines(manifest)
        if "previous" in manifest:
            previous = manifest["previous"]
            lines.append(f"  not exported: {manifest['carried']} examples whose annotations in "
                         f"{previous['dataset']} {previous['version']} "
                         f"({previous['fingerprint']}) still hold")
        elif result.get("previous"):
            lines.append(f"  --previous {result['previous']}: no annotated release yet, "
                         "every example exported")
        return "\n".join(lines)
    if result.get("command") == "simulate":
        counts = result["counts"]
        truth = f"; hidden truth in {result['truth']}" if result.get("truth") else ""
        return (f"simulated {counts['votes']} votes on {counts['items']} items to "
                f"{result['out']} (seeded synthetic workers: not real annotations){truth}")
    from pipelines.cli.annotate_import import import_summary

    return import_summary(result)


def main(argv: list[str] | None = None) -> int:
    return cli_main(run, format_summary, argv)


if __name__ == "__main__":
    sys.exit(main())
