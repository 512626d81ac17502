"""Pieces every data card shares (the card text itself lives with each dataset's stages)."""

from __future__ import annotations

from typing import Any


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

