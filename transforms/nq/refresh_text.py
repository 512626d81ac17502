"""What the NQ and JNQ summaries and cards say about a refresh (``--previous``).

In a refresh, the query-stage counts (log rows, queries, accepted questions) and the length
statistics still describe the whole log and release, but the search, page and example counts
are this run's work only: carried examples and kept drops were not searched, fetched or
tokenized again (``transforms.nq.refresh``). These lines say so, so neither misstates it.
"""

from __future__ import annotations

from typing import Any

from transforms.core.counters import CounterSet, Counts
from transforms.nq.counters import OUTCOMES_CARRIED

THIS_RUN = " (this run)"


def refreshed(stats: dict[str, Any]) -> bool:
    """Whether the release was built on a previous one."""
    return bool(stats.get("refresh"))


def relinked(manifest: dict[str, Any]) -> bool:
    """Whether ``--relink`` linked every question again."""
    return bool(manifest.get("options", {}).get("relink"))


def this_run(stats: dict[str, Any]) -> str:
    """A label suffix for a stage figure that a refresh computes only for what it processed."""
    return THIS_RUN if refreshed(stats) else ""


def summary_lines(manifest: dict[str, Any], stats: dict[str, Any]) -> list[str]:
    """The summary's lines before the linking counts of a refresh (none otherwise)."""
    if not refreshed(stats):
        return []
    if relinked(manifest):
        return ["  --relink: every question still in the log was searched and fetched again"]
    return ["  this run's work below: carried examples and kept drops were not searched again"]


def questions_summary_lines(stats: dict[str, Any]) -> list[str]:
    """The summary line of a question release built on a previous one (none otherwise)."""
    if not refreshed(stats):
        return []
    return ["  question rows are never carried: each is rebuilt from this log, whose counts "
            "it holds"]


def questions_card_lines(stats: dict[str, Any]) -> list[str]:
    """The card line of a question release built on a previous one (none otherwise)."""
    if not refreshed(stats):
        return []
    return ["This version was built on an earlier one (see \"Changes since\"). Question rows "
            "(`--stop-after questions`) are never carried: each is rebuilt from this log, "
            "whose counts it holds, so every row was recomputed.", ""]


def card_lines(manifest: dict[str, Any], stats: dict[str, Any]) -> list[str]:
    """The card paragraph of an examples release built on a previous one (none otherwise)."""
    if not refreshed(stats):
        return []
    if relinked(manifest):
        scope = ("It was built with `--relink`: every question still in the log was searched "
                 "and its page fetched again, so no example was carried.")
    else:
        scope = ("Examples of questions the previous release had were carried as published "
                 "with the same page revision and candidates; questions it dropped for a "
                 "lasting reason (no Wikipedia page in the top 5, a missing or redirect page) "
                 "were not searched again.")
    return [f"This version was built on an earlier one (see \"Changes since\"). {scope} "
            "Question-selection counts cover the whole log and length statistics every "
            "example; search, page and candidate counts are this run's work only."
            f"{_tagged(stats)}", ""]


def _tagged(stats: dict[str, Any]) -> str:
    carried = Counts(stats.get("counts", {}), CounterSet.of(OUTCOMES_CARRIED))[OUTCOMES_CARRIED]
    if not carried:
        return ""
    return (f" The heuristics' outcome of {carried} queries was the one the previous release "
            "recorded (`refresh/queries/`), not tagged again.")


def outcomes_line(carried: int) -> list[str]:
    """The summary line of the queries whose recorded outcome was taken (none when 0)."""
    if not carried:
        return []
    return [f"  outcomes carried:      {carried} queries not tagged again (recorded in the "
            "previous release's refresh/queries/)"]
