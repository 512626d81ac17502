"""The search index release's ``stats.json`` content and data card."""

from __future__ import annotations

from typing import Any

from transforms.release import group_tallies


def index_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    return {"counts": group_tallies(tallies)}


def index_card(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    pages = stats["counts"].get("pages", {})
    return "\n".join([
        f"# Search index {manifest['dataset']}, version {manifest['version']}",
        "",
        "A BM25 index (bm25s) over title + visible text of every page, with the pages "
        "themselves in `docs/` so the index also serves page fetches.",
        "",
        f"Source: {manifest['source']['description']}. Pages read: {pages.get('read', 0)}; "
        f"indexed: {manifest['rows_per_split'].get('docs', 0)}; malformed dump lines: "
        f"{pages.get('malformed_lines', 0)}.",
        "",
        "Use: `python -m pipelines.build_nq --search local --index-dir <this directory>`.",
        "",
    ])

