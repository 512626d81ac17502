"""A run that published nothing because it kept no row: why, and where to look.

Without ``--allow-empty`` such a run stops with ``EmptyReleaseError`` (exit code 4). The
publish step first writes the run's ``stats.json`` into its staging directory; ``run_release``
then keeps that directory (``<root>/<dataset>/.staging/<version>-<run id>/``: ``stats.json``,
``rejected/`` with every dropped and dead-lettered record, and the empty splits) instead of
discarding it, and the error names it and the most frequent drop and dead-letter reasons
(``examples.dropped.no_annotation: 31``). Nothing is published: the version directory and
``LATEST`` are never touched. The kept directory keeps its ownership marker, so the usual
cleanup applies (``staging.clean_abandoned``): a later build of the dataset removes it once
its process is gone (on this host; elsewhere after 24 hours).
"""

from __future__ import annotations

import re
from typing import Any

from apache_beam.io.filesystems import FileSystems

from transforms.core.summary import DEAD_LETTERED
from transforms.release.first_rejected import first_rejected_lines
from transforms.release.staging import recover_replaced
from transforms.release.storage import list_files, read_json
from transforms.release.target import ReleaseTarget

STATS = "stats.json"
# a count is a reason when the first part of its name ends with one of these
# (``dropped.no_annotation``, ``search_failed.connection_error``, ``warc_skipped.request``)
REASON_WORDS = ("dropped", "skipped", "rejected", "failed", "malformed", "unreadable",
                "refused", "invalidated")
TOP_REASONS = 5
_BEAM_SUFFIX = re.compile(r" \[while running .*$", re.DOTALL)


def is_reason(name: str) -> bool:
    """Whether a count of ``stats["counts"][stage]`` is a drop or dead-letter reason."""
    family, dot, _ = name.partition(".")
    return name == DEAD_LETTERED or (bool(dot) and family.endswith(REASON_WORDS))


def dominant_reasons(counts: Any, limit: int = TOP_REASONS) -> list[tuple[str, int]]:
    """The ``limit`` largest drop and dead-letter counts of ``stats["counts"]``
    (``{stage: {name: count}}``) as ``("stage.name", count)``, largest first."""
    found = [(name, count) for name, count in _all_counts(counts)
             if count > 0 and is_reason(name.partition(".")[2])]
    return sorted(found, key=lambda item: (-item[1], item[0]))[:limit]


def keep_for_inspection(target: ReleaseTarget) -> str:
    """Leave the staging directory of a run that published nothing where it is (its owner
    marker too, so cleanup treats it as any other finished run's); a version this run had
    retired for an overwrite is put back. Returns the kept directory."""
    recover_replaced(target)
    return target.staging_dir


def empty_run_message(message: str, kept_dir: str) -> str:
    """``message`` (the ``EmptyReleaseError``'s, runner notes removed), the most frequent
    reasons read from the kept ``stats.json``, and where the run's files are."""
    lines = [_BEAM_SUFFIX.sub("", message.strip())]
    stats_path = FileSystems.join(kept_dir, STATS)
    found = FileSystems.exists(stats_path)
    try:
        stats = read_json(stats_path) if found else {}
    except (OSError, ValueError):
        stats = {}
    counts = stats.get("counts") if isinstance(stats, dict) else None
    reasons = dominant_reasons(counts)
    if reasons:
        lines.append("  most frequent drop and dead-letter reasons: " + _listed(reasons))
    else:
        lines.append("  no record was dropped or dead-lettered; the counts: "
                     + (_listed(_all_counts(counts)[:TOP_REASONS]) or "none"))
    lines += first_rejected_lines(kept_dir)
    kept = [*([STATS] if found else []),
            *(["rejected/"] if list_files(FileSystems.join(kept_dir, "rejected")) else [])]
    what = f" ({' and '.join(kept)})" if kept else ""
    lines.append(f"  kept for inspection{what}: {kept_dir}/ (a later build of this dataset "
                 "removes it)")
    return "\n".join(lines)


def _all_counts(counts: Any) -> list[tuple[str, int]]:
    """``("stage.name", count)`` of every count of ``stats["counts"]``."""
    if not isinstance(counts, dict):
        return []
    return [(f"{stage}.{name}", count) for stage, names in counts.items()
            if isinstance(names, dict) for name, count in names.items()
            if isinstance(count, int)]


def _listed(counts: list[tuple[str, int]]) -> str:
    return ", ".join(f"{name}: {count:,}" for name, count in counts)
