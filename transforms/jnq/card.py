"""The JNQ / JBoolQ releases' ``stats.json`` content, baselines note and data card."""

from __future__ import annotations

from typing import Any

from transforms.release import baseline_table, group_tallies, length_statistics


def jnq_dev_baselines(staging_dir: str) -> dict[str, Any]:
    """JNQ releases are not annotated yet: the card says how baselines will be scored."""
    return {"split": "dev", "n": 0, "metrics": ["f1"], "rows": [], "note": (
        "The questions are not annotated yet, so no baseline can be scored; python -m "
        "pipelines.annotate import writes an annotated release whose card scores the "
        "first-paragraph and most snippet-similar paragraph baselines.")}


def jnq_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    return {"counts": group_tallies(tallies), "lengths": length_statistics(histograms)}


def jnq_card(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    counts = stats["counts"]
    queries, patterns = counts.get("queries", {}), counts.get("patterns", {})
    variant = manifest["options"]["variant"]
    rule = ("no spaces, 8+ words, pattern 1 (topic は + interrogative), 2 (final ?) or 3 "
            "(意味/方法/理由)" if variant == "jnq" else
            "no spaces, more than six words, ending with ? or the particle か")
    return "\n".join([
        f"# {manifest['dataset']} version {manifest['version']}",
        "",
        "Built the way the Japanese Natural Questions benchmark suite was (Uematsu, Wang, "
        f"Kawahara, Shibata): queries with {rule}; words by fugashi with unidic-lite.",
        "",
        f"Source: {manifest['source']['description']}.",
        "",
        "| what | count |",
        "|---|---|",
        f"| distinct queries | {queries.get('distinct', 0)} |",
        *[f"| rejected, {k.split('.', 1)[1]} | {v} |" for k, v in sorted(queries.items())
          if k.startswith("rejected.")],
        f"| accepted questions | {queries.get('accepted', 0)} |",
        *[f"| pattern {k[1:]} matched | {v} |" for k, v in sorted(patterns.items())],
        *[f"| examples in {split} | {n} |" for split, n in manifest["rows_per_split"].items()],
        "",
        *baseline_table(stats),
        "Long-answer candidates (JNQ §3.3): the first paragraph and the four other paragraphs "
        "with the highest bag-of-words cosine similarity to the search snippet "
        "(`candidate_paragraph_ids`, `candidate_ranks`, `candidate_scores`); every other "
        "paragraph is NONE. Splits: stable hash of the normalized question. Page text belongs "
        "to Wikipedia's authors (CC BY-SA).",
        "",
    ])

