"""What the card and the summary say about the relevance floor and the index's size.

* The floor (``--min-score``, ``--min-margin``; ``filters.nq.relevance_floor``): how many
  searched questions it dropped as ``below_floor`` and their share, or that it did not apply
  (a backend that reports no scores, or 0 = off).
* The small-index warning: an index with fewer pages than the questions searched links
  most questions to a page that does not answer them; said once, with what to do.
"""

from __future__ import annotations

from typing import Any

from transforms.core.counters import Counts
from transforms.nq.counters import COUNTERS, LINKING_BELOW_FLOOR, SEARCHED

SCORED_BACKENDS = frozenset({"local"})  # backends whose hits carry a score
BELOW_FLOOR_SHARE = "below_floor_share"  # the stats.json key


def below_floor_share(counts: Counts) -> float | None:
    """The share of searched questions dropped as ``below_floor`` (None: none searched)."""
    asked = counts[SEARCHED]
    return round(counts[LINKING_BELOW_FLOOR] / asked, 4) if asked else None


def floor_sentence(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    """One sentence: the floor's settings and what it dropped, or why it did not apply."""
    options = manifest.get("options", {})
    min_score, min_margin = options.get("min_score", 0), options.get("min_margin", 0)
    search = manifest.get("source", {}).get("search", "")
    if not (min_score or min_margin):
        return "Relevance floor: off (--min-score 0 --min-margin 0)."
    if search not in SCORED_BACKENDS:
        return (f"Relevance floor: not applied, --search {search} reports no scores "
                f"(--min-score {min_score} --min-margin {min_margin} are ignored).")
    counts = Counts(stats["counts"], COUNTERS)
    share = stats.get(BELOW_FLOOR_SHARE)
    return (f"Relevance floor: --min-score {min_score} (share of the question's BM25 "
            f"weight) --min-margin {min_margin}: {counts[LINKING_BELOW_FLOOR]} searched questions "
            f"({'-' if share is None else f'{share:.1%}'}) dropped as below_floor, their "
            f"top Wikipedia page scoring under it (rejected/unlinked_questions/).")


def small_index_warning(manifest: dict[str, Any], stats: dict[str, Any]) -> str | None:
    """The warning when the searched index holds fewer pages than the questions searched,
    else None."""
    pages = manifest.get("source", {}).get("index_pages")
    asked = Counts(stats["counts"], COUNTERS)[SEARCHED]
    if pages is None or not asked or pages >= asked:
        return None
    return (f"WARNING: small index: {pages} pages for {asked} questions searched; most "
            f"questions cannot find their page in it and are linked to an unrelated one or "
            f"dropped as below_floor. Index a larger Wikipedia copy (python -m "
            f"pipelines.build_search_index --source enterprise or --source pages, see "
            f"docs/guides/own-wikipedia.md), or use --search mediawiki.")


def card_lines(manifest: dict[str, Any], stats: dict[str, Any]) -> list[str]:
    """The card's floor sentence and, when the index is small, its warning."""
    warning = small_index_warning(manifest, stats)
    return [floor_sentence(manifest, stats), "", *([f"**{warning}**", ""] if warning else [])]


def summary_lines(manifest: dict[str, Any], stats: dict[str, Any]) -> list[str]:
    """The summary's below-floor share and, when the index is small, its warning."""
    share = stats.get(BELOW_FLOOR_SHARE)
    lines = [f"  questions below the relevance floor: "
             f"{'-' if share is None else f'{share:.1%}'}"]
    warning = small_index_warning(manifest, stats)
    return lines + ([f"  {warning}"] if warning else [])
