"""Run a release-writing pipeline and publish its release: what every ``pipelines/`` module calls.

``run_release`` refuses an existing version before any work, runs the Beam pipeline into the
staging directory, then ``publish`` folds the accounting into ``stats.json``, writes the data
card and the manifest and commits the release. A failure discards the staging directory and
re-raises: no half-written version is ever left behind.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from transforms.release.accounting import read_accounting
from transforms.release.commit import discard_staging, finalize_release
from transforms.release.formats import to_json_bytes
from transforms.release.manifest import build_manifest
from transforms.release.shards import ensure_empty_splits
from transforms.release.storage import read_json, write_bytes
from transforms.release.target import MANIFEST, ReleaseTarget


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
    return {"manifest": read_json(FileSystems.join(target.final_dir, MANIFEST)),
            "stats": read_json(FileSystems.join(target.final_dir, "stats.json")),
            "path": target.final_dir}

