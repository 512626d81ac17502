"""The search index release's ``stats.json`` content and data card."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from transforms.core.counters import Counts
from transforms.release import CardInfo, DatasetCard, group_tallies, md_text
from transforms.release.card import NO_ANNOTATION
from transforms.search_index.counters import COUNTERS, MALFORMED_LINES, READ, UNREADABLE_FILES
from transforms.search_index.refresh import NOTE

BM25S_BIBTEX = """@misc{lu-2024-bm25s,
    title = "{BM25S}: Orders of magnitude faster lexical search via eager sparse scoring",
    author = "L{\\`u}, Xing Han",
    year = "2024",
    eprint = "2407.03618",
    archivePrefix = "arXiv",
    primaryClass = "cs.IR",
    url = "https://arxiv.org/abs/2407.03618",
}"""

SOURCE_TEXT = {
    "sample": "the corpus bundled with the toolkit",
    "pages": "a directory of saved pages listed in its index.tsv",
    "enterprise": "a Wikimedia Enterprise HTML dump",
}

INDEX_INFO = CardInfo(
    pretty_name="BM25 search index over Wikipedia and web pages",
    summary=(
        "A local search engine, not a benchmark: a BM25 index (bm25s's file format) over the "
        "title and visible text of every page of a corpus (Wikipedia articles and web pages), "
        "with the pages themselves in the `docs` table (URL, title, Wikipedia revision, "
        "indexed text and HTML) and in a page store (`pages/`, read by document id or title) "
        "so that the index also serves page fetches. `build_nq` and `build_jnq` use it with "
        "`--search local` to find each question's top-5 results and the Wikipedia page to "
        "annotate, offline and reproducibly."),
    license="other",
    license_text=(
        "The pages keep their own licences: Wikipedia text and HTML belong to its authors "
        "under CC BY-SA 4.0 (revisions before June 2023: CC BY-SA 3.0); any other web page "
        "belongs to its publisher. The bundled sample corpus was assembled by the toolkit's "
        "authors for testing. The BM25 index files (`bm25/`) and the page store (`pages/`) "
        "are derived from the pages and are shared under the same terms as the pages."),
    language=("en", "ja"),
    task_categories=("text-retrieval",),
    task_ids=("document-retrieval",),
    source_datasets=("original",),
    annotations_creators=(NO_ANNOTATION,),  # pages, nothing annotated
    citation=BM25S_BIBTEX,
    limitations=(
        "Lexical retrieval only: BM25 ranks pages by shared words, so a question phrased "
        "differently from its answer page ranks that page low; results differ from the "
        "commercial search engines NQ and JNQ used.",
        "The corpus decides what can be found: a small or topical corpus sends questions to "
        "whatever page it holds, and the pages are the revisions captured when it was built.",
        "Japanese text is segmented with fugashi (unidic-lite), particles, auxiliaries and "
        "symbols left out; English text is lower-cased, split into words of 2+ characters "
        "and stripped of English stopwords (bm25s' tokenizer). Other segmentations rank "
        "differently.",
    ),
    collection=(
        "Pages are read from the bundled sample corpus, a directory of saved pages listed "
        "in an index.tsv, or a Wikimedia Enterprise HTML dump; unreadable dump lines are "
        "counted and skipped."),
    preprocessing=(
        "Scripts, styles and templates are removed and the visible text is extracted with "
        "the title first; the text is tokenized for the index language and indexed on one "
        "machine, out of core, into bm25s's files (Lucene BM25, k1 1.5, b 0.75); each page "
        "is also written to the page store as two zstd frames. Each page keeps its position "
        "in the index as `doc_id`."),
)


def index_stats(tallies: dict[str, int], histograms: dict) -> dict[str, Any]:
    return {"counts": group_tallies(tallies)}


def _body(manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    counts = Counts(stats["counts"], COUNTERS)
    kind = manifest["source"].get("kind")
    lang = manifest["options"].get("lang", "")
    return "\n".join([
        f"# Search index {md_text(manifest['dataset'])}, version {md_text(manifest['version'])}",
        "",
        INDEX_INFO.summary,
        "",
        f"Pages: {md_text(SOURCE_TEXT.get(kind, kind))}; language {md_text(lang)}.",
        "",
        "| what | count |",
        "|---|---|",
        f"| pages read | {counts[READ]} |",
        f"| pages indexed | {manifest['rows_per_split'].get('docs', 0)} |",
        f"| malformed dump lines | {counts[MALFORMED_LINES]} |",
        f"| unreadable page files | {counts[UNREADABLE_FILES]} |",
        "",
        *([f"Refresh: built on version {md_text(stats['refresh']['previous']['version'])} "
           f"with `--previous`. {NOTE}", ""] if "refresh" in stats else []),
        "## Files",
        "",
        "- `docs/*.parquet` (config `docs`): the indexed pages; row `doc_id` is the page's "
        "position in the index.",
        "- `bm25/`: the BM25 index in bm25s's files (`bm25s.BM25.load(dir, mmap=True)` "
        "opens it) plus `impact_data.npy`/`impact_indices.npy`, each term's postings best "
        "score first, for exact early-stopping top-k; `index_meta.json`: its language and "
        "page count.",
        "- `pages/`: the page store: URL, title, text and HTML of each page as zstd frames, "
        "read by document id or Wikipedia title without loading the rest.",
        "",
        "Use: `python -m pipelines.build_nq --search local --index-dir <this directory>` "
        "(or a `gs://` copy of it: each worker machine copies `bm25/` and `pages/` once).",
        "",
    ])


index_card = DatasetCard(info=INDEX_INFO, body=_body)


def index_card_for(lang: str) -> DatasetCard:
    """The card of a ``--lang`` index: its language on the Hub."""
    return DatasetCard(info=replace(INDEX_INFO, language=(lang,)), body=_body)
