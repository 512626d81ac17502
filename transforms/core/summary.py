"""Lines every pipeline's end-of-run summary shares: dead letters and the empty-release warning."""

from __future__ import annotations

from typing import Any

from transforms.core.split_warnings import split_warning_lines

DEAD_LETTERED = "dead_lettered"


def dead_lettered_total(counts: dict[str, dict[str, int]]) -> int:
    """Records dead-lettered by every stage: the ``<stage>.dead_lettered`` tallies."""
    return sum(stage.get(DEAD_LETTERED, 0) for stage in counts.values())


def dead_letter_line(counts: dict[str, dict[str, int]], width: int = 23) -> str:
    """``  dead-lettered records: N (see rejected/dead_letter/)``, label padded to ``width``."""
    label = "dead-lettered records:"
    label = label.ljust(max(width, len(label) + 1))
    return f"  {label}{dead_lettered_total(counts)} (see rejected/dead_letter/)"


def empty_release_warning(manifest: dict[str, Any]) -> list[str]:
    """A loud warning when the release holds no rows at all (published with --allow-empty),
    else the warning about splits with few or no rows, if any (``split_warnings``)."""
    if sum(manifest.get("rows_per_split", {}).values()):
        return split_warning_lines(manifest)
    return ["  WARNING: 0 rows kept: this release is EMPTY (published because of "
            "--allow-empty); check the input and the counts above"]
