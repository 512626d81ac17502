"""The dataset-independent parts of ``stats.json``: counts by stage, lengths, question prefixes."""

from __future__ import annotations

from typing import Any

from filters.text.stats import percentile_summary

PREFIX_TALLIES = ("question_prefix_1.", "question_prefix_2.")


def group_tallies(tallies: dict[str, int]) -> dict[str, dict[str, int]]:
    """``{"pages.skipped.video_page": 1}`` -> ``{"pages": {"skipped.video_page": 1}}``."""
    grouped: dict[str, dict[str, int]] = {}
    for name, count in sorted(tallies.items()):
        if name.startswith(PREFIX_TALLIES):
            continue
        stage, _, rest = name.partition(".")
        grouped.setdefault(stage, {})[rest] = count
    return grouped


def top_prefixes(tallies: dict[str, int], limit: int = 20) -> dict[str, list[dict[str, Any]]]:
    """Most frequent first words / first two words of questions (NLQuAD Table 3)."""
    result = {}
    for label, prefix in zip(("first_word", "first_two_words"), PREFIX_TALLIES, strict=True):
        counts = {k[len(prefix):]: v for k, v in tallies.items() if k.startswith(prefix)}
        total = sum(counts.values()) or 1
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        result[label] = [{"prefix": p, "count": c, "share": round(c / total, 4)}
                         for p, c in ranked]
    return result


def length_statistics(histograms: dict[str, dict[int, int]]) -> dict[str, dict[str, Any]]:
    """``{"train/answer_words": hist}`` -> ``{"train": {"answer_words": summary}}``."""
    result: dict[str, dict[str, Any]] = {}
    for key, histogram in sorted(histograms.items()):
        scope, _, metric = key.partition("/")
        result.setdefault(scope, {})[metric] = percentile_summary(histogram)
    return result

