"""Warnings about splits that came out empty or nearly so (issue 37 §3).

Splits are a stable hash of each row's key cut by ratios (``filters.text.splits``): a split
of ratio ``r`` gets about ``N * r`` of ``N`` rows, so NQ's own ratios (dev 2.4%) leave dev
empty on a build of a few dozen questions. The release still holds every split asked for: its
Parquet file (no rows), its entry in the manifest's ``rows_per_split``, ``dataset_info.json``
and ``croissant.json``, and ``pipelines.api.load_release`` returns it. Only the card's YAML
``configs`` leave an empty split out: ``datasets`` cannot load a split with no rows (its
``make_file_instructions`` skips it and ``load_dataset`` fails with "corresponds to no data",
huggingface/datasets#8401), and one such split would make the whole release unloadable. The
summary and the card say which splits are small and how to choose ratios: every builder's
summary through ``transforms.core.summary.empty_release_warning``, every card through
``transforms.release.run.release_documents``.
"""

from __future__ import annotations

from typing import Any

FEW_ROWS = 3  # fewer rows than this: too few to evaluate on (the NLQuAD sample has 3 and 4)


def _rows(count: int) -> str:
    return f"{count} row{'s' * (count != 1)}"


def small_splits(manifest: dict[str, Any]) -> list[tuple[str, int]]:
    """``(split, rows)`` of the splits with fewer than ``FEW_ROWS`` rows, in release order;
    none when the whole release is empty (the empty-release warning says that)."""
    rows = manifest.get("rows_per_split") or {}
    if not sum(rows.values()):
        return []
    return [(split, count) for split, count in rows.items() if count < FEW_ROWS]


def ratio_advice(manifest: dict[str, Any]) -> str:
    """How to choose ratios for a build of this size."""
    total = sum((manifest.get("rows_per_split") or {}).values())
    if "split_ratios" not in (manifest.get("options") or {}):
        return (f"this builder's splits come from its source; with {total} rows, build from "
                f"more input for larger splits")
    splits = len(manifest.get("rows_per_split") or {})
    if total < FEW_ROWS * splits:
        return (f"{total} rows cannot give {splits} splits {FEW_ROWS} rows each: build from "
                f"more input, or ask for fewer splits (e.g. --split-ratios train=0.8,test=0.2)"
                f"; see docs/guides/troubleshooting.md")
    return (f"a split of ratio r gets about {total} x r rows, so give each split a ratio of "
            f"at least {FEW_ROWS / total:.2f} (e.g. --split-ratios train=0.8,dev=0.1,test=0.1) "
            f"or build from more input; see docs/guides/troubleshooting.md")


def split_warning_lines(manifest: dict[str, Any]) -> list[str]:
    """The summary's warning about small splits (none when every split has a few rows)."""
    small = small_splits(manifest)
    if not small:
        return []
    listed = ", ".join(f"{split} {_rows(rows)}" for split, rows in small)
    return [f"  WARNING: small splits: {listed}; kept in the release (an empty one is left out "
            f"of datasets.load_dataset, which cannot load 0 rows: pipelines.api.load_release "
            f"returns it); {ratio_advice(manifest)}"]


def split_card_note(manifest: dict[str, Any]) -> str:
    """The card's note about small splits ("" when every split has a few rows)."""
    small = small_splits(manifest)
    if not small:
        return ""
    listed = ", ".join(f"`{split}` ({_rows(rows)})" for split, rows in small)
    return (f"**Small splits:** {listed}: fewer than {FEW_ROWS} rows, too few to evaluate "
            f"on. Every split asked for is in the release (`rows_per_split`, "
            f"`dataset_info.json`, `croissant.json`); an empty one is left out of the YAML "
            f"`configs` above because `datasets.load_dataset` cannot load a split with no rows "
            f"(`pipelines.api.load_release` returns it, 0 rows). When rebuilding, "
            f"{ratio_advice(manifest)}.")
