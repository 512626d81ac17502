"""Agreement with a model's suggestions, in the suggested and the control group (anchoring).

``annotate import --export DIR`` reads the suggestions the export recorded
(``suggestions.MANIFEST_KEY`` of ``annotation_export.json``: every item's suggestion, and which
items were exported without it). Each aggregated decision of an item that had a suggestion is
compared with it:

* NQ: the example's long answer, the most frequent ``long_answer_candidate`` of its
  judgments (-1: no answer; a tie goes to the smallest value as text, as the worker agreement
  does), against the suggested candidate;
* JNQ / JBoolQ: each candidate paragraph judged at the ``long_answer`` stage (``votes`` > 0):
  EXIST or not, against whether the prediction names it.

``stats.json`` holds the figures under ``STATS_KEY`` (per group: items, decisions, decisions
equal to the suggestion and their share; the difference of the shares and its 95% interval);
the card shows them. The interval is the normal one with each share's variance estimated with
items as clusters (a JNQ question's paragraphs are decided by the same workers, so they are
not independent): ``k / (k - 1) * sum((a_i - p * n_i) ** 2) / (sum n_i) ** 2`` over the
group's ``k`` items, ``a_i`` of whose ``n_i`` decisions equal the suggestion; for NQ (one
decision per item) it is ``p (1 - p) / (k - 1)``.

A share clearly higher in the suggested group than in the control group (an interval above 0)
means the workers followed the suggestion (anchoring) rather than judged alone.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from transforms.annotation.manifest import EXPORT_MANIFEST
from transforms.annotation.rounds import NEXT_MANIFEST
from transforms.annotation.suggestions import manifest_suggestions

STATS_KEY = "suggestions"
SUGGESTED = "suggested"  # items exported with their suggestion
CONTROL = "control"  # items exported without (the control group)
GROUPS = (SUGGESTED, CONTROL)
ITEMS = "items"
DECISIONS = "decisions"
AGREE = "agree"  # decisions equal to the suggestion
AGREEMENT = "agreement"  # AGREE / DECISIONS
DIFFERENCE = "difference"  # AGREEMENT of SUGGESTED minus that of CONTROL
DIFFERENCE_CI95 = "difference_ci95"  # its 95% interval, items as clusters
Z95 = 1.959964
DECISION = {"nq": "long answer candidate (the most frequent of the example's judgments)",
            "jnq": "candidate paragraph EXIST or not (long_answer stage)"}


def export_manifest_path(export_dir: str) -> Path:
    """The manifest of ``--export DIR``: an export's ``annotation_export.json``, else an
    ``annotate next`` round's ``annotation_next.json`` (the first round asks about every
    item, so its manifest holds every item's suggestion)."""
    path = Path(export_dir) / EXPORT_MANIFEST
    round_path = Path(export_dir) / NEXT_MANIFEST
    return round_path if not path.exists() and round_path.exists() else path


def read_export_suggestions(export_dir: str | None) -> dict[str, Any] | None:
    """The suggestions an export recorded (None without ``--export`` or suggestions); the
    manifest was checked by the import (``_export_ways``) before."""
    if not export_dir:
        return None
    path = export_manifest_path(export_dir)
    return manifest_suggestions(json.loads(path.read_text(encoding="utf-8")))


def _mode(values: list[Any]) -> Any:
    counts = Counter(values)
    return min(counts, key=lambda v: (-counts[v], str(v)))


def _nq_decisions(votes: Iterable[dict[str, Any]], items: dict[str, Any]
                  ) -> dict[str, list[bool]]:
    judged: dict[str, list[int]] = defaultdict(list)
    for vote in votes:
        if str(vote["example_id"]) in items:
            judged[str(vote["example_id"])].append(vote["long_answer_candidate"])
    return {item: [_mode(values) == items[item]["long_answer_candidate"]]
            for item, values in judged.items()}


def _jnq_decisions(rows: Iterable[dict[str, Any]], items: dict[str, Any]
                   ) -> dict[str, list[bool]]:
    decisions: dict[str, list[bool]] = {}
    for row in rows:
        item = str(row["id"])
        if item not in items:
            continue
        suggested = set(items[item]["paragraphs"] or [])
        decisions[item] = [(a["label"] == "EXIST") == (a["paragraph_id"] in suggested)
                           for a in row["annotations"] if a.get("votes", 1)]
    return decisions


def suggestion_agreement(base: str, recorded: dict[str, Any], votes: list[dict[str, Any]],
                         rows: list[dict[str, Any]]) -> dict[str, Any]:
    """``stats.json``'s ``STATS_KEY``: agreement of the aggregated decisions with the
    suggestion, in each group (``GROUPS``)."""
    items = recorded["items"]
    decisions = (_nq_decisions(votes, items) if base == "nq" else _jnq_decisions(rows, items))
    control = set(recorded["control"])
    figures: dict[str, Any] = {
        "model_version": recorded["model_version"], "control_rate": recorded["control_rate"],
        "decision": DECISION["nq" if base == "nq" else "jnq"]}
    variances = []
    for group in GROUPS:
        chosen = [values for item, values in decisions.items()
                  if (item in control) == (group == CONTROL) and values]
        agree, total = sum(map(sum, chosen)), sum(map(len, chosen))
        figures[group] = {ITEMS: len(chosen), DECISIONS: total, AGREE: agree,
                          AGREEMENT: round(agree / total, 4) if total else None}
        variances.append(_cluster_variance(chosen))
    shares = [figures[group][AGREEMENT] for group in GROUPS]
    figures[DIFFERENCE] = None if None in shares else round(shares[0] - shares[1], 4)
    figures[DIFFERENCE_CI95] = None
    if figures[DIFFERENCE] is not None and None not in variances:
        half = Z95 * math.sqrt(sum(variances))
        figures[DIFFERENCE_CI95] = [round(figures[DIFFERENCE] - half, 4),
                                    round(figures[DIFFERENCE] + half, 4)]
    return figures


def _cluster_variance(items: list[list[bool]]) -> float | None:
    """The variance of a share of decisions, items as clusters (None under 2 items)."""
    if len(items) < 2:
        return None
    total = sum(map(len, items))
    share = sum(map(sum, items)) / total
    spread = sum((sum(values) - share * len(values)) ** 2 for values in items)
    return len(items) / (len(items) - 1) * spread / total ** 2


def card_lines(stats: dict[str, Any]) -> list[str]:
    """The card's section on the suggestions (none when the export had none)."""
    figures = stats.get(STATS_KEY)
    if not figures:
        return []

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.1%}"

    lines = ["## Model suggestions", "",
             f"Workers were shown the predictions of `{figures['model_version']}` as "
             f"suggestions, except on a random {figures['control_rate']:.0%} of the items "
             "(the control group). Decision compared: "
             f"{figures['decision']}.", "",
             "| group | items | decisions | equal to the suggestion | share |",
             "|---|---|---|---|---|"]
    for group in GROUPS:
        row = figures[group]
        lines.append(f"| {group} | {row[ITEMS]} | {row[DECISIONS]} | {row[AGREE]} | "
                     f"{share(row[AGREEMENT])} |")
    if figures[DIFFERENCE] is not None:
        interval = figures.get(DIFFERENCE_CI95)
        within = ("" if interval is None else
                  f" (95% interval {interval[0] * 100:+.1f} to {interval[1] * 100:+.1f}, items "
                  "as clusters)")
        lines += ["", f"Suggested minus control: {figures[DIFFERENCE] * 100:+.1f} points"
                  f"{within}. The groups are drawn at random, so the model is as often right "
                  "in both: a difference whose interval lies above 0 is the suggestion's pull "
                  "on the workers (anchoring)."]
    return lines + [""]
