"""The previous annotated release (``annotate export|import --previous``), checked before any work.

``open_previous`` resolves ``--previous`` (a version directory, a dataset directory meaning its
``LATEST``, or ``auto``: ``<root>/<dataset>_annotated/LATEST`` when there is one), verifies it
in full (its annotations and votes are published again as they are, so a damaged one is
``DamagedReleaseError``, exit 5) and refuses with ``PreviousRefused`` (exit 2) a release that is
not an annotated one, one of another base dataset, and one that annotates neither the release
being annotated nor one of its ancestors (``transforms.release.lineage.ancestors``: the
``previous`` chain of the new release's manifest).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from filters.annotation.sequential import (
    CONFIDENT,
    DEFAULT_CONFIDENCE,
    DEFAULT_MIN_VOTES,
    EXACT,
    StopRule,
)
from transforms.annotation.manifest import ReleaseRef, base_dataset, read_release
from transforms.core.errors import UsageError
from transforms.core.files import FileSystems
from transforms.release import InvalidLatestError, NotAReleaseError, read_json, require_intact
from transforms.release.lineage import Lineage, ancestors
from transforms.release.resolve import AUTO, resolve_release

ANNOTATION_KIND = "annotation"  # the manifest's source.kind of an annotated release
STATS = "stats.json"
THRESHOLD_PREFIX = "t_"  # JNQ thresholds as the import records them in the manifest's options


class PreviousRefused(UsageError):
    """A ``--previous`` annotated release these annotations cannot be carried from (exit 2)."""


@dataclass(frozen=True)
class PreviousAnnotations:
    """A verified earlier annotated release, and the base release it annotates."""

    release: ReleaseRef
    base: str  # nq, jnq or jboolq
    annotates: Lineage

    @property
    def lineage(self) -> Lineage:
        """The annotated release itself (dataset, version, fingerprint)."""
        return Lineage(self.release.dataset, self.release.version, self.release.fingerprint)

    @property
    def label(self) -> str:
        """``nq_annotated 2026.11.23`` (for summaries and cards)."""
        return f"{self.release.dataset} {self.release.version}"

    def _options(self) -> dict[str, Any]:
        options = self.release.manifest.get("options")
        return options if isinstance(options, dict) else {}

    @property
    def ways(self) -> dict[str, int]:
        """The judgments per split its import required."""
        ways = self._options().get("ways")
        if not isinstance(ways, dict):
            return {}
        return {str(k): v for k, v in ways.items() if isinstance(v, int)}

    @property
    def thresholds(self) -> dict[str, Any]:
        """The JNQ thresholds its import used (``t_<name>``), as recorded."""
        return {k: v for k, v in self._options().items() if k.startswith(THRESHOLD_PREFIX)}

    @property
    def aggregate(self) -> str:
        """The ``--aggregate`` its import used (``paper`` when it records none)."""
        return str(self._options().get("aggregate") or "paper")

    @property
    def stop(self) -> StopRule:
        """The ``--stop`` rule its import used (exact when it records none)."""
        options = self._options()
        if options.get("stop") != CONFIDENT:
            return StopRule()
        return StopRule(CONFIDENT, float(options.get("confidence") or DEFAULT_CONFIDENCE),
                        int(options.get("min_votes") or DEFAULT_MIN_VOTES))

    def simulated(self) -> bool:
        """Whether any of its votes was simulated (its ``stats.json``): carried ones are then
        counted as simulated too, so the new card says so."""
        try:
            stats = read_json(FileSystems.join(self.release.path, STATS))
        except (OSError, ValueError):
            return False
        return bool(isinstance(stats, dict) and stats.get("simulated_votes"))

    def describe(self) -> dict[str, Any]:
        """What a manifest or ``stats.json`` records: the annotated release and the base
        release it annotates."""
        return {**self.lineage.to_dict(), "annotates": self.annotates.to_dict()}


def previous_path(value: str, root: str, base: str) -> str | None:
    """The version directory ``--previous value`` means; ``auto`` is the ``LATEST`` of
    ``<root>/<base>_annotated`` (``None`` when there is none: nothing to carry)."""
    try:
        if value == AUTO:
            return resolve_release(AUTO, output=root, dataset=f"{base}_annotated")
        return resolve_release(value)
    except NotAReleaseError as error:  # InvalidLatestError too
        raise PreviousRefused(f"--previous {value}: {error}") from None


def open_previous(path: str, base: str, release_path: str | None,
                  release_fingerprint: str | None) -> PreviousAnnotations:
    """The annotated release at ``path`` (a version directory), verified, after checking that
    its annotations may be carried to the ``base`` release at ``release_path``."""
    try:
        previous = read_release(path)
    except (NotAReleaseError, InvalidLatestError) as error:
        raise PreviousRefused(f"--previous {path}: {error}") from None
    require_intact(previous.path)
    from transforms.release.refresh.previous_rows import scan_previous  # Beam: only here

    # a class-label value that is no label (a damaged or re-sealed release) would fail the
    # writer after all the work: exit 5 now, naming the rows (votes' stages included)
    scan_previous(previous.path, tuple(sorted(
        name for name in previous.manifest.get("files", {}) if name.endswith(".parquet"))),
        None)
    source = previous.manifest.get("source", {})
    annotates = Lineage.from_dict(source.get("annotates")) if isinstance(source, dict) else None
    if not isinstance(source, dict) or source.get("kind") != ANNOTATION_KIND \
            or annotates is None:
        raise PreviousRefused(f"--previous {path} is a {previous.dataset} release, not an "
                              f"annotated one (<output>/{base}_annotated/<version>)")
    previous_base = base_dataset(previous)
    if previous_base != base:
        raise PreviousRefused(f"--previous {path} annotates {previous_base}, not {base}")
    if release_path is None or release_fingerprint is None:
        raise PreviousRefused("--previous needs a release as --input (its lineage says which "
                              "annotations still hold), not files")
    lineage = _lineage(release_path)
    if annotates.fingerprint != release_fingerprint and annotates.fingerprint not in {
            link.fingerprint for link in lineage}:
        chain = ", ".join(f"{link.version} ({link.fingerprint})" for link in lineage) or "none"
        raise PreviousRefused(
            f"--previous {path} annotates {annotates.dataset} {annotates.version} "
            f"({annotates.fingerprint}), which is neither the release being annotated "
            f"({release_fingerprint}) nor one of its ancestors ({chain}); build the release "
            "with --previous so its lineage reaches the annotated one")
    return PreviousAnnotations(previous, previous_base, annotates)


def _lineage(release_path: str) -> list[Lineage]:
    try:
        return list(ancestors(release_path))
    except (OSError, ValueError):  # the manifest was read and verified: a race, nothing more
        return []


def changed_options(previous: PreviousAnnotations, ways: Mapping[str, int],
                    thresholds: Mapping[str, Any], aggregate: str = "paper",
                    stop: StopRule | None = None) -> list[str]:
    """The options of this import that would aggregate differently from the previous one's:
    ``--ways`` of a split both have, ``--aggregate`` (a release recording none was ``paper``),
    the ``--stop`` rule (a confident rule's ``--confidence`` and ``--min-votes`` decide which
    stages are closed) and (JNQ / JBoolQ) a threshold. Carried annotations were aggregated
    with the previous values, so they are refused unless ``--recompute-all``."""
    changed = [f"--ways {split}={n} (previous {previous.ways[split]})"
               for split, n in sorted(ways.items())
               if split in previous.ways and previous.ways[split] != n]
    if previous.aggregate != aggregate:
        changed.append(f"--aggregate {aggregate} (previous {previous.aggregate})")
    stop = stop or StopRule()
    if previous.stop != stop:
        changed.append(f"{_stop_flags(stop)} (previous {_stop_flags(previous.stop)})")
    if previous.base != "nq":
        recorded = previous.thresholds
        changed += [f"--{name[len(THRESHOLD_PREFIX):].replace('_', '-')} {value} (previous "
                    f"{recorded[name]})" for name, value in sorted(thresholds.items())
                    if name in recorded and recorded[name] != value]
    return changed


def _stop_flags(rule: StopRule) -> str:
    if not rule.confident:
        return f"--stop {EXACT}"
    return (f"--stop {CONFIDENT} --confidence {rule.confidence} "
            f"--min-votes {rule.min_votes}")
