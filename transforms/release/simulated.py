"""Simulated annotations, recorded so they stay simulated in every release made from them.

An annotated release whose votes were written by ``python -m pipelines.annotate simulate``
counts them in ``stats.json`` (``simulated_votes``) and records, in its manifest::

    "simulated": {"votes": 1200,
                  "annotated_release": {"dataset": "nq_annotated", "version": "1.0.0"}}

A release built from a release (ReQA from an annotated NQ release, for example) copies its
input's record, adding the input's fingerprint when the input is the annotated release itself
and naming the input it was read from (``input``). So the record travels with every release
made from simulated votes, however far down, and whatever reads a release (its card, its
Croissant metadata, the release browser, ``build_*`` summaries) reads one key. Where a trainer
looks, it says so too: every config's ``description`` in the card's YAML (``hub``; so
``Dataset.info.description``), a ``SimulatedAnnotationsWarning`` from
``pipelines.api.load_release`` (``warn_if_simulated``) and ``release publish``'s report.

``simulated_record`` also recognizes an annotated release published before the key existed
(its ``stats.json`` counts simulated votes). Nothing here imports Beam.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any

from transforms.release.card import MACHINE_GENERATED, CardInfo, DatasetCard, md_text

SIMULATED = "simulated"  # the manifest key
SIMULATED_VOTES = "simulated_votes"  # the stats.json key of an annotated release
NOTE_HEADING = "**Simulated annotations.**"  # every card note starts with it
SIMULATE_COMMAND = "python -m pipelines.annotate simulate"
SIMULATED_DESCRIPTION = "SIMULATED ANNOTATIONS:"  # every config description starts with it


class SimulatedAnnotationsWarning(UserWarning):
    """A release read for its rows holds answers from simulated votes, not people's."""


def record_from_stats(dataset: str, version: str,
                      stats: dict[str, Any]) -> dict[str, Any] | None:
    """The manifest record of an annotated release whose ``stats`` count simulated votes,
    else ``None``."""
    votes = stats.get(SIMULATED_VOTES) if isinstance(stats, dict) else None
    if not isinstance(votes, int) or isinstance(votes, bool) or votes <= 0:
        return None
    return {"votes": votes, "annotated_release": {"dataset": dataset, "version": version}}


def simulated_record(manifest: dict[str, Any],
                     stats: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The release's simulated record (``None`` when it holds no simulated annotations): its
    manifest's ``simulated``, else (a release from before the key) one made from ``stats``."""
    record = manifest.get(SIMULATED) if isinstance(manifest, dict) else None
    if isinstance(record, dict):
        return record
    if record is not None and record is not False:  # any other value still means simulated
        return {}
    if stats is None or not isinstance(manifest, dict):
        return None
    return record_from_stats(str(manifest.get("dataset", "")),
                             str(manifest.get("version", "")), stats)


def derived_record(input_manifest: dict[str, Any], input_stats: dict[str, Any] | None,
                   input_fingerprint: str) -> dict[str, Any] | None:
    """The record a release built from the input release carries (``None`` when the input
    holds no simulated annotations): the input's, with the input's fingerprint when it names
    the input itself, and the input it was read from."""
    record = simulated_record(input_manifest, input_stats)
    if record is None:
        return None
    dataset = str(input_manifest.get("dataset", ""))
    version = str(input_manifest.get("version", ""))
    origin = dict(record.get("annotated_release") or {"dataset": dataset, "version": version})
    if origin.get("dataset") == dataset and origin.get("version") == version:
        origin.setdefault("fingerprint", input_fingerprint)
    return {**record, "annotated_release": origin,
            "input": {"dataset": dataset, "version": version, "fingerprint": input_fingerprint}}


def origin_text(record: dict[str, Any]) -> str:
    """``"nq_annotated 1.0.0 (fingerprint 3f0c…)"``: the annotated release of the votes."""
    origin = record.get("annotated_release") or {}
    if not isinstance(origin, dict) or not origin.get("dataset"):
        return "an annotated release"
    text = f"{origin.get('dataset')} {origin.get('version', '')}".strip()
    fingerprint = origin.get("fingerprint")
    return f"{text} (fingerprint {fingerprint})" if fingerprint else text


def is_derived(record: dict[str, Any]) -> bool:
    """Whether the record was copied from an input release (not the annotated release)."""
    return isinstance(record.get("input"), dict)


def warning_text(record: dict[str, Any], markdown: bool = False) -> str:
    """What was simulated, in two sentences for a banner, a summary line or (``markdown``:
    the release names escaped) a card."""
    origin = md_text(origin_text(record)) if markdown else origin_text(record)
    if is_derived(record):
        what = (f"This release was built from {origin}, whose votes were "
                f"written by `{SIMULATE_COMMAND}` (a seeded synthetic worker pool), not by "
                "people: its answers come from simulated annotations, not human judgments.")
    else:
        what = (f"The votes of this release were written by `{SIMULATE_COMMAND}` (a seeded "
                "synthetic worker pool), not by people.")
    return f"{what} Use it to test a pipeline, never to train or evaluate a model."


def card_note(record: dict[str, Any]) -> str:
    """The Markdown paragraph a card puts under its title."""
    return f"{NOTE_HEADING} {warning_text(record, markdown=True)}"


def with_card_note(body: str, record: dict[str, Any]) -> str:
    """``body`` with ``card_note`` under its first line (its title), unless it has one."""
    if NOTE_HEADING in body:
        return body
    title, _, rest = body.partition("\n")
    return f"{title}\n\n{card_note(record)}\n{rest}"


def simulated_info(info: CardInfo, record: dict[str, Any]) -> CardInfo:
    """What a simulated release says about itself (front matter, Croissant, closing
    sections): the warning in its name, summary and limitations, no published dataset
    claimed as its source (``extended|...`` becomes ``original``) and its annotations
    ``machine-generated``: its answers are nobody's."""
    sources = tuple(dict.fromkeys("original" if s.startswith("extended|") else s
                                  for s in info.source_datasets))
    suffix = " (simulated annotations)"
    return replace(
        info,
        pretty_name=info.pretty_name if info.pretty_name.endswith(suffix)
        else info.pretty_name + suffix,
        summary=f"SIMULATED ANNOTATIONS: {warning_text(record)} {info.summary}",
        limitations=(warning_text(record), *info.limitations),
        source_datasets=sources or ("original",),
        annotations_creators=(MACHINE_GENERATED,),
    )


def release_info(card: DatasetCard, manifest: dict[str, Any]) -> CardInfo:
    """What the release with this manifest says about itself: the card's ``info_for`` it,
    made ``simulated_info`` when it holds simulated annotations."""
    info = card.info_for(manifest)
    record = simulated_record(manifest)
    return info if record is None else simulated_info(info, record)


def warn_if_simulated(manifest: dict[str, Any], where: str) -> None:
    """Warn (``SimulatedAnnotationsWarning``) that the release at ``where`` holds simulated
    annotations, when its manifest says so: what ``pipelines.api.load_release`` does."""
    record = simulated_record(manifest)
    if record is not None:
        warnings.warn(f"{where}: {SIMULATED_DESCRIPTION} {warning_text(record)}",
                      SimulatedAnnotationsWarning, stacklevel=3)
