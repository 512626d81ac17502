"""``release publish``: its arguments, the callable command, and what it prints.

The Hub limits (timeouts, deadlines, answer cap) are the fields of
``transforms.release.hub_options.HubOptions``, added to the parser from the dataclass and
turned back into it, so the two cannot drift. Every failure of the Hub is a
``HubPublishError``: one line on stderr, any token redacted, exit 1. A release made from
simulated votes is published all the same, its report's ``simulated`` saying so (a
``WARNING:`` line first); ``--dry-run`` also says which files are expected to go to LFS.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from filters.text.terminal import printable
from pipelines.cli.errors import EXIT_JOB_FAILED, EXIT_OK, UsageError
from pipelines.cli.options import add_option
from transforms.core.options import dash_name, option_fields
from transforms.release import resolve_release
from transforms.release.hub_options import HUB_GROUP, HubOptions
from transforms.release.hub_secrets import known_tokens, redact
from transforms.release.hub_upload_modes import LFS, upload_mode
from transforms.release.manifest import read_manifest
from transforms.release.simulated import simulated_record, warning_text


def add_publish_parser(commands: Any) -> argparse.ArgumentParser:
    """The ``publish`` subcommand on ``commands`` (argparse subparsers)."""
    hub = commands.add_parser("publish", help="send a version to a Hugging Face Hub dataset "
                                              "repository, tagged with the version")
    hub.add_argument("path", metavar="DIR",
                     help="a release version, or a dataset directory (its LATEST)")
    hub.add_argument("--to", required=True, metavar="hf://datasets/ORG/NAME",
                     help="the Hub dataset repository (created when missing)")
    hub.add_argument("--dry-run", action="store_true",
                     help="list what would be sent (repo, revision, files, sizes, which go "
                          "to LFS; a warning for simulated annotations); no network")
    hub.add_argument("--private", action="store_true", help="create the repo private")
    hub.add_argument("--json", action="store_true", help="print one JSON object")
    limits = hub.add_argument_group(HUB_GROUP)
    for field, info in option_fields(HubOptions):
        add_option(limits, dash_name(field.name), info, field.default, info.help)
    return hub


def hub_options(args: argparse.Namespace) -> HubOptions:
    """The ``HubOptions`` of parsed ``publish`` arguments."""
    return HubOptions(**{f.name: getattr(args, f.name) for f, _ in option_fields(HubOptions)})


def publish(path: str, to: str, *, dry_run: bool = False, private: bool = False,
            endpoint: str | None = None, options: HubOptions | None = None) -> dict[str, Any]:
    """Send the release at ``path`` (a version, or a dataset directory: its ``LATEST``) to
    ``to`` within the limits of ``options``; with ``dry_run`` only the plan. Raises
    ``UsageError`` for a bad ``--to``, ``HubPublishError`` when the Hub fails it."""
    from transforms.release.hub_publish import (  # requests: only publish needs it
        InvalidHubTarget,
        hub_repo_id,
        plan_publish,
        publish_to_hub,
    )

    try:
        hub_repo_id(to)
        plan = plan_publish(resolve_release(path), to)
    except InvalidHubTarget as error:
        raise UsageError(str(error)) from error
    simulated = simulated_warning(plan.path)
    if dry_run:
        return {**dry_run_report(plan.to_dict()), "simulated": simulated, "dry_run": True}
    return {**publish_to_hub(plan, endpoint=endpoint, private=private, options=options),
            "simulated": simulated}


def simulated_warning(version_dir: str) -> str | None:
    """What the release says of its simulated annotations (``None`` when it holds none)."""
    record = simulated_record(read_manifest(version_dir))
    return None if record is None else warning_text(record)


def dry_run_report(report: dict[str, Any]) -> dict[str, Any]:
    """The plan's report with each file's expected upload mode (``upload``: ``lfs`` or
    ``regular``, and ``upload_reason``) and the LFS totals (``transforms.release
    .hub_upload_modes``: a new dataset repo's ``.gitattributes`` and the 10 MiB rule)."""
    files = []
    for entry in report["files"]:
        mode = upload_mode(entry["path"], entry["bytes"])
        files.append({**entry, "upload": mode.mode, "upload_reason": mode.reason})
    lfs = [entry for entry in files if entry["upload"] == LFS]
    return {**report, "files": files, "lfs_files": len(lfs),
            "lfs_bytes": sum(entry["bytes"] for entry in lfs)}


def run_publish(args: argparse.Namespace) -> int:
    """``release publish`` from parsed arguments: prints the report, returns the exit code."""
    from transforms.release.hub_errors import HubPublishError

    try:
        report = publish(args.path, args.to, dry_run=args.dry_run, private=args.private,
                         options=hub_options(args))
    except HubPublishError as error:
        print(f"error: {printable(redact(str(error), known_tokens()))}", file=sys.stderr)
        return EXIT_JOB_FAILED
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
        return EXIT_OK
    if report.get("simulated"):
        print(printable(f"WARNING: simulated annotations: {report['simulated']}"))
    if report.get("already_committed"):
        print(printable(f"main already holds {report['dataset']} {report['version']} "
                        f"(commit {report['commit']}), nothing sent: tagged it "
                        f"{report['revision']} in {report['repo']}"))
    else:
        verb = "would send" if args.dry_run else "sent"
        print(printable(f"{verb} {report['dataset']} {report['version']} to {report['repo']} "
                        f"(branch main, tag {report['revision']}): {len(report['files'])} "
                        f"files, {report['bytes']} bytes"))
    if args.dry_run:
        print(printable(f"{report['lfs_files']} files ({report['lfs_bytes']} bytes) would go "
                        "to large-file storage (LFS), the others inside the commit, as a new "
                        "dataset repo's .gitattributes and the 10 MiB rule decide; the repo's "
                        "own .gitattributes may decide otherwise"))
    for entry in report["files"]:
        mode = f"  {entry['upload']:<7}" if args.dry_run else ""
        print(printable(f"  {entry['bytes']:>12}{mode}  {entry['path']}"))
    for name in report.get("deleted", []):
        print(printable(f"  deleted from main: {name}"))
    return EXIT_OK
