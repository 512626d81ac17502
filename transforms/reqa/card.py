"""The ReQA release's ``stats.json`` content and its ``README.md`` data card."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from transforms.core.counters import Counts
from transforms.release import (
    CardInfo,
    DatasetCard,
    baseline_table,
    group_tallies,
    length_statistics,
    md_text,
)
from transforms.release.card import CROWDSOURCED, FOUND_IN_SOURCE
from transforms.release.citations import NLQUAD_BIBTEX, NQ_BIBTEX, REQA_BIBTEX, SQUAD_BIBTEX
from transforms.release.refresh.counters import CARRIED, INPUTS_CARRIED
from transforms.release.simulated import origin_text, simulated_record
from transforms.reqa.counters import (
    CANDIDATES_UNIQUE,
    COUNTERS,
    CROSS_SENTENCE_BOUNDARY,
    DROPPED,
    KEPT,
    MALFORMED,
    QUESTIONS_UNIQUE,
    READ,
)

# What the paper reports for the train sets (Ahmad et al. 2019, Table 1 and §3).
PAPER_SIZES = {"squad": "87,599 questions, 91,707 sentences (SQuAD v1.1 train)",
               "nq": "about 74k questions, 239k sentences (NQ train)"}
SOURCE_NAMES = {"squad": "SQuAD v1.1", "nq": "Natural Questions (original format)",
                "nlquad": "NLQuAD (this toolkit's release)"}


def reqa_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    """stats.json: totals, drop reasons, distributions and every tally."""
    counts = group_tallies(tallies)
    declared = Counts(counts, COUNTERS)
    drop_reasons = declared.family(DROPPED)
    per_paragraph = histograms.get("all/sentences_per_paragraph", {})
    return {
        "questions": declared[QUESTIONS_UNIQUE],
        "candidates": declared[CANDIDATES_UNIQUE],
        "paragraphs": sum(per_paragraph.values()),
        "examples": {"read": declared[READ], "kept": declared[KEPT],
                     "dropped": sum(drop_reasons.values()),
                     "malformed": declared[MALFORMED]},
        "drop_reasons": drop_reasons,
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


SPLITTER_TEXT = {
    "senter": "spaCy `en_core_web_sm`'s statistical `senter` (`--splitter senter`, the "
              "default), not the paper's splitter",
    "reqa": "the ReQA paper's regular-expression rules (`--splitter reqa`, our "
            "implementation of `sb_sed.py` of google/retrieval-qa-eval), as published",
}

SOURCE_BIBTEX = {"squad": SQUAD_BIBTEX, "nq": NQ_BIBTEX, "nlquad": NLQUAD_BIBTEX}

SOURCE_LICENSES = {
    "squad": ("SQuAD v1.1 (Rajpurkar et al. 2016) is distributed under CC BY-SA 4.0; its "
              "paragraphs are Wikipedia text (CC BY-SA). A set built from it is a derivative "
              "and is shared under CC BY-SA 4.0 with attribution to SQuAD."),
    "nq": ("Natural Questions (Kwiatkowski et al. 2019) is distributed under CC BY-SA 3.0 and "
           "its pages are Wikipedia text (CC BY-SA); a set built from NQ's files is shared "
           "under CC BY-SA 3.0 with attribution to NQ. Built from this toolkit's NQ-style "
           "release instead, the pages are Wikipedia's (CC BY-SA 4.0) and the questions come "
           "from the query log given to that build, whose owner's terms apply."),
    "nlquad": ("Built from this toolkit's NLQuAD-style release: the article text belongs to "
               "the BBC and is reproduced for research use only; check the BBC's terms "
               "before redistributing it (the original NLQuAD was distributed under CC BY-NC "
               "for non-commercial, academic use)."),
}

# The last sentence of every ReQA licence text, generic or per source.
TOOLKIT_ADDITIONS = ("The sentence segmentation, ids and statistics the toolkit adds carry no "
                     "further restriction.")

RELEASE_LICENSES = {"squad": "cc-by-sa-4.0", "nq": "cc-by-sa-3.0", "nlquad": "other"}

# A set's correct sentences are those its source's answers overlap, so it keeps the source's
# annotators: SQuAD's crowdworkers (Rajpurkar et al. 2016, §3), NQ's annotators (Kwiatkowski
# et al. 2019, §3.2; or this toolkit's crowd votes, ``annotate import``), NLQuAD's sub-headings
# found in the articles (Soleimani et al. 2021, §3). Simulated votes: ``simulated_info``.
SOURCE_ANNOTATIONS = {"squad": (CROWDSOURCED,), "nq": (CROWDSOURCED,),
                      "nlquad": (FOUND_IN_SOURCE,)}

REQA_INFO = CardInfo(
    pretty_name="ReQA sentence-level answer retrieval set",
    summary=(
        "A sentence-level answer retrieval benchmark built as ReQA was (Ahmad, Constant, "
        "Yang and Cer, MRQA 2019): the paragraphs of a reading-comprehension dataset (SQuAD "
        "v1.1, Natural Questions or NLQuAD) are split into sentences, every sentence becomes "
        "a retrieval candidate with its paragraph as context, and each question's correct "
        "answers are the sentences its answer span overlaps. A retriever ranks all "
        "candidates for every question; it is scored by mean reciprocal rank and recall@k. "
        "Two tables: `questions` and `candidates`."),
    license="other",
    license_text=f"{' '.join(SOURCE_LICENSES.values())} {TOOLKIT_ADDITIONS}",
    language=("en",),
    task_categories=("question-answering", "text-retrieval"),
    task_ids=("open-domain-qa",),
    source_datasets=("extended|squad", "extended|natural_questions", "original"),
    annotations_creators=(CROWDSOURCED, FOUND_IN_SOURCE),
    citation="\n\n".join([REQA_BIBTEX, *SOURCE_BIBTEX.values()]),
    limitations=(
        "Sentence boundaries come from spaCy `en_core_web_sm`'s `senter` "
        "(`filters/text/sentences.py`) by default, or with `--splitter reqa` from our "
        "implementation of the paper's regular-expression rules "
        "(`filters/text/reqa_sentences.py`, which reproduces the published SQuAD index "
        "sizes); the card says which. A boundary error merges or splits candidates, and an "
        "answer crossing a boundary marks several sentences correct (counted in the table "
        "above).",
        "SQuAD's questions were written by crowd workers looking at the paragraph, so they "
        "share many words with the answer sentence, which favours lexical retrievers such as "
        "BM25 (the ReQA paper's observation); NQ's questions are real search queries and "
        "NLQuAD's are journalists' sub-headings.",
        "Questions with the same text are merged and every answer counts, so a question "
        "asked of two paragraphs has correct sentences in both.",
        "Only the paragraphs that some question reaches are indexed, not whole documents: "
        "the candidate pool is smaller and easier than a full corpus.",
    ),
    collection=(
        "The examples of an existing reading-comprehension dataset are read: SQuAD v1.1 JSON, "
        "Natural Questions in its original format (or this toolkit's NQ-style release), or "
        "this toolkit's NLQuAD-style release. No new text is collected."),
    preprocessing=(
        "Examples whose answer offsets do not match the text, or whose answer is empty, are "
        "dropped by reason. Each paragraph is split into sentences with character offsets "
        "(spaCy `senter` plus a rule against splitting inside a word, or the ReQA paper's "
        "regular-expression rules with `--splitter reqa`); a question's correct candidates are the "
        "sentences its answer span overlaps. Questions with the same text are merged, and a "
        "paragraph reached from several questions is indexed once."),
)


def simulated_licence(info: CardInfo, manifest: dict[str, Any]) -> CardInfo:
    """A set built from a release with simulated annotations claims no dataset's licence or
    annotations: its pages and questions are those of the toolkit release it was read from,
    its answers were drawn by simulated annotators."""
    record = simulated_record(manifest)
    if record is None:
        return info
    return replace(info, license="other", license_text=(
        f"Built from {md_text(origin_text(record))}, a release of this toolkit whose "
        "annotations are simulated (`python -m pipelines.annotate simulate`): the answers "
        "that make a sentence correct were chosen by a seeded synthetic worker pool, not by "
        "the original dataset's annotators nor by anyone, so nothing here is Natural "
        "Questions' (or any dataset's) human annotation and their licences give it no "
        "standing. The pages are Wikipedia's (CC BY-SA 4.0) and the questions come from the "
        "query log given to that build, whose owner's terms apply. For testing pipelines "
        f"only. {TOOLKIT_ADDITIONS}"))


def reqa_card_for(source: str) -> DatasetCard:
    """The card of a ``--source`` (``squad``, ``nq`` or ``nlquad``) release: that source's
    licence, paper and Hub ``source_datasets``; built from a release with simulated
    annotations, none of the source's licence (``simulated_licence``)."""
    if source not in SOURCE_LICENSES:
        return reqa_card
    origin = {"squad": "extended|squad", "nq": "extended|natural_questions",
              "nlquad": "original"}[source]
    return DatasetCard(info=replace(
        REQA_INFO,
        pretty_name=f"ReQA sentence-level answer retrieval set from {SOURCE_NAMES[source]}",
        license=RELEASE_LICENSES[source],
        license_text=f"{SOURCE_LICENSES[source]} {TOOLKIT_ADDITIONS}",
        source_datasets=(origin,),
        annotations_creators=SOURCE_ANNOTATIONS[source],
        citation=f"{REQA_BIBTEX}\n\n{SOURCE_BIBTEX[source]}"), body=_body,
        adapt=simulated_licence)


def refresh_text(stats: dict[str, Any]) -> list[str]:
    """What a refresh (``--previous``) reused and carried, for the card (none without one)."""
    refresh = stats.get("refresh")
    if not refresh:
        return []
    previous = refresh["previous"]
    built_on = f"{md_text(previous['dataset'])} {md_text(previous['version'])}"
    if refresh["recompute_all"]:
        return [f"Refresh: built on {built_on} with `--recompute-all`: every paragraph was "
                f"split again and every row is this build's.", ""]
    return [f"Refresh: built on {built_on}. The sentences of "
            f"{refresh[INPUTS_CARRIED.name]} paragraphs it already indexed were reused, not "
            f"split again; every example was read and labeled again, and each row whose "
            f"values did not change ({refresh[CARRIED.name]} rows) was carried from it byte "
            f"for byte. The counts above describe this whole release.", ""]


def _input_text(manifest: dict[str, Any]) -> str:
    """Which input the release read, without any path (the build command shows it)."""
    source = manifest["options"]["source"]
    origin = "the bundled sample" if not manifest["options"].get("input") else "the input files"
    split = manifest["source"].get("split") or "all"
    return (f"{SOURCE_NAMES.get(source, source)}, {origin}"
            + ("" if split == "all" else f", split {split}"))


def _body(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    """Markdown body: what, input, counts and drop reasons, lengths, baselines, files."""
    source = manifest["options"]["source"]
    splitter = manifest["options"].get("splitter") or "senter"
    lengths, examples = stats["lengths"], stats["examples"]
    counts = Counts(stats["counts"], COUNTERS)
    return "\n".join([
        f"# ReQA retrieval set from {md_text(SOURCE_NAMES.get(source, source))}, version "
        f"{md_text(manifest['version'])}",
        "",
        REQA_INFO.summary,
        "",
        "As in the paper, questions with the same text are merged (all their answers count) "
        "and a paragraph reached from several questions is indexed once.",
        "",
        f"Input: {md_text(_input_text(manifest))}.",
        "",
        f"Sentences: {SPLITTER_TEXT.get(splitter, md_text(splitter))}.",
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
        f"{counts[CROSS_SENTENCE_BOUNDARY]} |",
        "",
        *refresh_text(stats),
        f"Sentences per paragraph: {summary_value(lengths, 'sentences_per_paragraph')}.  ",
        f"Correct sentences per question: {summary_value(lengths, 'correct_per_question')}.  ",
        f"Words per sentence: {summary_value(lengths, 'sentence_words')}.",
        "",
        *baseline_table(stats),
        "## Files",
        "",
        "- `questions/*.parquet` (config `questions`): one row per distinct question, with "
        "the ids of its correct candidates (`correct_candidate_ids`).",
        "- `candidates/*.parquet` (config `candidates`): one row per sentence, with its "
        "paragraph as `context` (`context[sentence_start:sentence_end] == sentence`).",
        "- `rejected/dropped_examples/`: every dropped example with its reason; "
        "`rejected/dead_letter/`: records that could not be read.",
        "",
        "Evaluate a retriever by ranking all candidates for each question: mean reciprocal "
        "rank and recall@k of the first correct candidate, as in the paper.",
        "",
    ])


reqa_card = DatasetCard(info=REQA_INFO, body=_body)
