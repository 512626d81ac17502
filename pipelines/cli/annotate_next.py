"""``python -m pipelines.annotate next``: the next round of an adaptive annotation campaign.

Reads the votes so far and writes tasks only for the judgments still needed
(``transforms.annotation.rounds``); every path and name is checked before any work (exit 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from filters.annotation.jnq import JnqThresholds
from pipelines.cli.annotate_gold import gold_rounds_of
from pipelines.cli.annotate_parser import DEFAULT_WAYS, ways_option
from pipelines.cli.annotate_stop import stop_rule
from pipelines.cli.errors import UsageError
from transforms.annotation.export import ExportError
from transforms.annotation.gold_rounds import gold_summary_lines
from transforms.annotation.manifest import NotAReleaseError, base_dataset, read_release
from transforms.annotation.rounds import (
    NextOptions,
    next_round,
    read_round_votes,
    round_summary,
    vote_paths,
)
from transforms.annotation.simulate import WorkerPool
from transforms.annotation.simulate_gold import answer_round
from transforms.annotation.suggestions import SuggestionError, suggestions_for, summary_lines

NQ_NOT_CURTAILED = ("--curtailed applies to jnq/jboolq: NQ keeps every annotation (train is "
                    "1-way, dev/test's 5 are the evaluation reference, NQ §5); import NQ "
                    "votes without it")


def thresholds_of(args: argparse.Namespace) -> JnqThresholds:
    """The ``--workers``, ``--good-question``, ... options as ``JnqThresholds``."""
    return JnqThresholds(**{k[2:]: v for k, v in vars(args).items() if k.startswith("t_")})


def next_options(args: argparse.Namespace) -> NextOptions:
    """The typed options of ``annotate next`` (``UsageError`` for a bad stop rule, release
    or ways; the stop rule first, before the release is read)."""
    stop = stop_rule(args)
    try:
        release = read_release(args.release)
    except NotAReleaseError as error:
        raise UsageError(str(error)) from None
    base = base_dataset(release)
    splits = tuple(args.split or release.splits)
    ways = args.ways or ways_option(DEFAULT_WAYS.get(base, "10"))
    if isinstance(ways, int):
        per_split = {split: ways for split in splits}
    else:
        missing = [s for s in splits if s not in ways]
        if missing:
            raise UsageError(f"--ways names no count for split(s) {', '.join(missing)}")
        per_split = {split: ways[split] for split in splits}
    try:
        suggestions = suggestions_for(args.suggestions, args.control_rate, args.seed, base)
    except SuggestionError as error:
        raise UsageError(str(error)) from None
    return NextOptions(release=release, out=args.out, ways=per_split,
                       votes=tuple(args.votes), tool=args.tool,
                       thresholds=thresholds_of(args), tasks_per_file=args.tasks_per_file,
                       splits=splits, suggestions=suggestions,
                       gold=gold_rounds_of(args, base), stop=stop)


def run_next(args: argparse.Namespace) -> dict[str, Any]:
    """Write the next round under ``--out``; ``{"command": "next", "out", "manifest"}``."""
    options = next_options(args)
    try:
        manifest = next_round(options)
    except (ExportError, SuggestionError) as error:
        raise UsageError(str(error)) from None
    return {"command": "next", "out": args.out, "manifest": manifest}


def next_summary(result: dict[str, Any]) -> str:
    """``open items: N; judgments requested: M`` or ``all decided`` (then the
    suggestions' lines, with ``--suggestions``)."""
    return "\n".join([round_summary(result["manifest"]), *summary_lines(result["manifest"]),
                      *gold_summary_lines(result["manifest"])])


def run_simulate_requests(args: argparse.Namespace) -> dict[str, Any]:
    """``annotate simulate --requests FILE [--votes GLOB]``: simulated workers answer one
    round of ``annotate next`` (the votes so far name who already judged what)."""
    if not args.requests:
        raise UsageError("--votes applies to --requests (the votes so far of a round)")
    if getattr(args, "truth", None):
        raise UsageError("--truth applies to a full simulation, not to --requests")
    try:
        release = read_release(args.release)
    except NotAReleaseError as error:
        raise UsageError(str(error)) from None
    base = base_dataset(release)
    if not Path(args.requests).is_file():
        raise UsageError(f"--requests {args.requests} is not a file (annotate next writes "
                         "<out>/requests.jsonl)")
    if Path(args.out).exists():
        raise UsageError(f"--out {args.out} exists; simulate never overwrites")
    ways = args.ways or ways_option(DEFAULT_WAYS.get(base, "10"))
    per_split = {split: ways if isinstance(ways, int) else ways.get(split, 0)
                 for split in release.splits}
    if args.workers < max(per_split.values()):
        raise UsageError("--workers must be at least --ways")
    for pattern in args.votes:
        if not vote_paths(pattern):
            raise UsageError(f"--votes {pattern} matches no file")
    judged, _ = read_round_votes(tuple(args.votes), base)
    accuracy = getattr(args, "accuracy", None) or WorkerPool().accuracy
    pool = WorkerPool(size=args.workers, accuracy=accuracy, spammer_share=args.spammers,
                      seed=args.seed)
    counts = answer_round(release, args.requests, judged, per_split, pool, args.out)
    return {"command": "simulate", "out": args.out, "truth": None, "counts": counts}
