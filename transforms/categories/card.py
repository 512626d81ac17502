"""The category-lexicon release's ``stats.json`` content and data card."""

from __future__ import annotations

from typing import Any

from transforms.categories.stages import LEXICON_FILE
from transforms.release import group_tallies


def categories_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    return {"counts": group_tallies(tallies)}


def categories_card(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    counts = stats["counts"]
    patterns = counts.get("hearst", {})
    return "\n".join([
        f"# Category lexicon, version {manifest['version']}",
        "",
        "Hypernyms found by Hearst (1992) patterns (\"NP such as NP\", \"such NP as NP\", "
        "\"NP or other NP\", \"NP and other NP\", \"NP including NP\", \"NP especially NP\"): "
        "the categorical noun phrases of Natural Questions heuristics 4 and 5.",
        "",
        f"Corpus: {manifest['source']['description']}; "
        f"{counts.get('corpus', {}).get('files', 0)} files, "
        f"{counts.get('corpus', {}).get('paragraphs', 0)} paragraphs.",
        f"Lexicon entries: {manifest['rows_per_split'].get('lexicon', 0)}.",
        "",
        "| pattern | matches |",
        "|---|---|",
        *[f"| {name.split('.', 1)[1]} | {count} |" for name, count in sorted(patterns.items())],
        "",
        f"Use: `python -m pipelines.build_nq --categories <this directory>/{LEXICON_FILE}`.",
        "",
    ])

