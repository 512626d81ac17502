"""What an import with ``--previous`` says about the annotations it carried.

``stats.json`` gains ``annotations``: the release carried from (``carried_from``: dataset,
version, fingerprint and the base release it annotates), how many of its judged items were
carried (``carried``, with ``carried_votes`` rows of its ``votes`` table) and how many were
invalidated, in total and by reason; the card gains an "Annotations carried" section and the
summary a line, both read from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from transforms.annotation.counters import (
    CARRIED,
    CARRIED_VOTES,
    COUNTERS,
    INVALIDATED,
    PREVIOUS,
)
from transforms.core.counters import Counts
from transforms.release import md_text

STATS_KEY = "annotations"


def carried_stats(counts: Mapping[str, Mapping[str, int]], carried_from: Mapping[str, Any],
                  recompute_all: bool) -> dict[str, Any]:
    """``stats["annotations"]`` from the import's counts."""
    read = Counts(counts, COUNTERS)
    invalidated = read.family(INVALIDATED)
    return {"carried_from": dict(carried_from), "recompute_all": recompute_all,
            "previous": read[PREVIOUS], "carried": read[CARRIED],
            "carried_votes": read[CARRIED_VOTES],
            "invalidated": sum(invalidated.values()), "invalidated_by_reason": invalidated}


def _reasons(carried: Mapping[str, Any]) -> str:
    reasons = carried["invalidated_by_reason"]
    return ", ".join(f"{reason.replace('_', ' ')} {n}" for reason, n in reasons.items())


def _source(carried: Mapping[str, Any]) -> str:
    source = carried["carried_from"]
    annotates = source.get("annotates", {})
    return (f"{md_text(source['dataset'])} {md_text(source['version'])} (fingerprint "
            f"{md_text(source['fingerprint'])}, annotating {md_text(annotates.get('dataset'))} "
            f"{md_text(annotates.get('version'))} {md_text(annotates.get('fingerprint'))})")


def carried_card_lines(stats: Mapping[str, Any]) -> list[str]:
    """The card's "Annotations carried" section (none without ``--previous``)."""
    carried = stats.get(STATS_KEY)
    if not carried:
        return []
    lines = ["## Annotations carried", ""]
    if carried["recompute_all"]:
        lines.append(f"Built on {_source(carried)} with `--recompute-all`: none of its "
                     f"{carried['previous']} judged items was carried; every item was "
                     "aggregated from the votes of this import.")
        return [*lines, ""]
    lines.append(f"{carried['carried']} of the {carried['previous']} items judged in "
                 f"{_source(carried)} were carried with their annotations and "
                 f"{carried['carried_votes']} votes, unchanged: what their workers saw "
                 "(question, page revision, candidates or paragraphs) is the same in this "
                 "release.")
    if carried["invalidated"]:
        lines += ["", f"{carried['invalidated']} lost their annotations ({_reasons(carried)}) "
                  "and were aggregated from new votes, like new examples (`annotate export "
                  "--previous` exports exactly these and the new ones)."]
    return [*lines, ""]


def carried_summary_line(stats: Mapping[str, Any]) -> list[str]:
    """The summary's line (none without ``--previous``)."""
    carried = stats.get(STATS_KEY)
    if not carried:
        return []
    source = carried["carried_from"]
    label = f"{source['dataset']} {source['version']} ({source['fingerprint']})"
    if carried["recompute_all"]:
        return [f"  annotations carried from {label}: none (--recompute-all)"]
    line = (f"  annotations carried from {label}: {carried['carried']} of "
            f"{carried['previous']} ({carried['carried_votes']} votes); invalidated "
            f"{carried['invalidated']}")
    return [line + (f" ({_reasons(carried)})" if carried["invalidated"] else "")]
