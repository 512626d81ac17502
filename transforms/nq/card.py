"""The NQ releases' ``stats.json`` content and their data cards (``nq`` and ``nq_questions``)."""

from __future__ import annotations

from typing import Any

from transforms.core.counters import Counts
from transforms.nq.backend_labels import linking_line, sample_index_info, sample_index_lines
from transforms.nq.counters import (
    ACCEPTED,
    CANDIDATE_TAG,
    COUNTERS,
    DISTINCT,
    HEURISTICS,
    LOG_MALFORMED_ROWS,
    LOG_ROWS,
    NO_WIKIPEDIA_IN_TOP5,
    REJECTED,
    SEARCH_FAILED,
    SEARCHED,
)
from transforms.nq.floor_text import BELOW_FLOOR_SHARE, below_floor_share
from transforms.nq.floor_text import card_lines as floor_card_lines
from transforms.nq.refresh_text import card_lines, questions_card_lines, this_run
from transforms.nq.simplified import CARD_LINE as SIMPLIFIED_CARD_LINE
from transforms.release import (
    CardInfo,
    DatasetCard,
    baseline_table,
    group_tallies,
    length_statistics,
    md_text,
    top_prefixes,
)
from transforms.release.card import NO_ANNOTATION
from transforms.release.citations import NOT_ANNOTATED, NQ_BIBTEX, QUERY_LOG_LICENSE


def nq_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    counts = group_tallies(tallies)
    read = Counts(counts, COUNTERS)
    asked = read[SEARCHED]
    with_wikipedia = asked - read[NO_WIKIPEDIA_IN_TOP5] - sum(read.family(SEARCH_FAILED).values())
    return {"counts": counts, "lengths": length_statistics(histograms),
            "question_prefixes": top_prefixes(tallies),
            "wikipedia_in_top5_share": round(with_wikipedia / asked, 4) if asked else None,
            **({BELOW_FLOOR_SHARE: below_floor_share(read)} if asked else {})}


WIKIPEDIA_LICENSE = (
    "Page text, HTML and titles come from Wikipedia and belong to its authors under "
    "CC BY-SA 4.0 (revisions before June 2023: CC BY-SA 3.0); reuse must attribute them and "
    "share alike. Each example records the page URL and revision it came from.")

UNANNOTATED_NOTE = ("Not annotated yet: `annotations` are empty; `python -m pipelines.annotate` "
                    "exports tasks and imports the votes into an annotated release.")

QUESTION_LIMITATIONS = (
    "The questions come from one search engine's log (the one given to the build): they "
    "reflect its users, their language, interests and the period the log covers, as NQ's "
    "questions reflect Google's users in 2016-2017.",
    "Question selection is English-only (spaCy `en_core_web_sm` tokens, NQ §3.1's "
    "heuristics 1-5 and our rules 6-8): on real data the filter accepts 98.6% of NQ-open "
    "(EfficientQA dev) questions and about a quarter to a third of long \"how to\" queries "
    "(the toolkit's docs/datasets/nq.md, \"Filter quality and speed\"), so some "
    "non-questions remain.",
    "Queries issued by fewer distinct users than `--min-users` within `--window` days are "
    "dropped, which removes rare (long-tail) information needs as well as personal ones.",
)

NQ_QUESTIONS_INFO = CardInfo(
    pretty_name="Natural Questions-style question selection",
    summary=(
        "Questions selected from a search query log the way Natural Questions selected its "
        "questions (Kwiatkowski et al. 2019, §3.1): a normalized query must be issued by "
        "several distinct users within a time window, have at least 8 tokens, and be "
        "accepted by at least one of NQ's five question heuristics or our rules 6-8. Each row "
        "is one question with its spelling variants, user and event counts and the "
        "heuristics that accepted it; the next stage (`build_nq` without `--stop-after "
        "questions`) pairs each with a Wikipedia page."),
    license="other",
    license_text=(
        f"{QUERY_LOG_LICENSE} The counts and heuristic labels the toolkit adds carry no "
        "further restriction. Natural Questions itself (CC BY-SA 3.0) is not part of this "
        "release: only its selection method is reused."),
    language=("en",),
    task_categories=("question-answering",),
    task_ids=("open-domain-qa",),
    source_datasets=("original",),
    annotations_creators=(NO_ANNOTATION,),  # built, not yet annotated
    citation=NQ_BIBTEX,
    limitations=QUESTION_LIMITATIONS,
    collection=(
        "Rows of a search query log (query, user, timestamp, optional count) are read; "
        "malformed rows are dead-lettered. Queries are normalized (case, whitespace, "
        "punctuation) and grouped; spelling variants are kept."),
    preprocessing=(
        "A normalized query is kept when at least `--min-users` distinct users issued it "
        "within `--window` days, it has at least 8 spaCy tokens, is not a URL, and one of "
        "NQ §3.1's heuristics 1-5 (who/when/where-style questions, categorical noun phrases "
        "from a Hearst-pattern lexicon, ...) or our rules 6-8 (degree, fill-in-the-blank and "
        "superlative questions; never \"how to\"-style task queries) accepts it. Every "
        "rejection is counted by reason."),
)

NQ_INFO = CardInfo(
    pretty_name="Natural Questions-style examples (questions with Wikipedia pages)",
    summary=(
        "Natural Questions-style examples: questions selected from a search query log as NQ "
        "did (Kwiatkowski et al. 2019, §3.1), each paired with the top-ranked Wikipedia page "
        "among its top-5 search results and that page's long-answer candidates (§4.1: the "
        "P, Table, Tr, Ul, Ol, Dl, Li, Dd and Dt boxes). The rows use the HuggingFace "
        "`natural_questions` layout and the NQ original format is written next to them, so "
        "NQ's own tools read the release."),
    license="other",
    license_text=(
        f"{WIKIPEDIA_LICENSE} {QUERY_LOG_LICENSE} Natural Questions itself (CC BY-SA 3.0) is "
        "not part of this release: only its method and formats are reused."),
    language=("en",),
    task_categories=("question-answering",),
    task_ids=("open-domain-qa", "extractive-qa"),
    source_datasets=("original",),
    annotations_creators=(NO_ANNOTATION,),  # built, not yet annotated
    citation=NQ_BIBTEX,
    limitations=(
        *QUESTION_LIMITATIONS,
        "The document is the top Wikipedia page among the top 5 results of one search "
        "backend at build time; questions without one are dropped, and the page is the "
        "revision fetched then, not NQ's 2018 snapshot.",
        NOT_ANNOTATED,
    ),
    collection=(
        "Questions are selected from a search query log as in NQ §3.1; each is sent to a "
        "search backend (a local BM25 index, the MediaWiki search API or a web search API) "
        "and the top-ranked Wikipedia article among the top 5 results is fetched at a pinned "
        "revision."),
    preprocessing=(
        "The page HTML is tokenized as NQ did (HTML tags are tokens) and its long-answer "
        "candidates (P, Table, Tr, Ul, Ol, Dl, Li, Dd, Dt) are extracted with token and byte "
        "offsets and top-level flags. Splits are a stable hash of the normalized question, "
        "so a question never moves between splits across versions."),
)


def _questions_body(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    counts = Counts(stats["counts"], COUNTERS)
    heuristics = counts.fired(HEURISTICS)
    options = manifest["options"]
    return "\n".join([
        f"# NQ question selection, version {md_text(manifest['version'])}",
        "",
        NQ_QUESTIONS_INFO.summary,
        "",
        f"This release: at least {md_text(options['min_users'])} distinct users within "
        f"{md_text(options['window'])} days.",
        "",
        *questions_card_lines(stats),
        "| what | count |",
        "|---|---|",
        f"| log rows | {counts[LOG_ROWS]} |",
        f"| malformed rows (dead-lettered) | {counts[LOG_MALFORMED_ROWS]} |",
        f"| distinct normalized queries | {counts[DISTINCT]} |",
        *[f"| rejected, {k} | {v} |" for k, v in counts.family(REJECTED).items()],
        f"| accepted questions | {counts[ACCEPTED]} |",
        *[f"| accepted by heuristic {k[1:]} | {v} |" for k, v in sorted(heuristics.items())],
        "",
    ])


def _examples_body(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    share = stats["wikipedia_in_top5_share"]
    rows = manifest["rows_per_split"]
    source = manifest["source"]
    tags = Counts(stats["counts"], COUNTERS).family(CANDIDATE_TAG)
    return "\n".join([
        f"# Natural Questions-style examples, version {md_text(manifest['version'])}",
        "",
        NQ_INFO.summary,
        "",
        UNANNOTATED_NOTE,
        "",
        *card_lines(manifest, stats),
        f"{linking_line(source)} "
        f"Questions with a Wikipedia page in the top 5{this_run(stats)}: "
        f"{'-' if share is None else f'{share:.1%}'}.",
        "",
        *floor_card_lines(manifest, stats),
        *sample_index_lines(source),
        "| split | examples |",
        "|---|---|",
        *[f"| {md_text(split)} | {n} |" for split, n in rows.items()],
        "",
        f"Long-answer candidates by tag{this_run(stats)}: " + (", ".join(
            f"{tag} {n}" for tag, n in sorted(tags.items())) or "-") + ".",
        "",
        *baseline_table(stats),
        "## Formats",
        "",
        "- `nq_original/<split>/nq-<split>-00.jsonl.gz`: the NQ original format, named as in "
        "NQ's own release; the official tools read it "
        "(`natural_questions.simplify_nq_data`, `natural_questions.nq_eval`).",
        "- `<split>/*.parquet`: the HuggingFace `natural_questions` field layout "
        "(`annotations.yes_no_answer`: -1 none, 0 NO, 1 YES).",
        SIMPLIFIED_CARD_LINE,
        "",
        "Splits are a stable hash of the normalized question: a question never moves between "
        "splits across versions.",
        "",
    ])


nq_questions_card = DatasetCard(info=NQ_QUESTIONS_INFO, body=_questions_body)
nq_card = DatasetCard(info=NQ_INFO, body=_examples_body, adapt=sample_index_info)
