"""The JNQ / JBoolQ releases' ``stats.json`` content, baselines note and data cards."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from transforms.core.counters import Counts
from transforms.jnq.counters import COUNTERS, PATTERNS
from transforms.nq.backend_labels import linking_line, sample_index_info, sample_index_lines
from transforms.nq.counters import ACCEPTED, DISTINCT, REJECTED
from transforms.nq.refresh_text import card_lines, questions_card_lines
from transforms.release import (
    CardInfo,
    DatasetCard,
    baseline_table,
    group_tallies,
    length_statistics,
    md_text,
)
from transforms.release.card import NO_ANNOTATION
from transforms.release.citations import JNQ_BIBTEX, NOT_ANNOTATED, QUERY_LOG_LICENSE

RULES = {
    "jnq": "no spaces, 8+ words, pattern 1 (topic は + interrogative), 2 (final ?) or 3 "
           "(意味/方法/理由)",
    "jboolq": "no spaces, more than six words, ending with ? or the particle か",
}

JNQ_INFO = CardInfo(
    pretty_name="JNQ-style Japanese Natural Questions",
    summary=(
        "Japanese Natural Questions-style examples, built the way the JNQ benchmark suite "
        "was (Uematsu, Wang, Kawahara and Shibata, \\*SEM 2024): questions selected from a "
        "Japanese search query log by JNQ's rules (no spaces, 8 or more words by fugashi "
        "with unidic-lite, and an interrogative pattern), each paired with the top-ranked "
        "ja.wikipedia.org article among its top-5 search results. Every paragraph of the "
        "article is kept with an id; the long-answer candidates are the first paragraph and "
        "the four paragraphs most similar to the search snippet (JNQ §3.3)."),
    license="other",
    license_text=(
        "Article text comes from the Japanese Wikipedia and belongs to its authors under "
        "CC BY-SA 4.0 (revisions before June 2023: CC BY-SA 3.0); each example records the "
        f"revision-pinned URL. {QUERY_LOG_LICENSE} The JNQ and JBoolQ data of the paper are "
        "not part of this release: only the method is reused."),
    language=("ja",),
    task_categories=("question-answering",),
    task_ids=("open-domain-qa", "extractive-qa"),
    source_datasets=("original",),
    annotations_creators=(NO_ANNOTATION,),  # built, not yet annotated
    citation=JNQ_BIBTEX,
    limitations=(
        "The questions come from one Japanese search engine's log (the one given to the "
        "build) and reflect its users and the period it covers.",
        "`--min-users` defaults to 1 as in the JNQ paper, so a query issued by a single user "
        "can become a question: check the log for personal information before publishing.",
        "Word counts and pattern matching depend on fugashi with unidic-lite; other "
        "tokenizers count words differently.",
        "The document is the top ja.wikipedia.org article among the top 5 results of one "
        "search backend at build time; only five candidate paragraphs per question are "
        "offered for annotation, chosen by bag-of-words similarity to the snippet, so an "
        "answer elsewhere in the article is missed.",
        NOT_ANNOTATED,
    ),
    collection=(
        "Rows of a Japanese search query log are read and normalized (NFKC); accepted "
        "questions are sent to a search backend (a local BM25 index segmented with fugashi, "
        "the MediaWiki search API or a web search API) and the top-ranked ja.wikipedia.org "
        "article among the top 5 results is fetched at a pinned revision."),
    preprocessing=(
        "Queries longer than 400 characters, containing spaces, shorter than the word "
        "threshold or matching no pattern are dropped, each by reason. The article's body "
        "paragraphs (outside infoboxes, tables and navboxes, before the reference sections) "
        "are kept with ids; candidates are the first paragraph (rank 0) and the four others "
        "with the highest cosine similarity of fugashi content-word vectors to the snippet. "
        "Splits are a stable hash of the normalized question."),
)

JBOOLQ_INFO = replace(
    JNQ_INFO,
    pretty_name="JBoolQ-style Japanese yes/no questions",
    summary=(
        "Japanese yes/no questions built the way JBoolQ was (Uematsu, Wang, Kawahara and "
        "Shibata, \\*SEM 2024, §4): questions selected from a Japanese search query log that "
        "have no spaces, more than six words (fugashi with unidic-lite) and end with ? or "
        "the particle か, each paired with the top-ranked ja.wikipedia.org article among its "
        "top-5 search results, its paragraphs and five candidate paragraphs (the first and "
        "the four most similar to the search snippet)."),
    task_categories=("question-answering", "text-classification"),
    task_ids=("open-domain-qa",),
    limitations=(
        *JNQ_INFO.limitations,
        "The yes/no form rule (final ? or か) also admits questions that are not yes/no "
        "questions; the annotation stage decides which are.",
    ),
)


def jnq_dev_baselines(staging_dir: str) -> dict[str, Any]:
    """JNQ releases are not annotated yet: the card says how baselines will be scored."""
    return {"split": "dev", "n": 0, "metrics": ["f1"], "rows": [], "note": (
        "The questions are not annotated yet, so no baseline can be scored; python -m "
        "pipelines.annotate import writes an annotated release whose card scores the "
        "first-paragraph and most snippet-similar paragraph baselines.")}


def jnq_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    return {"counts": group_tallies(tallies), "lengths": length_statistics(histograms)}


QUESTIONS_ONLY_NOTE = (
    "This release stopped after question selection (`--stop-after questions`): it holds the "
    "accepted questions and the patterns they matched, without pages.")
UNANNOTATED_NOTE = (
    "Not annotated yet: `python -m pipelines.annotate` exports the crowd tasks and imports the "
    "judgments into an annotated release.")
CANDIDATES_NOTE = (
    "Long-answer candidates (JNQ §3.3): the first paragraph and the four other paragraphs "
    "with the highest bag-of-words cosine similarity to the search snippet "
    "(`candidate_paragraph_ids`, `candidate_ranks`, `candidate_scores`); every other "
    "paragraph is NONE. Splits: stable hash of the normalized question.")


def _body(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    """Markdown body: what, the selection rule, counts and rejection reasons, baselines."""
    counts = Counts(stats["counts"], COUNTERS)
    patterns = counts.fired(PATTERNS)
    options = manifest["options"]
    variant = options["variant"]
    info = JBOOLQ_INFO if variant == "jboolq" else JNQ_INFO
    questions_only = manifest["dataset"].endswith("_questions")
    return "\n".join([
        f"# {md_text(manifest['dataset'])} version {md_text(manifest['version'])}",
        "",
        info.summary,
        "",
        QUESTIONS_ONLY_NOTE if questions_only else UNANNOTATED_NOTE,
        "",
        *(questions_card_lines(stats) if questions_only else card_lines(manifest, stats)),
        *([] if questions_only else [linking_line(manifest["source"]), "",
                                     *sample_index_lines(manifest["source"])]),
        f"This release: queries with {RULES.get(variant, RULES['jnq'])}, issued by at least "
        f"{md_text(options.get('min_users'))} distinct users within "
        f"{md_text(options.get('window'))} days.",
        "",
        "| what | count |",
        "|---|---|",
        f"| distinct queries | {counts[DISTINCT]} |",
        *[f"| rejected, {k} | {v} |" for k, v in counts.family(REJECTED).items()],
        f"| accepted questions | {counts[ACCEPTED]} |",
        *[f"| pattern {k[1:]} matched | {v} |" for k, v in sorted(patterns.items())],
        *[f"| examples in {md_text(split)} | {n} |"
          for split, n in manifest["rows_per_split"].items()],
        "",
        *baseline_table(stats),
        *([] if questions_only else [CANDIDATES_NOTE, ""]),
    ])


jnq_card = DatasetCard(info=JNQ_INFO, body=_body, adapt=sample_index_info)
jboolq_card = DatasetCard(info=JBOOLQ_INFO, body=_body, adapt=sample_index_info)


def jnq_card_for(variant: str) -> DatasetCard:
    """The card of a ``--variant`` (``jnq`` or ``jboolq``) release."""
    return jboolq_card if variant == "jboolq" else jnq_card
