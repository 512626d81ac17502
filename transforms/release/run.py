"""Run a release-writing pipeline and publish its release: shared by every ``pipelines/``.

``run_release`` refuses an existing version before any work, runs the Beam pipeline into the
staging directory, then ``publish`` folds the accounting into ``stats.json``, writes the data
card and the manifest and moves the release into place. A failure discards the staging
directory and re-raises: no half-written version is ever left behind.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from transforms.release.docs import build_manifest, read_accounting, to_json_bytes
from transforms.release.files import (
    ReleaseTarget,
    discard_staging,
    ensure_empty_splits,
    finalize_release,
    write_bytes,
)


def recorded_options(args: argparse.Namespace, beam_args: list[str]) -> dict[str, Any]:
    """All options as given (JSON-serializable), for the manifest."""
    options = {k: v for k, v in vars(args).items() if not k.startswith("_")}
    options["beam_args"] = beam_args
    return json_safe(options)


def json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def publish(target: ReleaseTarget, *, overwrite: bool, splits: list[str], schema: pa.Schema,
            field_docs: dict[str, str], options: dict[str, Any], source: dict[str, Any],
            make_stats: Callable[[dict, dict], dict],
            make_card: Callable[[dict, dict], str],
            baselines: Callable[[str], dict] | None = None) -> dict[str, Any]:
    """Fold accounting into stats.json, write the card and manifest, move into place.

    ``baselines(staging_dir)``, when given, scores untrained baselines on the staged dev split;
    its result goes to ``stats["baselines"]`` (and so to the card)."""
    ensure_empty_splits(target.staging_dir, splits, schema)
    tallies, histograms = read_accounting(target)
    stats = make_stats(tallies, histograms)
    if baselines is not None:
        stats["baselines"] = baselines(target.staging_dir)
    write_bytes(FileSystems.join(target.staging_dir, "stats.json"), to_json_bytes(stats))
    manifest = build_manifest(target, options=options, source=source, schema=schema,
                              field_docs=field_docs, splits=splits)
    card = make_card(manifest, stats).encode("utf-8")
    write_bytes(FileSystems.join(target.staging_dir, "README.md"), card)
    manifest["files"]["README.md"] = {"sha256": hashlib.sha256(card).hexdigest(),
                                      "bytes": len(card)}
    manifest["files"] = dict(sorted(manifest["files"].items()))
    finalize_release(target, overwrite, to_json_bytes(manifest))
    return {"manifest": manifest, "stats": stats, "path": target.final_dir}


def run_release(target: ReleaseTarget, overwrite: bool, beam_args: list[str],
                build: Callable[[beam.Pipeline], list],
                finish: Callable[[], dict[str, Any]],
                skip_existing: bool = False) -> dict[str, Any]:
    """Check the version is writable, run the pipeline, and let the pipeline publish.

    ``build(pipeline)`` composes the pipeline and returns the PCollections whose completion
    means everything is staged (the outputs of its writers). A last step, which takes them
    all as side inputs and so runs after them, calls ``finish()`` to publish the release: the
    release is committed by the job itself, also when a Dataflow launcher does not wait.
    With ``skip_existing`` an already published version is returned as it is (no work).
    Returns the published manifest, stats and path."""
    if skip_existing and not overwrite and target.exists():
        return published(target)
    target.check_writable(overwrite)
    try:
        with beam.Pipeline(options=PipelineOptions(beam_args)) as pipeline:
            written = build(pipeline)
            waits = [beam.pvalue.AsList(pcoll) for pcoll in written]
            (pipeline
             | "PublishTrigger" >> beam.Create([None])
             | "Publish" >> beam.Map(_publish_after, finish, *waits))
    except BaseException:
        discard_staging(target)
        raise
    return published(target)


def _publish_after(_: None, finish: Callable[[], Any], *written: list) -> None:
    """Runs once every writer is done (its side inputs are their outputs)."""
    finish()


def published(target: ReleaseTarget) -> dict[str, Any]:
    """Manifest, stats and path of a published release."""
    from transforms.release.files import MANIFEST, read_json

    return {"manifest": read_json(FileSystems.join(target.final_dir, MANIFEST)),
            "stats": read_json(FileSystems.join(target.final_dir, "stats.json")),
            "path": target.final_dir}


def cli_main(run: Callable[[list[str] | None], dict[str, Any]],
             summarize: Callable[[dict[str, Any]], str], argv: list[str] | None = None) -> int:
    """Entry point of a pipeline module: run, print the summary; exit 2 on an existing version."""
    import logging
    import sys

    from transforms.release.files import ReleaseExistsError

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    for noisy in ("apache_beam", "bm25s"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        result = run(argv)
    except ReleaseExistsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(summarize(result))
    return 0


def parse_bool(value: str | bool) -> bool:
    """``true/false/1/0/yes/no`` (Flex Templates pass every parameter as ``--name=value``)."""
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes", "y", "on"):
        return True
    if lowered in ("false", "0", "no", "n", "off", ""):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {value!r}")


def add_flag(parser, name: str, help: str) -> None:  # noqa: A002 - argparse's name
    """A boolean option usable as ``--name`` or ``--name=true|false``."""
    parser.add_argument(name, nargs="?", const=True, default=False, type=parse_bool,
                        metavar="BOOL", help=help)


def add_underscore_aliases(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Accept ``--split_ratios`` for ``--split-ratios`` (Beam and Flex Template style)."""
    for action in list(parser._actions):
        for option in list(action.option_strings):
            alias = option.replace("-", "_")
            if option.startswith("--") and "-" in option[2:] and alias != option:
                alias = "--" + option[2:].replace("-", "_")
                action.option_strings.append(alias)
                parser._option_string_actions[alias] = action
    return parser


def split_ratios_option(spec: str) -> tuple[tuple[str, float], ...]:
    """argparse ``type`` of ``--split-ratios``: names and normalized ratios, or a usage error."""
    from filters.text.splits import parse_split_ratios

    try:
        return parse_split_ratios(spec)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def resolve_version(version: str, now: datetime | None = None) -> str:
    """``auto`` -> the UTC launch date ``YYYY.MM.DD`` (the rule for scheduled releases);
    any other value is used as given."""
    if version != "auto":
        return version
    return (now or datetime.now(UTC)).strftime("%Y.%m.%d")


def add_release_arguments(parser: argparse.ArgumentParser, dataset: str, version: str) -> None:
    """``--output``, ``--version``, ``--overwrite`` and ``--skip-existing`` for every pipeline."""
    parser.add_argument("--output", default="releases",
                        help=f"release root (local or gs://...); the release goes to "
                             f"<output>/{dataset}/<version>/")
    parser.add_argument("--version", default=version,
                        help=f"dataset version to write (default {version}); 'auto' names it "
                             "by the UTC launch date, YYYY.MM.DD")
    add_flag(parser, "--overwrite", "replace an existing release of the same version")
    add_flag(parser, "--skip-existing", "when the version is already published, do nothing "
                                        "and exit 0 (for retried scheduled launches)")


def baseline_table(stats: dict[str, Any]) -> list[str]:
    """Markdown lines of ``stats["baselines"]``: ``{"split", "n", "metrics", "rows": [...]}``."""
    table = stats.get("baselines")
    if not table:
        return []
    metrics = table["metrics"]
    if not table["rows"]:
        return ["## Untrained baselines", "", table.get("note", ""), ""]
    lines = ["## Untrained baselines",
             "",
             (f"On all {table['n']} questions. " if table["split"] == "all" else
              f"On the {table['split']} split ({table['n']} questions). ") + table.get("note", ""),
             "",
             "| baseline | " + " | ".join(metrics) + " |",
             "|---|" + "---|" * len(metrics)]
    for row in table["rows"]:
        lines.append(f"| {row['name']} | " + " | ".join(
            f"{row[m]:.3f}" if isinstance(row.get(m), float) else str(row.get(m, "-"))
            for m in metrics) + " |")
    return [*lines, ""]
