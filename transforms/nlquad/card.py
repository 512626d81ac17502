"""The NLQuAD release's ``stats.json`` content and its ``README.md`` data card."""

from __future__ import annotations

from typing import Any

from transforms.release import baseline_table, group_tallies, length_statistics, top_prefixes

PAPER_REFERENCE = {
    "source": "Soleimani, Monz, Worring. NLQuAD. EACL 2021, Table 2",
    "documents": 13_000,
    "questions": 31_000,
    "document_words_mean": 877,
    "document_sentences_mean": 38.7,
    "answer_words_mean": 175,
    "answer_sentences_mean": 7.5,
    "question_words_mean": 7,
    "questions_per_document_mean": 2.4,
}


def nlquad_stats(tallies: dict[str, int], histograms: dict[str, dict[int, int]]) -> dict:
    return {
        "counts": group_tallies(tallies),
        "lengths": length_statistics(histograms),
        "question_prefixes": top_prefixes(tallies),
        "paper_reference": PAPER_REFERENCE,
    }


def _mean(stats: dict, metric: str) -> str:
    value = stats["lengths"].get("all", {}).get(metric, {}).get("mean")
    return "-" if value is None else f"{value:g}"


def _reasons(counts: dict[str, int], prefix: str) -> list[str]:
    return [f"| {name[len(prefix):]} | {count} |" for name, count in sorted(counts.items())
            if name.startswith(prefix)]


def nlquad_card(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    """Markdown data card: what, how built, stats, license note, how to load."""
    counts = stats["counts"]
    pages = counts.get("pages", {})
    questions = counts.get("questions", {})
    dedup = counts.get("dedup", {})
    rows = manifest["rows_per_split"]
    version = manifest["version"]
    lines = [
        f"# NLQuAD-style dataset, version {version}",
        "",
        "Non-factoid long-answer questions from BBC News articles, built the way NLQuAD was "
        "(Soleimani, Monz and Worring, EACL 2021): the questions are the articles' "
        "interrogative sub-headings and each answer is the body paragraphs that follow the "
        "sub-heading up to the next sub-heading (or break-line).",
        "",
        f"Built {manifest['created']} by {manifest['code']['package']} "
        f"{manifest['code']['version']} (commit {manifest['code']['git_commit'] or 'n/a'}) "
        f"from source `{manifest['source'].get('kind')}`.",
        "",
        "## Splits",
        "",
        "| split | questions |",
        "|---|---|",
        *[f"| {split} | {count} |" for split, count in rows.items()],
        "",
        "Splits are assigned by a stable SHA-256 hash of the article id with the salt "
        f"`{manifest['options'].get('split_salt')}`: all questions of an article are in one "
        "split, and an article keeps its split in every future version.",
        "",
        "## How it was built",
        "",
        "1. Pages: BBC News article URLs only (video, live and index pages are skipped by URL); "
        "every layout era is parsed (Era A `span.cross-head`, Era B "
        "`h2.story-body__crosshead`, Era C `crosshead-block`, Era D `subheadline-block`).",
        "2. Text only: captions, image credits, media, ads, share tools, related-topic and "
        "link-only lists are removed; BBC call-to-action templates and paragraphs repeated "
        f"across at least {manifest['options'].get('boilerplate_min_docs')} articles are "
        "removed.",
        "3. One document per article: the capture nearest to publication wins; the same body "
        "text under two URLs is kept once (earliest published).",
        "4. Questions: sub-headings ending with `?`; dropped when the answer contains a "
        "bullet list, is empty, or is a template.",
        "5. The context is the body paragraphs without sub-headings or break-lines, joined by "
        f"{manifest['options'].get('paragraph_separator')!r}.",
        "",
        "## Counts",
        "",
        "| what | count |",
        "|---|---|",
        f"| pages read | {pages.get('read', 0)} |",
        f"| articles parsed | {pages.get('parsed', 0)} |",
        f"| duplicate captures removed | {dedup.get('duplicate_capture', 0)} |",
        f"| duplicate texts removed | {dedup.get('duplicate_content', 0)} |",
        f"| interrogative sub-headings | {questions.get('found', 0)} |",
        f"| questions kept | {questions.get('kept', 0)} |",
        "",
        "Pages skipped, by reason:",
        "",
        "| reason | pages |",
        "|---|---|",
        *_reasons(pages, "skipped."),
        "",
        "Questions dropped, by reason:",
        "",
        "| reason | questions |",
        "|---|---|",
        *_reasons(questions, "dropped."),
        "",
        "## Lengths (means; see stats.json for medians and per-split values)",
        "",
        "| statistic | this release | NLQuAD paper |",
        "|---|---|---|",
        f"| words per document | {_mean(stats, 'document_words')} | 877 |",
        f"| sentences per document | {_mean(stats, 'document_sentences')} | 38.7 |",
        f"| words per answer | {_mean(stats, 'answer_words')} | 175 |",
        f"| sentences per answer | {_mean(stats, 'answer_sentences')} | 7.5 |",
        f"| words per question | {_mean(stats, 'question_words')} | 7 |",
        f"| questions per document | {_mean(stats, 'questions_per_document')} | 2.4 |",
        "",
        *baseline_table(stats),
        "## Loading",
        "",
        "```python",
        "import pyarrow.dataset as ds",
        "train = ds.dataset('train', format='parquet').to_table()",
        "",
        "from datasets import load_dataset",
        "data = load_dataset('parquet', data_files={'train': 'train/*.parquet',",
        "                                           'validation': 'dev/*.parquet',",
        "                                           'test': 'test/*.parquet'})",
        "```",
        "",
        "Columns are documented in `dataset_info.json` (`schema`). `context[answer_start:"
        "answer_end] == answer_text`; word offsets index `context.split()`.",
        "",
        "## License",
        "",
        "The text belongs to the BBC. NLQuAD was released for research use; check the BBC's "
        "terms before redistributing article text built with this toolkit.",
        "",
    ]
    return "\n".join(lines)


def nlquad_baselines(staging_dir: str, split: str = "dev") -> dict[str, Any]:
    """NLQuAD Table 4-style untrained baselines on the staged ``split``: IoU and F1 of the
    first, last, random and BM25 answer-sized windows (``transforms.metrics.baselines.nlquad``)."""
    from transforms.clients.local_search import IndexTokenizer
    from transforms.metrics.baselines.nlquad import (
        bm25_window,
        first_window,
        last_window,
        random_window,
    )
    from transforms.metrics.nlquad import interval_iou, precision_recall_f1
    from transforms.release import read_group_rows

    rows = read_group_rows(staging_dir, split)
    metrics = ["iou", "f1"]
    if not rows:
        return {"split": split, "n": 0, "metrics": metrics, "rows": [],
                "note": "No questions in this split."}
    length = max(1, round(sum(r["answer_word_end"] - r["answer_word_start"] for r in rows)
                          / len(rows)))
    tokenize = IndexTokenizer("en")
    choosers = {
        "first window": lambda r, w: first_window(len(w), length),
        "last window": lambda r, w: last_window(len(w), length),
        "random window": lambda r, w: random_window(len(w), length, r["id"]),
        "BM25 window": lambda r, w: bm25_window(w, length, r["question"], tokenize),
    }
    table = []
    for name, choose in choosers.items():
        ious, f1s = [], []
        for row in rows:
            words = row["context"].split()
            start, end = choose(row, words)
            ious.append(interval_iou((start, end),
                                     (row["answer_word_start"], row["answer_word_end"])))
            f1s.append(precision_recall_f1(row["answer_text"], " ".join(words[start:end]))[2])
        table.append({"name": name, "iou": sum(ious) / len(ious), "f1": sum(f1s) / len(f1s)})
    note = f"Windows of {length} words (the mean answer length)."
    if table[0]["iou"] > 0.9:
        note += " WARNING: the first window nearly always wins: check the data."
    return {"split": split, "n": len(rows), "metrics": metrics, "rows": table, "note": note}
