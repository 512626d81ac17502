"""Run any dataset spec: parse, plan, stage with its composite transform, publish, summarize.

Every ``pipelines/build_<dataset>.py`` is ``spec_main(SPEC)``; ``run_spec`` is what the
Python API and the tests call. The order is the same for every dataset: options are parsed
and checked (exit 2 or 4 before any work), the spec plans the run, the release target is
created, every network endpoint the plan names is asked once (``Plan.endpoints``; one that
cannot be reached is exit 4 before any work), the job stages the release, and the publish
step (inside the job, after every writer) folds the accounting into ``stats.json``, writes
the card and manifest and moves the version into place (``transforms.release.run_release``).
A stage that stops the run because its endpoint keeps failing (``EndpointFailing``) is
raised as itself, also from runners that report a worker's error as text.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from pipelines.cli.beam_options import parse_pipeline_args
from pipelines.cli.entry import cli_main
from pipelines.cli.rerun import rerun_argv
from pipelines.cli.spec_parser import build_parser, options_from
from transforms.clients.breaker import EndpointFailing
from transforms.clients.preflight import check_endpoints
from transforms.core.errors import UsageError
from transforms.core.options import dash_name, option_fields, recorded, resolve_version
from transforms.core.spec import DatasetSpec, Plan
from transforms.core.summary import dead_lettered_total
from transforms.release import ReleaseTarget, publish, recorded_options, run_release
from transforms.release.first_rejected import first_dead_letter_line
from transforms.release.manifest import json_safe
from transforms.release.refresh.lock import refresh_lock
from transforms.release.refresh.previous import (
    PreviousRelease,
    changed_row_options,
    open_previous,
    refuse_changed_options,
)
from transforms.release.refresh.report import summary_lines
from transforms.release.simulated import simulated_record, warning_text

_BEAM_NOTE = re.compile(r" \[while running .*$", re.DOTALL)


def run_spec(spec: DatasetSpec, argv: list[str] | None = None) -> dict[str, Any]:
    """Run ``spec``'s pipeline from command-line arguments; returns manifest, stats, path."""
    args, beam_args = parse_pipeline_args(build_parser(spec), argv)
    return run_options(spec, options_from(spec, args), beam_args)


def run_options(spec: DatasetSpec, options: Any,
                beam_args: list[str] | None = None) -> dict[str, Any]:
    """Run ``spec``'s pipeline with typed options and Beam arguments."""
    beam_args = list(beam_args or [])
    given = options
    plan = spec.plan(options)
    options = plan.options
    version = resolve_version(options.version or spec.version)
    target = ReleaseTarget.create(options.output, plan.release.dataset, version)
    manifest_options = manifest_options_of(spec, plan, version, beam_args, given)
    skipped = options.skip_existing and not options.overwrite and target.exists()
    with refresh_lock(target, None if skipped else options.previous):  # held until published
        if not skipped:
            plan = dataclasses.replace(plan, previous=open_refresh(spec, plan, version,
                                                                   manifest_options))
            target.check_writable(options.overwrite)  # exit 3 before asking the network
            check_endpoints(plan.endpoints)

        def finish() -> dict[str, Any]:
            return publish_plan(plan, target, manifest_options)

        try:
            return run_release(target, options.overwrite, beam_args,
                               lambda pipeline: pipeline | spec.transform(plan, target),
                               finish, skip_existing=options.skip_existing)
        except Exception as error:
            reason = endpoint_failure(error)
            if reason is None:
                raise
            raise EndpointFailing(reason) from error


def endpoint_failure(error: BaseException) -> str | None:
    """The reason of an ``EndpointFailing`` that stopped the job, raised as itself or
    reported as text by a runner that runs stages in other processes; None otherwise."""
    if isinstance(error, EndpointFailing):
        return _BEAM_NOTE.sub("", str(error))
    match = re.search(rf"\b{EndpointFailing.__name__}: (.*?)(?: \[while running|$)",
                      str(error), re.MULTILINE)
    return match.group(1) if match else None


def open_refresh(spec: DatasetSpec, plan: Plan, version: str,
                 manifest_options: dict[str, Any]) -> PreviousRelease | None:
    """The release ``--previous`` names, checked before any work (``transforms.release.
    refresh.previous``): exit 2 for a dataset that cannot carry rows, for ``--recompute-all``
    without ``--previous``, and for row-changing options that differ from the previous
    release's (unless ``--recompute-all``); exit 5 for a damaged previous release."""
    options = plan.options
    if options.recompute_all and not options.previous:
        raise UsageError("--recompute-all only applies with --previous")
    if not options.previous:
        return None
    if spec.refresh is None:
        raise UsageError(f"{spec.name} does not carry rows between versions: build it "
                         f"without --previous")
    previous = open_previous(options.previous, output=options.output,
                             dataset=plan.release.dataset, version=version,
                             schema=plan.release.schema)
    if previous is not None and spec.refresh.check is not None:
        spec.refresh.check(previous, options.recompute_all)
    if previous is not None and not options.recompute_all:
        defaults = spec.options()
        rows = {field.name: (info.name or dash_name(field.name))
                for field, info in option_fields(spec.options) if info.rows}
        changed = changed_row_options(
            previous, manifest_options,
            {name: json_safe(getattr(defaults, name)) for name in rows})
        refuse_changed_options(previous, changed, rows)
    return previous


def manifest_options_of(spec: DatasetSpec, plan: Plan, version: str, beam_args: list[str],
                        given: Any = None) -> dict[str, Any]:
    """The options a manifest records: every option (the version resolved), the plan's
    recorded values, the Beam arguments, the command, and the command line that builds the
    release again (``pipelines.cli.rerun``: the options as ``given``, before the plan
    resolved them, with the version resolved)."""
    values = {**recorded(dataclasses.replace(plan.options, version=version)), **plan.recorded}
    given = dataclasses.replace(plan.options if given is None else given, version=version)
    command_line = rerun_argv(build_parser(spec), recorded(given), beam_args, spec.command)
    return recorded_options(argparse.Namespace(**values), beam_args, spec.command, command_line)


def publish_plan(plan: Plan, target: ReleaseTarget,
                 manifest_options: dict[str, Any]) -> dict[str, Any]:
    """Publish the staged release of ``plan`` (the job's last step)."""
    if plan.before_publish is not None:
        plan.before_publish(target)
    kind = plan.release
    return publish(target, overwrite=plan.options.overwrite,
                   allow_empty=plan.options.allow_empty, previous=plan.previous,
                   recompute_all=plan.options.recompute_all,
                   refresh_note=plan.refresh_note, splits=list(plan.splits),
                   schema=kind.schema, field_docs=dict(kind.field_docs),
                   options=manifest_options, source=dict(plan.source),
                   make_stats=kind.make_stats, make_card=kind.make_card,
                   baselines=kind.baselines, invariants=kind.invariants,
                   simulated=None if plan.simulated is None else dict(plan.simulated))


def spec_main(spec: DatasetSpec, argv: list[str] | None = None) -> int:
    """The ``main`` of a pipeline module: run, print the summary, return the exit code."""
    return cli_main(lambda arguments: run_spec(spec, arguments), summary_of(spec), argv)


def summary_of(spec: DatasetSpec) -> Callable[[dict[str, Any]], str]:
    """The end-of-run summary: the spec's, the first dead letter's reason and detail when
    there is one, then what a refresh carried, then a warning when the release holds
    simulated annotations."""

    def summary(result: dict[str, Any]) -> str:
        record = simulated_record(result["manifest"])
        warning = [] if record is None else [f"  WARNING: simulated annotations. "
                                             f"{warning_text(record)}"]
        first = (first_dead_letter_line(result["path"])
                 if dead_lettered_total(result["stats"].get("counts", {})) else None)
        return "\n".join([spec.summary(result), *([first] if first else []),
                          *summary_lines(result["stats"]), *warning])

    return summary


class EntryPoints(NamedTuple):
    """What a ``pipelines/build_<dataset>.py`` module exposes."""

    build_parser: Callable[[], argparse.ArgumentParser]
    run: Callable[..., dict[str, Any]]
    main: Callable[..., int]
    format_summary: Callable[[dict[str, Any]], str]


def entry_points(spec: DatasetSpec) -> EntryPoints:
    """``build_parser()``, ``run(argv)``, ``main(argv)`` and ``format_summary(result)`` of
    ``spec``: a builder module is ``build_parser, run, main, format_summary =
    entry_points(SPEC)``."""

    def parser() -> argparse.ArgumentParser:
        return build_parser(spec)

    def run(argv: list[str] | None = None) -> dict[str, Any]:
        return run_spec(spec, argv)

    def main(argv: list[str] | None = None) -> int:
        return spec_main(spec, argv)

    return EntryPoints(parser, run, main, summary_of(spec))
