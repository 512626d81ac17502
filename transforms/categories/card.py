"""The category-lexicon release's ``stats.json`` content and data card."""

from __future__ import annotations

from typing import Any

from transforms.categories.counters import COUNTERS, FILES, PARAGRAPHS, PATTERN
from transforms.categories.refresh import NOTE
from transforms.categories.stages import LEXICON_FILE
from transforms.core.counters import Counts
from transforms.release import CardInfo, DatasetCard, group_tallies, md_text
from transforms.release.card import MACHINE_GENERATED
from transforms.release.citations import HEARST_BIBTEX, NQ_BIBTEX

CATEGORIES_INFO = CardInfo(
    pretty_name="Categorical noun lexicon (Hearst-pattern hypernyms)",
    summary=(
        "A lexicon of categorical nouns: the hypernyms that Hearst (1992) patterns "
        "(\"NP such as NP\", \"such NP as NP\", \"NP or other NP\", \"NP and other NP\", "
        "\"NP including NP\", \"NP especially NP\") find in a text corpus, one row per head "
        "lemma with its match count, its most frequent hyponyms and the patterns that found "
        "it. Natural Questions' question heuristics 4 and 5 (Kwiatkowski et al. 2019, §3.1) "
        "need to know which noun phrases are categorical (\"which **countries** ...\"): "
        "`build_nq --categories` reads this lexicon for that. Not a QA dataset."),
    license="other",
    license_text=(
        "The lexicon holds noun lemmas, short hyponym phrases and counts drawn from the "
        "corpus given to the build; the corpus keeps its own licence (Wikipedia text: "
        "CC BY-SA 4.0, revisions before June 2023 CC BY-SA 3.0). The bundled sample corpus "
        "was written by the toolkit's authors, with three Wikipedia-like pages. The counts "
        "and lemma grouping the toolkit adds carry no further restriction."),
    language=("en",),
    task_categories=("other",),
    task_ids=(),
    source_datasets=("original",),
    annotations_creators=(MACHINE_GENERATED,),  # which nouns are categories: Hearst patterns
    citation=f"{HEARST_BIBTEX}\n\n{NQ_BIBTEX}",
    limitations=(
        "English only: noun phrases and lemmas come from spaCy `en_core_web_sm`.",
        "Hearst patterns are precise but sparse: a category never written as \"X such as Y\" "
        "(or the other five patterns) in the corpus is missing, and parser errors produce "
        "some wrong hypernyms (rows with a low `count` are the least reliable).",
        "The lexicon mirrors its corpus: the topics, period and style of the text decide "
        "which categories are frequent.",
    ),
    collection=(
        "Plain-text, JSONL (one text field) and HTML files of a corpus are read and split "
        "into paragraphs; HTML tables, references, navigation, headers and footers are "
        "skipped."),
    preprocessing=(
        "Each paragraph is parsed with spaCy; the six Hearst patterns are matched on noun "
        "chunks, the hypernym is reduced to its head lemma and the matches are counted per "
        "lemma with their hyponyms and patterns. `categories.tsv` (the file `build_nq "
        "--categories` reads) holds the same lexicon."),
)


def categories_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    return {"counts": group_tallies(tallies)}


def _body(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    counts = Counts(stats["counts"], COUNTERS)
    return "\n".join([
        f"# Category lexicon, version {md_text(manifest['version'])}",
        "",
        CATEGORIES_INFO.summary,
        "",
        f"Corpus: {counts[FILES]} files, {counts[PARAGRAPHS]} paragraphs. "
        f"Lexicon entries: {manifest['rows_per_split'].get('lexicon', 0)}.",
        "",
        "| pattern | matches |",
        "|---|---|",
        *[f"| {name} | {count} |" for name, count in counts.family(PATTERN).items()],
        "",
        *([f"Refresh: built on version {md_text(stats['refresh']['previous']['version'])} "
           f"with `--previous`. {NOTE}", ""] if "refresh" in stats else []),
        "## Files",
        "",
        "- `lexicon/*.parquet` (config `lexicon`): one row per hypernym lemma.",
        f"- `{LEXICON_FILE}`: the same lexicon as `build_nq` reads it.",
        "",
        f"Use: `python -m pipelines.build_nq --categories <this directory>/{LEXICON_FILE}`.",
        "",
    ])


categories_card = DatasetCard(info=CATEGORIES_INFO, body=_body)
