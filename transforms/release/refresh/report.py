"""What a refresh reports: ``stats.json``'s ``refresh``, the summary line and the card section.

``stats["refresh"]`` holds the previous release's lineage, whether every row was recomputed,
the row counts (``carried``, ``recomputed``, ``new``, ``removed``, in rows of the release;
``inputs_carried`` in the dataset's units) and ``changes``: the headline figures of
``release diff`` against the previous release (rows added, removed, changed and moved between
splits). The card's "Changes since <previous>" section prints them.
"""

from __future__ import annotations

from typing import Any

from transforms.release.refresh.counters import COUNTERS, INPUTS_CARRIED, ROW_COUNTERS, STAGE
from transforms.release.refresh.previous import PreviousRelease

PREFIX = f"{STAGE}."


def take_refresh_tallies(tallies: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """``(the other tallies, {"carried": n, ...})``: the ``refresh.*`` tallies taken out (every
    refresh counter present, 0 when it never fired)."""
    rest = {name: count for name, count in tallies.items() if not name.startswith(PREFIX)}
    counts = {counter.name: int(tallies.get(str(counter), 0)) for counter in sorted(
        COUNTERS.counters, key=lambda c: c.name)}
    return rest, counts


def refresh_stats(previous: PreviousRelease, counts: dict[str, int], recompute_all: bool,
                  note: str = "") -> dict[str, Any]:
    """``stats["refresh"]`` without ``changes`` (added once the diff is known); ``note``
    says what the dataset's refresh did when it is not the default (``Plan.refresh_note``:
    a dataset whose rows cannot be carried recomputes them all, NQ's ``--relink``)."""
    return {"previous": previous.lineage.to_dict(), "recompute_all": recompute_all,
            **({"note": note} if note else {}), **counts}


def _what_was_done(refresh: dict[str, Any]) -> str:
    if refresh.get("note"):
        return refresh["note"]
    if refresh["recompute_all"]:
        return "every row was recomputed (--recompute-all)"
    return ("rows of unchanged inputs were carried byte for byte, with their id and split; "
            "only new inputs were processed")


def diff_summary(diff: dict[str, Any]) -> dict[str, Any]:
    """The headline figures of a ``release diff`` for ``stats["refresh"]["changes"]``."""
    tables = {}
    for table in diff["tables"]:
        tables[table["table"]] = {
            "rows": table["rows"],
            "added": table["added"]["count"], "removed": table["removed"]["count"],
            "changed": (table.get("changed") or {}).get("count", 0),
            "unchanged": table.get("unchanged", 0)}
    moved = diff["moved_between_splits"]
    return {"identical_rows": diff["identical_rows"], "tables": tables,
            "moved_between_splits": {"count": moved["count"], "pairs": moved["pairs"]},
            "options": sorted(diff["options"])}


def summary_lines(stats: dict[str, Any]) -> list[str]:
    """The summary's refresh lines (none for a build without ``--previous``)."""
    refresh = stats.get("refresh")
    if not refresh:
        return []
    previous = refresh["previous"]
    lines = [f"  built on:              {previous['dataset']} {previous['version']} "
             f"({previous['fingerprint']}): {_what_was_done(refresh)}",
             "  rows " + ", ".join(f"{c.name} {refresh.get(c.name, 0)}" for c in ROW_COUNTERS)
             + f"; inputs carried from it: {refresh.get(INPUTS_CARRIED.name, 0)}"]
    moved = refresh.get("changes", {}).get("moved_between_splits", {}).get("count", 0)
    if moved:
        lines.append(f"  WARNING: {moved} rows moved between splits since the previous "
                     f"release (see the card)")
    return lines


def changes_section(stats: dict[str, Any]) -> str:
    """The card's "Changes since <previous>" section (empty without ``--previous``)."""
    refresh = stats.get("refresh")
    if not refresh:
        return ""
    previous = refresh["previous"]
    changes = refresh.get("changes", {})
    lines = [f"## Changes since {previous['dataset']} {previous['version']}", "",
             f"This version was built on {previous['dataset']} {previous['version']} "
             f"(fingerprint `{previous['fingerprint']}`) with `--previous`: "
             f"{_what_was_done(refresh)}.", "",
             "| rows | count |", "|---|---:|"]
    lines += [f"| {c.name} | {refresh.get(c.name, 0)} |" for c in ROW_COUNTERS]
    tables = changes.get("tables", {})
    if tables:
        lines += ["", "| table | rows before | rows now | added | removed | changed |",
                  "|---|---:|---:|---:|---:|---:|"]
        for name, table in tables.items():
            lines.append(f"| {name} | {table['rows'].get('old') or 0} | "
                         f"{table['rows'].get('new') or 0} | {table['added']} | "
                         f"{table['removed']} | {table['changed']} |")
    moved = changes.get("moved_between_splits", {})
    lines.append("")
    if moved.get("count"):
        pairs = ", ".join(f"{pair}: {count}" for pair, count in moved["pairs"].items())
        lines.append(f"**{moved['count']} rows moved between splits** ({pairs}): a model "
                     f"trained on an earlier version may have seen these test rows.")
    else:
        lines.append("No row moved between splits.")
    if changes.get("options"):
        lines += ["", "Options changed: " + ", ".join(f"`{o}`" for o in changes["options"])
                  + "."]
    lines += ["", "`python -m pipelines.release diff` between the two versions lists every "
                  "change."]
    return "\n".join(lines) + "\n"
