"""The ReQA release's ``stats.json`` content and its ``README.md`` data card."""

from __future__ import annotations

from typing import Any

from transforms.release import baseline_table, group_tallies, length_statistics

# What the paper reports for the train sets (Ahmad et al. 2019, Table 1 and §3).
PAPER_SIZES = {"squad": "87,599 questions, 91,707 sentences (SQuAD v1.1 train)",
               "nq": "about 74k questions, 239k sentences (NQ train)"}
SOURCE_NAMES = {"squad": "SQuAD v1.1", "nq": "Natural Questions (original format)",
                "nlquad": "NLQuAD (this toolkit's release)"}


def reqa_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    """stats.json: totals, drop reasons, distributions and every tally."""
    counts = group_tallies(tallies)
    examples = counts.get("examples", {})
    per_paragraph = histograms.get("all/sentences_per_paragraph", {})
    return {
        "questions": counts.get("questions", {}).get("unique", 0),
        "candidates": counts.get("candidates", {}).get("unique", 0),
        "paragraphs": sum(per_paragraph.values()),
        "examples": {"read": examples.get("read", 0), "kept": examples.get("kept", 0),
                     "dropped": sum(v for k, v in examples.items()
                                    if k.startswith("dropped.")),
                     "malformed": examples.get("malformed", 0)},
        "drop_reasons": {k.split(".", 1)[1]: v for k, v in sorted(examples.items())
                         if k.startswith("dropped.")},
        "sentences_per_paragraph": dict(sorted(per_paragraph.items())),
        "correct_per_question": dict(sorted(
            histograms.get("all/correct_per_question", {}).items())),
        "lengths": length_statistics(histograms).get("all", {}),
        "counts": counts,
    }


def summary_value(lengths: dict[str, Any], metric: str) -> str:
    """``mean, median, min, max`` of a length statistic, or ``-`` when it has no values."""
    summary = lengths.get(metric, {})
    if not summary.get("count"):
        return "-"
    return (f"mean {summary['mean']}, median {summary['median']}, min {summary['min']}, "
            f"max {summary['max']}")


def reqa_card(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    """Markdown data card: what, how built, counts, baselines, files, how to load."""
    source = manifest["options"]["source"]
    lengths, examples = stats["lengths"], stats["examples"]
    counts = stats["counts"]
    answers = counts.get("answers", {})
    return "\n".join([
        f"# ReQA retrieval set from {SOURCE_NAMES[source]}, version {manifest['version']}",
        "",
        "Sentence-level answer retrieval as in ReQA (Ahmad, Constant, Yang, Cer 2019, "
        "\"ReQA: An Evaluation for End-to-End Answer Retrieval Models\"): every paragraph is "
        "split into sentences (spaCy `en_core_web_sm` `senter`, see `filters/text/sentences.py`); "
        "the answer index holds each sentence with its paragraph as context; a question's "
        "correct answers are the sentences its answer span overlaps. Questions with the same "
        "text are merged (all their answers count); a paragraph reached from several "
        "questions is indexed once.",
        "",
        f"Input: {manifest['source']['description']}.",
        *([f"For comparison, the paper's set from {SOURCE_NAMES[source]}: "
           f"{PAPER_SIZES[source]}.", ""] if source in PAPER_SIZES else [""]),
        "| what | count |",
        "|---|---|",
        f"| input examples | {examples['read']} |",
        f"| kept | {examples['kept']} |",
        *[f"| dropped, {reason} | {n} |" for reason, n in stats["drop_reasons"].items()],
        f"| malformed (dead-lettered) | {examples['malformed']} |",
        f"| questions (distinct texts) | {stats['questions']} |",
        f"| candidate sentences | {stats['candidates']} |",
        f"| paragraphs | {stats['paragraphs']} |",
        f"| answers crossing a sentence boundary | "
        f"{answers.get('cross_sentence_boundary', 0)} |",
        "",
        f"Sentences per paragraph: {summary_value(lengths, 'sentences_per_paragraph')}.  ",
        f"Correct sentences per question: {summary_value(lengths, 'correct_per_question')}.  ",
        f"Words per sentence: {summary_value(lengths, 'sentence_words')}.",
        "",
        *baseline_table(stats),
        "## Files",
        "",
        "- `questions/*.parquet`: `qid`, `question`, `correct_candidate_ids`, `source`, "
        "`document`, `example_ids`.",
        "- `candidates/*.parquet`: `candidate_id`, `sentence`, `context` (the paragraph), "
        "`paragraph_id`, `document`, `source`, `sentence_start`, `sentence_end` "
        "(`context[sentence_start:sentence_end] == sentence`).",
        "- `rejected/dropped_examples/`: every dropped example with its reason; "
        "`rejected/dead_letter/`: records that could not be read.",
        "",
        "Columns are documented in `dataset_info.json`. Evaluate a retriever by ranking all "
        "candidates for each question: mean reciprocal rank and recall@k of the first "
        "correct candidate, as in the paper.",
        "",
        "```python",
        "import pyarrow.dataset as ds",
        "questions = ds.dataset('questions', format='parquet').to_table().to_pylist()",
        "candidates = ds.dataset('candidates', format='parquet').to_table().to_pylist()",
        "```",
        "",
    ])
