"""The NQ releases' ``stats.json`` content and their data cards (``nq`` and ``nq_questions``)."""

from __future__ import annotations

from typing import Any

from transforms.release import baseline_table, group_tallies, length_statistics, top_prefixes


def nq_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    counts = group_tallies(tallies)
    linking = counts.get("linking", {})
    asked = linking.get("questions", 0)
    with_wikipedia = asked - linking.get("dropped.no_wikipedia_in_top5", 0) - sum(
        v for k, v in linking.items() if k.startswith("search_failed."))
    return {"counts": counts, "lengths": length_statistics(histograms),
            "question_prefixes": top_prefixes(tallies),
            "wikipedia_in_top5_share": round(with_wikipedia / asked, 4) if asked else None}


def nq_questions_card(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    counts = stats["counts"]
    queries, heuristics = counts.get("queries", {}), counts.get("heuristics", {})
    options = manifest["options"]
    return "\n".join([
        f"# NQ question selection, version {manifest['version']}",
        "",
        "Queries selected from a search log the way Natural Questions selected its questions "
        "(Kwiatkowski et al. 2019, §3.1): issued by at least "
        f"{options['min_users']} distinct users within {options['window']} days, at least 8 "
        "spaCy tokens, and accepted by at least one of the five NQ heuristics.",
        "",
        f"Source: {manifest['source']['description']}.",
        "",
        "| what | count |",
        "|---|---|",
        f"| log rows | {counts.get('log', {}).get('rows', 0)} |",
        f"| malformed rows (dead-lettered) | {counts.get('log', {}).get('malformed_rows', 0)} |",
        f"| distinct normalized queries | {queries.get('distinct', 0)} |",
        *[f"| rejected, {k.split('.', 1)[1]} | {v} |" for k, v in sorted(queries.items())
          if k.startswith("rejected.")],
        f"| accepted questions | {queries.get('accepted', 0)} |",
        *[f"| accepted by heuristic {k[1:]} | {v} |" for k, v in sorted(heuristics.items())],
        "",
        "Columns are documented in `dataset_info.json`. Load with "
        "`pyarrow.dataset.dataset('questions', format='parquet')`.",
        "",
        "Next step (not built yet): link each question to the top Wikipedia page among the "
        "top-5 search results and extract long-answer candidates.",
        "",
    ])


def nq_card(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    counts = stats["counts"]
    share = stats["wikipedia_in_top5_share"]
    rows = manifest["rows_per_split"]
    tags = {k.split(".", 1)[1]: v for k, v in counts.get("candidates", {}).items()
            if k.startswith("tag.")}
    return "\n".join([
        f"# Natural Questions-style examples, version {manifest['version']}",
        "",
        "Questions selected from search logs as NQ did (§3.1), each paired with the top-ranked "
        "Wikipedia page among its top-5 search results, with the page's long-answer "
        "candidates (§4.1). Not annotated yet: `annotations` are empty; `python -m "
        "pipelines.annotate` exports tasks and imports the votes into an annotated release.",
        "",
        f"Search: `{manifest['source']['search']}`; pages: `{manifest['source']['pages']}`; "
        f"language: `{manifest['source']['lang']}`.",
        f"Questions with a Wikipedia page in the top 5: "
        f"{'-' if share is None else f'{share:.1%}'}.",
        "",
        "| split | examples |",
        "|---|---|",
        *[f"| {split} | {n} |" for split, n in rows.items()],
        "",
        "Long-answer candidates by tag: " + (", ".join(
            f"{tag} {n}" for tag, n in sorted(tags.items())) or "-") + ".",
        "",
        *baseline_table(stats),
        "## Formats",
        "",
        "- `nq_original/<split>/*.jsonl.gz`: the NQ original format; the official tools read "
        "it (`natural_questions.text_utils.simplify_nq_example`).",
        "- `<split>/*.parquet`: the HuggingFace `natural_questions` field layout:",
        "",
        "```python",
        "from datasets import load_dataset",
        "nq = load_dataset('parquet', data_files={'train': 'train/*.parquet'})",
        "```",
        "",
        "Splits are a stable hash of the normalized question: a question never moves between "
        "splits across versions. Page text belongs to Wikipedia's authors (CC BY-SA).",
        "",
    ])

