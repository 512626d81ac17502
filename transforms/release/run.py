"""Run a release-writing pipeline and publish its release: what every ``pipelines/`` module calls.

``run_release`` restores an overwrite a killed run interrupted, removes abandoned staging
directories, refuses an existing version before any work, claims its staging directory, runs
the Beam pipeline into it, then ``publish`` folds the accounting into ``stats.json``, writes
the data card and the manifest and commits the release. A failure discards the staging
directory and re-raises: no half-written version is ever left behind. ``publish`` refuses a
release without a single row (``EmptyReleaseError``) unless ``allow_empty``; that run's staging
directory, with its ``stats.json`` and ``rejected/``, is kept for inspection and the error says
where and why (``transforms.release.failed_run``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions

from transforms.core.arrow_memory import release_arrow_memory
from transforms.core.direct_runner import runner_for
from transforms.core.gc_pacing import rare_full_collections
from transforms.core.spec import TableInvariants
from transforms.core.split_warnings import split_card_note
from transforms.release.accounting import read_accounting
from transforms.release.card import DatasetCard
from transforms.release.card_sections import shared_sections
from transforms.release.commit import (
    LatestMovedError,
    LatestNotUpdatedError,
    discard_staging,
    finalize_release,
    repair_latest,
)
from transforms.release.croissant import croissant_metadata
from transforms.release.diff import diff_staged
from transforms.release.failed_run import empty_run_message, keep_for_inspection
from transforms.release.formats import to_json_bytes
from transforms.release.hub import front_matter
from transforms.release.invariants import ReleaseInvariantError, require_invariants
from transforms.release.leakage import within_release_leakage
from transforms.release.lineage import PREVIOUS, Lineage
from transforms.release.manifest import build_manifest
from transforms.release.refresh.previous import PreviousRelease
from transforms.release.refresh.report import (
    changes_section,
    diff_summary,
    refresh_stats,
    take_refresh_tallies,
)
from transforms.release.shards import ensure_empty_splits
from transforms.release.simulated import (
    SIMULATED,
    record_from_stats,
    release_info,
    simulated_record,
    with_card_note,
)
from transforms.release.staging import (
    DEFAULT_STALE_AFTER,
    claim_staging,
    clean_abandoned,
    read_owner,
)
from transforms.release.storage import read_json, write_bytes
from transforms.release.tables import main_config, release_tables
from transforms.release.target import MANIFEST, ReleaseExistsError, ReleaseTarget
from transforms.release.verify import require_intact

ABANDONED = "abandoned_staging_removed"
SKIPPED = "skipped"  # run_release's result: --skip-existing found the version published


class EmptyReleaseError(RuntimeError):
    """Every split of the release has 0 rows and ``allow_empty`` was not given."""


# the publish step's errors that keep their class (and so their exit code) across runners
RELEASE_ERRORS = (EmptyReleaseError, ReleaseExistsError, LatestNotUpdatedError,
                  LatestMovedError, ReleaseInvariantError)


def publish(target: ReleaseTarget, *, overwrite: bool, splits: list[str], schema: pa.Schema,
            field_docs: dict[str, str], options: dict[str, Any], source: dict[str, Any],
            make_stats: Callable[[dict, dict], dict],
            make_card: Callable[[dict, dict], str],
            baselines: Callable[[str], dict] | None = None,
            allow_empty: bool = False, previous: PreviousRelease | None = None,
            recompute_all: bool = False, refresh_note: str = "",
            lineage: Lineage | None = None,
            simulated: dict[str, Any] | None = None,
            invariants: Sequence[TableInvariants] = ()) -> dict[str, Any]:
    """Fold accounting into stats.json, write the card and manifest, move into place.

    ``baselines(staging_dir)``, when given, scores untrained baselines on the staged dev split;
    its result goes to ``stats["baselines"]`` (and so to the card), as does the same question
    or document in two splits (``stats["leakage"]``, ``leakage.within_release_leakage``). Raises
    ``EmptyReleaseError`` before anything is published when no split has a row, unless
    ``allow_empty``. When this run removed abandoned staging directories,
    ``stats["release"]["abandoned_staging_removed"]`` says how many. With ``previous`` (a
    refresh), the manifest records its lineage, ``stats["refresh"]`` the ``refresh.*``
    tallies, the diff against it and ``refresh_note`` (what the dataset's refresh did, when
    not the default), and the card says what changed (``transforms.release.refresh.report``).
    ``lineage`` records only the release this one was made from (an annotated release that
    carried the judgments of an earlier one), with no refresh figures. ``simulated``: the
    simulated-annotations record of the release this one was built from
    (``transforms.release.simulated.derived_record``); a release whose own stats count
    simulated votes gets one too. The manifest records it as ``simulated`` and the card, its
    front matter and the Croissant metadata say so. First every staged row, carried or new,
    is checked against the release kind's ``invariants`` and its class labels
    (``transforms.release.invariants``): a violation raises ``ReleaseInvariantError`` (exit
    5) naming the rows, and nothing is published."""
    release_arrow_memory()
    ensure_empty_splits(target.staging_dir, splits, schema)
    require_invariants(target.staging_dir, invariants, f"{target.dataset} {target.version}",
                       carried=previous is not None or lineage is not None)
    tallies, histograms = read_accounting(target)
    tallies, refresh_counts = take_refresh_tallies(tallies)
    stats = make_stats(tallies, histograms)
    if previous is not None:
        stats["refresh"] = refresh_stats(previous, refresh_counts, recompute_all,
                                         refresh_note)
    removed = read_owner(target).get(ABANDONED, 0)
    if isinstance(removed, int) and removed > 0:
        stats["release"] = {ABANDONED: removed}
    if baselines is not None:
        stats["baselines"] = baselines(target.staging_dir)
    leakage = within_release_leakage(target.staging_dir)
    if leakage["splits"]:
        stats["leakage"] = leakage
    record = simulated or record_from_stats(target.dataset, target.version, stats)
    extra = {**(_lineage_of(previous, lineage) or {}),
             **({SIMULATED: record} if record is not None else {})}
    manifest = build_manifest(target, options=options, source=source, schema=schema,
                              field_docs=field_docs, splits=splits, extra=extra)
    if not allow_empty and not any(manifest["rows_per_split"].values()):
        write_bytes(FileSystems.join(target.staging_dir, "stats.json"), to_json_bytes(stats))
        raise EmptyReleaseError(
            f"no rows in any split ({', '.join(splits)}) of {target.dataset} "
            f"{target.version}; pass --allow-empty to publish an empty release")
    if previous is not None:
        release_arrow_memory()  # what the checks above decoded, before the diff's own peak
        stats["refresh"]["changes"] = diff_summary(
            diff_staged(previous.path, target.staging_dir, manifest, stats))
        release_arrow_memory()
    documents = {"stats.json": to_json_bytes(stats),
                 **release_documents(target.staging_dir, manifest, stats, make_card,
                                     field_docs)}
    for name, content in documents.items():
        write_bytes(FileSystems.join(target.staging_dir, name), content)
        manifest["files"][name] = {"sha256": hashlib.sha256(content).hexdigest(),
                                   "bytes": len(content)}
    manifest["files"] = dict(sorted(manifest["files"].items()))
    finalize_release(target, overwrite, to_json_bytes(manifest))
    return {"manifest": manifest, "stats": stats, "path": target.final_dir}


def _lineage_of(previous: PreviousRelease | None,
                lineage: Lineage | None) -> dict[str, Any] | None:
    """The manifest's ``previous`` entry, if any."""
    found = previous.lineage if previous is not None else lineage
    return {PREVIOUS: found.to_dict()} if found is not None else None


def release_documents(staging_dir: str, manifest: dict[str, Any], stats: dict[str, Any],
                      make_card: Callable[[dict, dict], str],
                      field_docs: dict[str, str] | None = None) -> dict[str, bytes]:
    """The card (``README.md``, with "Changes since" for a refresh) and, for a
    ``DatasetCard``, its YAML front matter and shared sections (``hub``, ``card_sections``)
    and the Croissant metadata (``croissant.json``). ``field_docs`` describe the columns of
    every table (the manifest's schema, the main table's only)."""
    body = make_card(manifest, stats)
    changes = changes_section(stats)
    if changes:
        body = f"{body.rstrip()}\n\n{changes}"
    record = simulated_record(manifest)
    if record is not None:
        body = with_card_note(body, record)
    if note := split_card_note(manifest):
        body = f"{body.rstrip()}\n\n{note}\n"
    if not isinstance(make_card, DatasetCard):
        return {"README.md": body.encode("utf-8")}
    info = release_info(make_card, manifest)
    tables = release_tables(staging_dir, manifest["files"], main=main_config(manifest))
    card = "\n".join([front_matter(manifest, info, tables), body.rstrip("\n"), "",
                      shared_sections(staging_dir, manifest, stats, info, tables,
                                      field_docs or {})])
    croissant = croissant_metadata(manifest, tables, info, stats)
    return {"README.md": card.encode("utf-8"),
            "croissant.json": (json.dumps(croissant, indent=2, ensure_ascii=False)
                               + "\n").encode("utf-8")}


def run_release(target: ReleaseTarget, overwrite: bool, beam_args: list[str],
                build: Callable[[beam.Pipeline], list],
                finish: Callable[[], dict[str, Any]],
                skip_existing: bool = False,
                stale_after: float = DEFAULT_STALE_AFTER) -> dict[str, Any]:
    """Check the version is writable, run the pipeline, and let the pipeline publish.

    First restores a version an interrupted ``--overwrite`` left retired and removes staging
    directories of killed runs (see ``transforms.release.staging``; ``stale_after`` seconds
    is the age after which an owner that cannot be checked counts as gone). ``build(pipeline)``
    composes the pipeline and returns the PCollections whose completion means everything is
    staged (the outputs of its writers). A last step, which takes them all as side inputs and
    so runs after them, calls ``finish()`` to publish the release: the release is committed
    by the job itself, also when a Dataflow launcher does not wait. With ``skip_existing`` an
    already published version is returned as it is (no work; the result's ``SKIPPED`` key
    is True), after repairing a stale
    ``LATEST`` (``commit.repair_latest``) and checking its files' sizes and Parquet footers
    against its manifest (``DamagedReleaseError`` otherwise, exit 5). Returns the published
    manifest, stats and path.
    A local output that cannot be written is an ``InvalidReleaseRoot`` before any work
    (``--skip-existing`` on a published version needs no write and still works).
    A ``ReleaseExistsError``, ``EmptyReleaseError`` or ``LatestNotUpdatedError`` (published,
    but ``LATEST`` not updated) raised by the publish step keeps its class, also on runners
    that report worker errors as text. A run refused as empty keeps its staging directory
    (``stats.json``, ``rejected/``) for inspection; its ``EmptyReleaseError`` names the
    directory and the most frequent drop and dead-letter reasons."""
    removed = clean_abandoned(target, stale_after)
    if skip_existing and not overwrite and target.exists():
        repair_latest(target)
        require_intact(target.final_dir, deep=False)
        return {**published(target), SKIPPED: True}
    target.check_writable(overwrite)
    target.check_output_writable()
    claim_staging(target, **{ABANDONED: removed})
    try:
        options = pipeline_options(beam_args)
        runner = runner_for(options)  # not None: the job runs in this process (gc_pacing)
        with (rare_full_collections() if runner is not None else contextlib.nullcontext(),
              beam.Pipeline(runner=runner, options=options) as pipeline):
            written = build(pipeline)
            waits = [beam.pvalue.AsList(pcoll) for pcoll in written]
            (pipeline
             | "PublishTrigger" >> beam.Impulse()  # one element: one transform, not Create's 3
             | "Publish" >> beam.Map(_publish_after, finish, *waits))
    except BaseException as error:
        empty = _empty_release_message(error)
        if empty is not None:
            raise EmptyReleaseError(empty_run_message(empty, keep_for_inspection(target))
                                    ) from error
        discard_staging(target)
        _reraise_release_error(error)
        raise
    return published(target)


def pipeline_options(beam_args: list[str]) -> PipelineOptions:
    """Beam's options of ``beam_args``, naming Beam's default runner when they name none:
    Beam would log "Missing pipeline option (runner)" on every run without ``--runner``.
    The manifest records the arguments as given."""
    options = PipelineOptions(beam_args)
    standard = options.view_as(StandardOptions)
    if standard.runner is None:
        standard.runner = StandardOptions.DEFAULT_RUNNER
    return options


def _reraise_release_error(error: BaseException) -> None:
    """Runners that run the publish step in another process report its exception as text:
    raise the release error it names again, as itself."""
    if isinstance(error, RELEASE_ERRORS):
        return
    for kind in RELEASE_ERRORS:
        match = re.search(rf"\b{kind.__name__}: (.*?)(?: \[while running|$)", str(error),
                          re.MULTILINE)
        if match:
            raise kind(match.group(1)) from error


def _empty_release_message(error: BaseException) -> str | None:
    """The message of an ``EmptyReleaseError``, raised as itself or reported as text by a
    runner that ran the publish step in another process; None for any other error."""
    if isinstance(error, EmptyReleaseError):
        return str(error)
    match = re.search(rf"\b{EmptyReleaseError.__name__}: (.*?)(?: \[while running|$)",
                      str(error), re.MULTILINE)
    return match.group(1) if match else None


def _publish_after(_: object, finish: Callable[[], Any], *written: list) -> None:
    """Runs once every writer is done (its side inputs are their outputs)."""
    finish()


def published(target: ReleaseTarget) -> dict[str, Any]:
    """Manifest, stats and path of a published release."""
    return {"manifest": read_json(FileSystems.join(target.final_dir, MANIFEST)),
            "stats": read_json(FileSystems.join(target.final_dir, "stats.json")),
            "path": target.final_dir}

