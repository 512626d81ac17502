"""The NLQuAD release's ``stats.json`` content and its ``README.md`` data card."""

from __future__ import annotations

from typing import Any

from filters.nlquad.news_article import EXTRACTOR
from transforms.core.counters import Counts
from transforms.nlquad.counters import (
    CDX,
    CDX_ADJACENT_DUPLICATES,
    CDX_CAPTURES_LISTED,
    CDX_FAILED,
    CDX_MALFORMED,
    CDX_RETRY_WAIT_SECONDS,
    CDX_RETRY_WAITS,
    CDX_REVISITS_LISTED,
    CDX_ROWS_READ,
    CDX_THROTTLE_WAIT_SECONDS,
    COUNTERS,
    DOCUMENTS_CARRIED,
    DROPPED,
    DUPLICATE_CAPTURE,
    DUPLICATE_CAPTURE_OF_CARRIED,
    DUPLICATE_CONTENT,
    DUPLICATE_CONTENT_OF_CARRIED,
    FETCH,
    FETCH_RETRY_WAIT_SECONDS,
    FETCH_RETRY_WAITS,
    FETCH_THROTTLE_WAIT_SECONDS,
    FOUND,
    KEPT,
    PAGES_PARSED,
    PAGES_READ,
    PAGES_SKIPPED,
    PARSED_GENERIC,
    PROMO_LIST_REMOVED,
    REDIRECTED_CAPTURES_KEPT,
)
from transforms.release import (
    CardInfo,
    DatasetCard,
    baseline_table,
    group_tallies,
    length_statistics,
    md_text,
    top_prefixes,
)
from transforms.release.card import FOUND_IN_SOURCE
from transforms.release.citations import NLQUAD_BIBTEX

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


def _reasons(counts: dict[str, int]) -> list[str]:
    return [f"| {name} | {count} |" for name, count in counts.items()]


SOURCE_TEXT = {
    "sample": "the pages bundled with the toolkit (synthetic BBC-like markup of every layout era)",
    "html": "saved BBC News HTML pages",
    "warc": "BBC News pages from WARC/ARC web archives",
    "wayback": "Wayback Machine captures of bbc.co.uk/news and bbc.com/news",
}

OTHER_SITES_TEXT = {**SOURCE_TEXT, "html": "saved HTML news pages (BBC News and other sites)",
                    "warc": "news pages from WARC/ARC web archives (BBC News and other sites)"}

NLQUAD_INFO = CardInfo(
    pretty_name="NLQuAD-style non-factoid long-answer QA (BBC News)",
    summary=(
        "Non-factoid questions with long answers over BBC News articles, built the way NLQuAD "
        "was (Soleimani, Monz and Worring, EACL 2021): each question is an interrogative "
        "sub-heading of an article, its answer is the body paragraphs that follow the "
        "sub-heading up to the next sub-heading, and the context is the whole article. "
        "Answers are character and word spans of the context (SQuAD-style), often several "
        "hundred words long."),
    license="other",
    license_text=(
        "The article text belongs to the BBC; this release reproduces it for research use "
        "only. The original NLQuAD was distributed under CC BY-NC for non-commercial, "
        "academic use; this release does not contain NLQuAD's own files, it rebuilds the same "
        "kind of data from the pages you supplied, so check the BBC's terms of use (and those "
        "of the archive the pages came from) before you redistribute it. The questions, spans "
        "and statistics the toolkit adds carry no further restriction."),
    language=("en",),
    task_categories=("question-answering",),
    task_ids=("extractive-qa",),
    source_datasets=("original",),
    # NLQuAD §3: the questions are the articles' interrogative sub-headings and the answers the
    # paragraphs under them, both written by the BBC's journalists: found in the source
    annotations_creators=(FOUND_IN_SOURCE,),
    citation=NLQUAD_BIBTEX,
    limitations=(
        "News from one publisher: BBC News articles, by default published 2016-2020 "
        "(`--from`/`--to`), so the topics, places and people are those of UK and world news "
        "of those years, written in the BBC's British English house style.",
        "The questions are journalists' sub-headings, not questions real users asked: they "
        "are rhetorical, often start with what/why/how, and can be answered only by reading "
        "the article around them.",
        "Answers are extracted automatically (the paragraphs under a sub-heading), not checked "
        "by people: a sub-heading whose section does not answer it still becomes an example.",
        "Only pages in one of the four known BBC layouts (eras A-D) are parsed; other layouts "
        "and non-article pages are skipped (see the skip reasons above), which biases the set "
        "towards standard news articles.",
        "Documents are long (hundreds of words): most exceed a 512-token model window.",
    ),
    collection=(
        "BBC News article pages (saved HTML, WARC archives or Wayback Machine captures of "
        "bbc.co.uk/news and bbc.com/news) are read; video, live and index pages are skipped "
        "by URL. Articles are deduplicated by capture (the capture nearest to publication "
        "wins) and by body text."),
    preprocessing=(
        "Every BBC layout era is parsed to body paragraphs and sub-headings; captions, media, "
        "share tools, related links and BBC call-to-action boilerplate (and paragraphs "
        "repeated across many articles) are removed. Sub-headings ending with a question mark "
        "become questions; questions whose answer is empty, a template or contains a bullet "
        "list are dropped. Splits are a salted SHA-256 hash of the article id, so all "
        "questions of an article share a split in every version."),
)


def _source_text(kind: str | None, options: dict[str, Any], other_sites: bool = False) -> str:
    """What the pages were; ``other_sites``: some were read by the generic extractor, so
    they are not all BBC News pages."""
    text = (OTHER_SITES_TEXT if other_sites else SOURCE_TEXT).get(kind or "", str(kind))
    if kind == "wayback":
        text += f", published {options.get('from_year')}-{options.get('to_year')}"
    return text


def cdx_count_rows(counts: dict[str, dict[str, int]]) -> list[tuple[str, int]]:
    """``(label, count)`` of the Wayback CDX listing for the card and the summary: rows
    read = captures listed (revisit records among them) + adjacent duplicates + malformed
    rows (by reason), then failed queries by kind, then every wait
    (:func:`wayback_wait_rows`); empty when the pages came from files."""
    if not counts.get(CDX):
        return []
    cdx = Counts(counts, COUNTERS)
    rows = [("CDX rows read", cdx[CDX_ROWS_READ]),
            ("captures listed", cdx[CDX_CAPTURES_LISTED]),
            ("adjacent duplicate CDX rows", cdx[CDX_ADJACENT_DUPLICATES])]
    if cdx[CDX_REVISITS_LISTED]:
        rows.append(("revisit records among them", cdx[CDX_REVISITS_LISTED]))
    # failed.* sorts before malformed.*: the order of the stage's sorted names
    rows += [(f"CDX queries failed, {kind}", count)
             for kind, count in cdx.family(CDX_FAILED).items()]
    rows += [(f"malformed CDX rows, {reason}", count)
             for reason, count in cdx.family(CDX_MALFORMED).items()]
    return rows + wayback_wait_rows(counts)


def wayback_wait_rows(counts: dict[str, dict[str, int]]) -> list[tuple[str, int]]:
    """``(label, count)`` of every Wayback wait, for the card and the summary: pauses
    before retries (how many, and seconds) and seconds waited for a rate-limiter slot, of
    the CDX listing and of the fetches; then redirected captures kept. Waits are in seconds
    of the clock the clients wait on."""
    if not counts.get(CDX) and not counts.get(FETCH):
        return []
    waits = Counts(counts, COUNTERS)
    rows = []
    for what, (pauses, paused, throttled) in {
            "CDX": (CDX_RETRY_WAITS, CDX_RETRY_WAIT_SECONDS, CDX_THROTTLE_WAIT_SECONDS),
            "fetch": (FETCH_RETRY_WAITS, FETCH_RETRY_WAIT_SECONDS,
                      FETCH_THROTTLE_WAIT_SECONDS)}.items():
        rows += [(f"{what} waits before a retry", waits[pauses]),
                 (f"{what} seconds waited before retries", waits[paused]),
                 (f"{what} seconds waited for rate-limit slots", waits[throttled])]
    if waits[REDIRECTED_CAPTURES_KEPT]:
        rows.append(("redirected captures kept", waits[REDIRECTED_CAPTURES_KEPT]))
    return rows


def refresh_note(stats: dict[str, Any]) -> str:
    """Markdown saying what the counts of a refresh (``stats["refresh"]``) are: this run's
    work, not the release's (empty for a full build)."""
    refresh = stats.get("refresh")
    if not refresh:
        return ""
    previous = refresh["previous"]
    built_on = (f"This version was built on {md_text(previous['dataset'])} "
                f"{md_text(previous['version'])} with `--previous`")
    if refresh.get("recompute_all"):
        return f"{built_on} and `--recompute-all`: every capture was processed again."
    carried = Counts(stats["counts"], COUNTERS)[DOCUMENTS_CARRIED]
    return (f"{built_on}: {carried} documents whose capture (URL, timestamp, digest) is "
            f"unchanged were carried with their rows: not fetched (Wayback), parsed or "
            f"extracted again. The counts below are this run's work only; the splits, the "
            f"lengths and the question prefixes describe the whole release.")


def refresh_count_rows(stats: dict[str, Any]) -> list[tuple[str, int]]:
    """``(label, count)`` of what a refresh carried and dropped for the card and the
    summary; empty for a full build."""
    if not stats.get("refresh"):
        return []
    counts = Counts(stats["counts"], COUNTERS)
    return [("documents carried", counts[DOCUMENTS_CARRIED]),
            ("new captures of carried articles, dropped", counts[DUPLICATE_CAPTURE_OF_CARRIED]),
            ("new articles with a carried text, dropped", counts[DUPLICATE_CONTENT_OF_CARRIED])]


def layout_lines(counts: Counts) -> list[str]:
    """Which parser read the articles (``--layout``), when any page was read by the generic
    extractor; nothing for a BBC-only release."""
    generic = counts[PARSED_GENERIC]
    if not generic:
        return []
    bbc = counts[PAGES_PARSED] - generic
    return [f"Layout: {bbc} articles were read by the BBC parser (eras A-D) and {generic} by "
            f"the generic main-content extractor ({EXTRACTOR}, `--layout`); each row's "
            "`layout_era` says which (`generic` for the extractor). The generic extractor "
            "keeps the article's headings, paragraphs and lists and drops navigation, "
            "newsletter, comment, advertisement, related-link and FAQ furniture; the same "
            "question rules then apply.", ""]


def _body(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    """Markdown body: what, method, splits, counts and drop reasons, lengths, baselines."""
    counts = Counts(stats["counts"], COUNTERS)
    rows = manifest["rows_per_split"]
    options = manifest["options"]
    source = manifest["source"].get("kind")
    lines = [
        f"# NLQuAD-style dataset, version {md_text(manifest['version'])}",
        "",
        NLQUAD_INFO.summary,
        "",
        f"Pages: {md_text(_source_text(source, options, bool(counts[PARSED_GENERIC])))}.",
        "",
        *layout_lines(counts),
        "## Splits",
        "",
        "| split | questions |",
        "|---|---|",
        *[f"| {md_text(split)} | {count} |" for split, count in rows.items()],
        "",
        "Splits are assigned by a stable SHA-256 hash of the article id with the salt "
        f"{md_text(options.get('split_salt'))}: all questions of an article are in one "
        "split, and an article keeps its split in every future version.",
        "",
        "## Method",
        "",
        "1. Pages: BBC News article URLs only (video, live and index pages are skipped by URL); "
        "every layout era is parsed (Era A `span.cross-head`, Era B "
        "`h2.story-body__crosshead`, Era C `crosshead-block`, Era D `subheadline-block`).",
        "2. Text only: captions, image credits, media, ads, share tools, related-topic and "
        "link-only lists and promo link lists (items of a capitalised label and a link, e.g. "
        "`LABEL: linked headline`) are removed; a promo list in an answer does not drop its "
        "question. BBC call-to-action templates and paragraphs repeated "
        f"across at least {md_text(options.get('boilerplate_min_docs'))} articles are "
        "removed.",
        "3. One document per article: the capture nearest to publication wins; the same body "
        "text under two URLs is kept once (earliest published).",
        "4. Questions: sub-headings ending with `?`; dropped when the answer contains a "
        "bullet list, is empty, or is a template.",
        "5. The context is the body paragraphs without sub-headings or break-lines, joined by "
        f"{md_text(repr(options.get('paragraph_separator')))}. "
        "`context[answer_start:answer_end] == answer_text`; the word offsets index "
        "`context.split()`.",
        "",
        "## Counts" + (" (this run's work)" if stats.get("refresh") else ""),
        "",
        *([refresh_note(stats), ""] if stats.get("refresh") else []),
        "| what | count |",
        "|---|---|",
        *[f"| {md_text(label)} | {count} |"
          for label, count in [*refresh_count_rows(stats), *cdx_count_rows(stats["counts"])]],
        f"| pages read | {counts[PAGES_READ]} |",
        f"| articles parsed | {counts[PAGES_PARSED]} |",
        f"| duplicate captures removed | {counts[DUPLICATE_CAPTURE]} |",
        f"| duplicate texts removed | {counts[DUPLICATE_CONTENT]} |",
        f"| promo link lists removed | {counts[PROMO_LIST_REMOVED]} |",
        f"| interrogative sub-headings | {counts[FOUND]} |",
        f"| questions kept | {counts[KEPT]} |",
        "",
        "Pages skipped, by reason:",
        "",
        "| reason | pages |",
        "|---|---|",
        *_reasons(counts.family(PAGES_SKIPPED)),
        "",
        "Questions dropped, by reason:",
        "",
        "| reason | questions |",
        "|---|---|",
        *_reasons(counts.family(DROPPED)),
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
    ]
    return "\n".join(lines)


nlquad_card = DatasetCard(info=NLQUAD_INFO, body=_body)


BASELINE_COLUMNS = ("id", "question", "context", "answer_text", "answer_word_start",
                    "answer_word_end")  # what the baselines read of a row


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
    from transforms.metrics.nlquad import answer_tokens, interval_iou, tokens_precision_recall_f1
    from transforms.release import read_group_rows

    rows = read_group_rows(staging_dir, split, list(BASELINE_COLUMNS))
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
    # a row at a time, every baseline: its context split and its gold answer normalized once,
    # each distinct window's F1 computed once (the figures of precision_recall_f1 on every
    # (row, window), summed in row order), one row's words held at a time
    ious: dict[str, list[float]] = {name: [] for name in choosers}
    f1s: dict[str, list[float]] = {name: [] for name in choosers}
    for row in rows:
        words, gold, f1_of = row["context"].split(), answer_tokens(row["answer_text"]), {}
        for name, choose in choosers.items():
            start, end = choose(row, words)
            ious[name].append(interval_iou((start, end),
                                           (row["answer_word_start"], row["answer_word_end"])))
            if (start, end) not in f1_of:
                f1_of[start, end] = tokens_precision_recall_f1(
                    gold, answer_tokens(" ".join(words[start:end])))[2]
            f1s[name].append(f1_of[start, end])
    table = [{"name": name, "iou": sum(ious[name]) / len(rows),
              "f1": sum(f1s[name]) / len(rows)} for name in choosers]
    note = f"Windows of {length} words (the mean answer length)."
    if table[0]["iou"] > 0.9:
        note += " WARNING: the first window nearly always wins: check the data."
    return {"split": split, "n": len(rows), "metrics": metrics, "rows": table, "note": note}
