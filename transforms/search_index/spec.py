"""The local BM25 search index (``build_nq --search local``), declared once
(``transforms.core.spec``).

Beam reads and cleans the pages (in parallel over dump files) into staged shards; the BM25
index is then built from them on one machine, out of core, just before the release is
published (``Plan.before_publish``). The release is ``search_<lang>``: its name and its card's
language follow ``--lang``. It goes under the release root every builder shares (``--output``,
default ``releases``), so ``release list releases`` shows it next to the datasets.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms.core.accounting import SIDE_OUTPUTS
from transforms.core.counters import Counts
from transforms.core.errors import NoInputError, UsageError
from transforms.core.inputs import beam_pattern, require_inputs
from transforms.core.options import (
    ReleaseOptions,
    max_decoded_option,
    mib_to_bytes,
    option,
)
from transforms.core.progress import ShowProgress
from transforms.core.spec import DatasetSpec, Plan, RefreshRule, ReleaseKind, TableInvariants
from transforms.core.summary import dead_letter_line, empty_release_warning
from transforms.release import (
    ReleaseTarget,
    WriteAccounting,
    WriteShards,
    list_files,
    parquet_bytes,
)
from transforms.search_index.card import index_card_for, index_stats
from transforms.search_index.counters import COUNTERS, MALFORMED_LINES, READ, UNREADABLE_FILES
from transforms.search_index.refresh import (
    REFRESH_NOTE,
    UNIT,
    count_against_previous,
    recompute_everything,
    row_key,
)
from transforms.search_index.stages import (
    EXTRACT_GROUP,
    EXTRACT_ROWS_PER_SHARD,
    EXTRACT_SCHEMA,
    EXTRACTED,
    ReadCorpusDirectory,
    ReadEnterpriseDump,
    index_extracted,
)
from transforms.sources.compressed import DEFAULT_MAX_DECODED_BYTES, MIB
from transforms.sources.search_corpus import (
    DOC_SCHEMA,
    FIELD_DOCS,
    SAMPLE_CORPORA,
    sample_corpus_dir,
)

DATASET_VERSION = "1.0.0"
DOCS = "docs"
ENTERPRISE = "enterprise"
ABOUT = "the local BM25 search index (build_nq --search local)"


@dataclass(frozen=True)
class _CorpusOptions:
    """Where the pages come from (listed before the release options, as ``--help`` has
    always shown them)."""

    source: str = option("sample", "bundled corpus (default), a directory with index.tsv, or "
                                   "Wikimedia Enterprise HTML dumps (*.json.tar.gz)",
                         choices=("sample", "pages", ENTERPRISE), rows=False)
    input: str | None = option(None, "--source pages: the directory; enterprise: a glob",
                               rows=False)
    lang: str = option("en", "Wikipedia language of the pages")


@dataclass(frozen=True)
class SearchIndexOptions(ReleaseOptions, _CorpusOptions):
    """``python -m pipelines.build_search_index`` options."""

    max_decoded_mib: float = max_decoded_option(DEFAULT_MAX_DECODED_BYTES / MIB,
                                                "page file, index.tsv or dump line")


@dataclass(frozen=True)
class SearchIndexContext:
    """What the job reads that is decided before it: the dump glob of ``--source
    enterprise``, otherwise the corpus directory (``--input`` or the bundled corpus)."""

    corpus: str


def release_for(lang: str) -> ReleaseKind:
    """The release of a ``--lang`` index: ``search_<lang>``, its card in that language."""
    return ReleaseKind(f"search_{lang}", f"{ABOUT}, {lang} pages", schema=DOC_SCHEMA,
                       field_docs=FIELD_DOCS, make_stats=index_stats,
                       make_card=index_card_for(lang),
                       invariants=(TableInvariants("docs", id_column="doc_id"),))


RELEASES = tuple(release_for(lang) for lang in SAMPLE_CORPORA)  # the bundled languages


def input_patterns(options: SearchIndexOptions, corpus: str) -> list[str]:
    """What must exist before the job: the dump glob, or the directory's ``index.tsv``."""
    if options.source == ENTERPRISE:
        return [corpus]
    return [FileSystems.join(corpus, "index.tsv")]


def index_pages(target: ReleaseTarget, lang: str, source: str) -> None:
    """Build the index from the staged pages. No page read is an error even with
    ``--allow-empty``: bm25s cannot index nothing."""
    if not any(name.startswith(f"{EXTRACTED}/") for name in list_files(target.staging_dir)):
        raise NoInputError(f"no pages were read from {source}: nothing to index")
    index_extracted(target, lang)


def plan(options: SearchIndexOptions) -> Plan[SearchIndexOptions]:
    """Enterprise dumps and page directories need ``--input``, and the bundled corpus
    takes none (else it would be indexed as the user's pages, or theirs as the sample); the
    index is written on this machine; the dump glob or the corpus directory's ``index.tsv``
    must exist; a refresh recomputes every row (``transforms.search_index.refresh``)."""
    if options.source == ENTERPRISE and not options.input:
        raise UsageError("--source enterprise needs --input GLOB")
    if options.source == "pages" and not options.input:
        raise UsageError("--source pages needs --input DIR (a directory with index.tsv); "
                         "without --source, the bundled corpus is indexed")
    if options.source == "sample" and options.input:
        raise UsageError(f"--input {options.input} is not read by --source sample (the "
                         f"bundled corpus, the default): pass --source pages (a directory "
                         f"with index.tsv) or --source enterprise (Wikimedia Enterprise HTML "
                         f"dumps)")
    if "://" in options.output:
        raise UsageError("the index is built on this machine: --output must be a local path")
    corpus = options.input or sample_corpus_dir(options.lang)
    require_inputs(input_patterns(options, corpus))
    options = recompute_everything(options)
    return Plan(options, release_for(options.lang), (DOCS,),
                {"kind": options.source, "description": corpus},
                before_publish=partial(index_pages, lang=options.lang, source=corpus),
                context=SearchIndexContext(corpus=corpus),
                refresh_note=REFRESH_NOTE if options.previous else "")


class BuildSearchIndex(beam.PTransform):
    """Pages (a corpus directory or Enterprise dumps) -> staged page shards and the
    accounting in ``target``; the index itself is built by the plan's ``before_publish``."""

    def __init__(self, plan: Plan[SearchIndexOptions], target: ReleaseTarget):
        super().__init__()
        self.options, self.context, self.target = plan.options, plan.context, target
        self.previous = plan.previous

    def expand(self, pbegin):
        options, corpus = self.options, self.context.corpus
        max_decoded = mib_to_bytes(options.max_decoded_mib)
        if options.source == ENTERPRISE:
            read = (pbegin
                    | "MatchDumps" >> fileio.MatchFiles(beam_pattern(corpus))
                    | "OpenDumps" >> fileio.ReadMatches(
                        compression=CompressionTypes.UNCOMPRESSED)
                    | "ReadDumps" >> beam.ParDo(ReadEnterpriseDump(options.lang, max_decoded))
                    .with_outputs(*SIDE_OUTPUTS, main="main"))
        else:
            read = (pbegin
                    | "Directory" >> beam.Create([corpus])
                    | "ReadDirectory" >> beam.ParDo(ReadCorpusDirectory(max_decoded))
                    .with_outputs(*SIDE_OUTPUTS, main="main"))
        pages = (read.main
                 | "Progress" >> ShowProgress("pages indexed")
                 | "Key" >> beam.Map(lambda record: (EXTRACT_GROUP, record))
                 | "WritePages" >> WriteShards(
                     FileSystems.join(self.target.staging_dir, EXTRACTED),
                     lambda r: r["url"], parquet_bytes, "parquet", EXTRACT_SCHEMA,
                     max_rows_per_shard=EXTRACT_ROWS_PER_SHARD))
        counted = count_against_previous(pbegin, self.previous, read.main, DOCS)
        return pages, pbegin | "Accounting" >> WriteAccounting(self.target.staging_dir,
                                                               [read, *counted])


def summary(result: dict[str, Any]) -> str:
    """The lines ``build_search_index`` prints after a run."""
    counts = Counts(result["stats"]["counts"], COUNTERS)
    return "\n".join([
        f"Search index written to {result['path']}",
        f"  pages read:    {counts[READ]}",
        f"  pages indexed: {result['manifest']['rows_per_split'][DOCS]}",
        f"  malformed dump lines: {counts[MALFORMED_LINES]}",
        f"  unreadable pages: {counts[UNREADABLE_FILES]}",
        dead_letter_line(result["stats"]["counts"], width=15),
        *(["  refresh: every row and index file recomputed: BM25 scores and doc ids depend "
           "on every page"] if "refresh" in result["stats"] else []),
        *empty_release_warning(result["manifest"]),
    ])


SPEC = DatasetSpec(
    name="search-index",
    module="build_search_index",
    version=DATASET_VERSION,
    about=ABOUT,
    description="Build the local BM25 search index (bm25s) over Wikipedia and web pages. "
                "Any other --option is passed to Apache Beam.",
    options=SearchIndexOptions,
    releases=RELEASES,
    counters=COUNTERS,
    plan=plan,
    transform=BuildSearchIndex,
    summary=summary,
    output_label="search_<lang>",
    refresh=RefreshRule(UNIT, row_key),
)
