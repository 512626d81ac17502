"""NLQuAD (Soleimani, Monz, Worring, EACL 2021) from BBC News pages, declared once
(``transforms.core.spec``).

Pages come from the bundled sample, saved HTML files, WARC/ARC archives or the Wayback
Machine; they are parsed, deduplicated, stripped of boilerplate, and every interrogative
sub-heading with the paragraphs under it becomes a question and its long answer. The Wayback
source's rates and request limits are options whose defaults are ``WaybackPolicy``'s
(``transforms.clients.wayback.policy``); ``wayback_policy`` turns them back into a policy.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from functools import partial
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from filters.nlquad.layout import AUTO, LAYOUTS
from transforms.clients.wayback.policy import CAPTURE_REDIRECTS, WaybackPolicy
from transforms.core.accounting import SIDE_OUTPUTS
from transforms.core.counters import Counts
from transforms.core.endpoint_options import endpoint_check_options
from transforms.core.errors import UsageError
from transforms.core.inputs import matching_files, require_inputs
from transforms.core.options import (
    ReleaseOptions,
    max_decoded_option,
    mib_to_bytes,
    non_negative_float,
    non_negative_int,
    option,
    positive_float,
    positive_int,
    split_ratios_option,
)
from transforms.core.request_options import request_limit_options, request_limits_of
from transforms.core.spec import DatasetSpec, Plan, RefreshRule, ReleaseKind, TableInvariants
from transforms.core.summary import dead_letter_line, empty_release_warning
from transforms.nlquad.capture_keys import row_key
from transforms.nlquad.card import (
    cdx_count_rows,
    nlquad_baselines,
    nlquad_card,
    nlquad_stats,
    refresh_count_rows,
)
from transforms.nlquad.carried_stats import PartialHistogramFn
from transforms.nlquad.counters import (
    COUNTERS,
    DROPPED,
    DUPLICATE_CAPTURE,
    DUPLICATE_CONTENT,
    FOUND,
    INPUT,
    INPUT_PAGES,
    KEPT,
    PAGES_PARSED,
    PAGES_READ,
    PAGES_SKIPPED,
    PARSED_GENERIC,
    PROMO_LIST_REMOVED,
)
from transforms.nlquad.outcomes import WriteOutcomes
from transforms.nlquad.refresh import (
    NlquadRefresh,
    cdx_capture,
    page_capture,
    require_sidecar,
)
from transforms.nlquad.schema import FIELD_DOCS, NLQUAD_SCHEMA
from transforms.nlquad.sidecar import DIRECTORY as SIDECAR_DIRECTORY
from transforms.nlquad.sidecar import WriteSidecar, ensure_sidecar
from transforms.nlquad.stages import (
    BOILERPLATE_MIN_WORDS,
    DeduplicateArticles,
    ExtractQuestionAnswers,
    FindRepeatedParagraphs,
    ParsePages,
    squad_file,
)
from transforms.release import (
    ReleaseTarget,
    WriteAccounting,
    WriteShards,
    parquet_bytes,
    rows_in_split_order,
    to_json_bytes,
    write_bytes,
)
from transforms.release.batch_rows import batch_rows
from transforms.release.invariant_spans import char_span, squad_answers, word_span
from transforms.sources.page_files import ReadHtmlPages, ReadSamplePages, ReadWarcPages
from transforms.sources.page_reload import ReloadPages, light_page

DATASET = "nlquad"
DATASET_VERSION = "1.0.0"
ABOUT = "NLQuAD-style long-answer QA from BBC News pages"
SOURCES = ("sample", "html", "warc", "wayback")
FILE_SOURCES = ("html", "warc")  # the sources that read --input
SOURCE_READS = {"sample": "only the pages bundled with the toolkit",
                "html": "saved HTML pages", "warc": "WARC/ARC archives (no --index)",
                "wayback": "captures listed by the Wayback Machine"}
SPLIT_RATIOS = "train=0.8,dev=0.1,test=0.1"
MAX_PAGE_MIB = 64  # --max-decoded-mib: a real article page is well under 5 MiB
WAYBACK_GROUP = "wayback source"
WAYBACK = WaybackPolicy()  # the defaults of the wayback source options
LIMITS = WAYBACK.limits  # the defaults of the --wayback-* request limits

_WAYBACK = request_limit_options("the archive", LIMITS, group=WAYBACK_GROUP)
_CHECKS = endpoint_check_options("the archive", group=WAYBACK_GROUP)


def boilerplate_min_docs(value: str) -> int:
    """The value parser of ``--boilerplate-min-docs``: 2 or more (at 1 or below every
    paragraph, found in its own article, would be boilerplate)."""
    number = positive_int(value)
    if number < 2:
        raise argparse.ArgumentTypeError(f"must be 2 or more, got {number}")
    return number


@dataclass(frozen=True)
class _PageOptions:
    """Where the pages come from (listed before the release options, as ``--help`` has
    always shown them)."""

    source: str = option("sample", "where pages come from: the bundled sample (default, "
                                   "offline), saved HTML files, WARC/ARC files, or the Wayback "
                                   "Machine", choices=SOURCES, rows=False)
    input: str | None = option(None, "glob of input files for --source html|warc "
                                     "(any Beam filesystem: local, gs://, ...)", rows=False)
    index: str | None = option(None, "--source html: TSV sidecar (file, url, timestamp); "
                                     "default: index.tsv next to each page", rows=False)
    layout: str = option(AUTO, "which parser reads a page: auto (default: the BBC parser for "
                               "BBC pages, the generic main-content extractor for any other "
                               "news site), bbc (BBC pages only) or generic (every page)",
                         choices=LAYOUTS)


@dataclass(frozen=True)
class NlquadOptions(ReleaseOptions, _PageOptions):
    """``python -m pipelines.build_nlquad`` options."""

    from_year: int = option(2016, "--source wayback: first capture year (default 2016)",
                            parse=int, name="--from", rows=False)
    to_year: int = option(2020, "--source wayback: last capture year (default 2020)",
                          parse=int, name="--to", rows=False)
    split_ratios: tuple[tuple[str, float], ...] = option(
        split_ratios_option(SPLIT_RATIOS), "split names and ratios, e.g. "
        "train=0.8,dev=0.1,test=0.1 or 80/10/10", parse=split_ratios_option,
        cli_default=SPLIT_RATIOS)
    split_salt: str = option("nlquad", "salt of the split hash; keep it fixed across versions")
    export_squad: bool = option(False, "also write squad/<split>.json in exactly the SQuAD "
                                       "v1.1 format", flag=True, rows=False)
    squad_extra_fields: bool = option(False, "with --export-squad, add NLQuAD's own fields "
                                             "(date, url, answer_end), which strict SQuAD v1.1 "
                                             "readers may refuse", flag=True, rows=False)
    boilerplate_min_docs: int = option(3, "a paragraph found in at least this many articles "
                                          "(2 or more) is boilerplate",
                                       parse=boilerplate_min_docs)
    boilerplate_min_words: int = option(BOILERPLATE_MIN_WORDS, "shorter paragraphs are never "
                                        "treated as repeated boilerplate",
                                        parse=non_negative_int)
    paragraph_separator: str = option("\n", "whitespace placed between paragraphs in the "
                                            "context")
    max_rows_per_shard: int = option(20_000, "Parquet rows per shard file", parse=positive_int,
                                     rows=False)
    max_decoded_mib: float = max_decoded_option(
        MAX_PAGE_MIB, "page (--source html: a page file; warc: one record's page)")
    wayback_url: str = option("https://web.archive.org", "Wayback Machine base URL (tests "
                                                         "point it at a local server)",
                              group=WAYBACK_GROUP, rows=False)
    cache_dir: str = option(".cache/wayback", "cache of CDX pages and captures, local or "
                                              "gs:// (re-runs never refetch; a crashed run "
                                              "resumes from it)", group=WAYBACK_GROUP,
                         rows=False)
    fetch_workers: int = option(WAYBACK.fetch_workers, "parallel fetchers; the archive sees at "
                                                       "most fetch-workers x per-worker rate",
                                parse=positive_int, group=WAYBACK_GROUP, rows=False)
    fetches_per_minute: float = option(WAYBACK.fetches_per_minute, "global page fetch rate "
                                       "(archive limit ~480/min per IP)",
                                       parse=positive_float, group=WAYBACK_GROUP, rows=False)
    cdx_per_minute: float = option(WAYBACK.cdx_per_minute, "CDX request rate (archive limit "
                                                           "~24/min per IP)",
                                   parse=positive_float, group=WAYBACK_GROUP, rows=False)
    rate_limit_pause: float = option(WAYBACK.rate_limit_pause, "seconds to pause after HTTP "
                                     "429 or a refused connection",
                                     parse=non_negative_float, group=WAYBACK_GROUP,
                                     rows=False)
    max_captures: int = option(0, "stop after this many article captures (0 = all)",
                               parse=non_negative_int, group=WAYBACK_GROUP, rows=False)
    wayback_capture_redirects: str = option(
        WAYBACK.capture_redirects, "when the archive replays another capture of the page than "
        "the one listed (it redirects to the nearest it can replay): refuse it (dead-lettered "
        "capture_redirected) or accept it under its own timestamp",
        choices=CAPTURE_REDIRECTS, group=WAYBACK_GROUP)
    wayback_max_retry_after: float = option(
        WAYBACK.max_retry_after, "longest Retry-After obeyed, in seconds (a server asking "
        f"for more waits this long; default {WAYBACK.max_retry_after:g})",
        parse=non_negative_float, group=WAYBACK_GROUP, rows=False)
    wayback_retry_budget: float = option(
        WAYBACK.request_wait_budget, "seconds one capture or CDX page may wait between its "
        f"attempts in all (0 = no budget; default {WAYBACK.request_wait_budget:g}; failure "
        "kind retry_budget_exhausted)", parse=non_negative_float, group=WAYBACK_GROUP,
        rows=False)
    wayback_run_retry_budget: float = option(
        WAYBACK.run_wait_budget, "seconds the fetchers together, and the CDX listing, may "
        f"wait between attempts in a run (0 = no budget; default {WAYBACK.run_wait_budget:g}; "
        "failure kind run_retry_budget_exhausted)", parse=non_negative_float,
        group=WAYBACK_GROUP, rows=False)
    wayback_max_cdx_pages: int = option(
        WAYBACK.max_cdx_pages, "pages read per CDX query at most (default "
        f"{WAYBACK.max_cdx_pages}; failure kind too_many_cdx_pages)", parse=positive_int,
        group=WAYBACK_GROUP, rows=False)
    wayback_connect_timeout: float = _WAYBACK["connect_timeout"]
    wayback_read_timeout: float = _WAYBACK["read_timeout"]
    wayback_deadline: float = _WAYBACK["deadline"]
    wayback_max_retries: int = _WAYBACK["max_retries"]
    wayback_max_redirects: int = _WAYBACK["max_redirects"]
    wayback_max_body_mib: float = _WAYBACK["max_body_mib"]
    wayback_max_decoded_mib: float = _WAYBACK["max_decoded_mib"]
    no_preflight: bool = _CHECKS["no_preflight"]
    max_consecutive_failures: int = _CHECKS["max_consecutive_failures"]


def wayback_policy(options: NlquadOptions) -> WaybackPolicy:
    """The ``ReadWaybackPages`` policy of the Wayback source options: ``--cache-dir``,
    ``--fetch-workers``, the rates, ``--rate-limit-pause``, the wait budgets, the CDX page
    cap, what a redirected capture is and the ``--wayback-*`` limits (backoff as
    ``WaybackPolicy`` has it)."""
    return WaybackPolicy(cdx_per_minute=options.cdx_per_minute,
                         fetches_per_minute=options.fetches_per_minute,
                         rate_limit_pause=options.rate_limit_pause,
                         fetch_workers=options.fetch_workers, cache_dir=options.cache_dir,
                         max_retry_after=options.wayback_max_retry_after,
                         request_wait_budget=options.wayback_retry_budget,
                         run_wait_budget=options.wayback_run_retry_budget,
                         max_cdx_pages=options.wayback_max_cdx_pages,
                         capture_redirects=options.wayback_capture_redirects,
                         limits=request_limits_of(options, "wayback"))


# every row: a unique id, an article in one split (its split is hashed from document_id),
# answers at their character and word offsets of the context
INVARIANTS = (TableInvariants(id_column="id", group_key="document_id", spans=(
    char_span("context", "answer_start", "answer_end", "answer_text"),
    word_span("context", "answer_start", "answer_word_start", "answer_word_end",
              "answer_text"),
    squad_answers("context", "answers"))),)
RELEASE = ReleaseKind(DATASET, ABOUT, schema=NLQUAD_SCHEMA, field_docs=FIELD_DOCS,
                      make_stats=nlquad_stats, make_card=nlquad_card,
                      baselines=nlquad_baselines, renderer="nlquad", evaluator="nlquad",
                      invariants=INVARIANTS)


def source_description(options: NlquadOptions) -> dict[str, Any]:
    """The manifest's ``source``: the kind of pages and where they came from."""
    descriptions = {
        "sample": "pages bundled with the toolkit (synthetic BBC-like markup of every era)",
        "html": f"saved HTML pages matching {options.input}",
        "warc": f"WARC/ARC archives matching {options.input}",
        "wayback": f"Wayback Machine CDX captures of bbc.co.uk/news and bbc.com/news, "
                   f"{options.from_year}-{options.to_year}, via {options.wayback_url}",
    }
    return {"kind": options.source, "description": descriptions[options.source]}


def squad_path(staging_dir: str, split: str) -> str:
    """Where ``--export-squad`` writes a split: ``squad/<split>.json``."""
    return FileSystems.join(staging_dir, "squad", f"{split}.json")


def write_empty_squad_files(target: ReleaseTarget, splits: tuple[str, ...]) -> None:
    """An empty SQuAD file for every split that kept no question (before publishing)."""
    for split in splits:
        path = squad_path(target.staging_dir, split)
        if not FileSystems.exists(path):
            write_bytes(path, to_json_bytes(squad_file([])))


def before_publish(target: ReleaseTarget, splits: tuple[str, ...], squad: bool) -> None:
    """What a release has even when the job wrote none of it: the refresh sidecar and, with
    ``--export-squad``, a SQuAD file for every split."""
    ensure_sidecar(target)
    if squad:
        write_empty_squad_files(target, splits)


def check_unread_inputs(options: NlquadOptions) -> None:
    """``UsageError`` for ``--input`` or ``--index`` that the chosen source would not read:
    ``build_nlquad --input 'my/*.html'`` would otherwise build the bundled sample (the
    default ``--source``) and publish it for the user's pages."""
    unread = [f"--{name} {value}" for name, value, readers in (
        ("input", options.input, FILE_SOURCES), ("index", options.index, ("html",)))
        if value and options.source not in readers]
    if unread:
        raise UsageError(
            f"{' and '.join(unread)} would not be read: --source {options.source} reads "
            f"{SOURCE_READS[options.source]}. Pass --source html (saved pages, with --index "
            f"for their URLs and times) or --source warc (WARC/ARC archives) to read your "
            f"files")


def plan(options: NlquadOptions) -> Plan[NlquadOptions]:
    """``--source html|warc`` need ``--input`` (and it, with ``--index``, must match
    files); the paragraph separator must be whitespace; no split may be named like the
    sidecar's directory. The manifest records the split ratios as a dict; before
    publishing, the sidecar and (``--export-squad``) the SQuAD files of empty splits are
    written."""
    if options.source in FILE_SOURCES and not options.input:
        raise UsageError(f"--source {options.source} needs --input GLOB")
    check_unread_inputs(options)
    if options.paragraph_separator.strip() or not options.paragraph_separator:
        raise UsageError("--paragraph-separator must be non-empty whitespace")
    if options.source in FILE_SOURCES:
        require_inputs([options.input, *([options.index] if options.index else [])])
    splits = tuple(name for name, _ in options.split_ratios)
    if SIDECAR_DIRECTORY in splits:
        raise UsageError(f"--split-ratios: {SIDECAR_DIRECTORY!r} names the release's refresh "
                         f"sidecar; call the split otherwise")
    return Plan(options, RELEASE, splits, source_description(options),
                recorded={"split_ratios": dict(options.split_ratios)},
                before_publish=partial(before_publish, splits=splits,
                                       squad=options.export_squad),
                endpoints=wayback_endpoints(options))


def wayback_endpoints(options: NlquadOptions) -> tuple[Any, ...]:
    """The archive, checked once before the job with ``--source wayback`` (none with
    ``--no-preflight``)."""
    if options.source != "wayback" or options.no_preflight:
        return ()
    from transforms.sources.wayback import cdx_endpoint

    timeout = (options.wayback_connect_timeout, options.wayback_read_timeout)
    return (cdx_endpoint(options.wayback_url, timeout, "--wayback-url"),)


def read_pages(pbegin, options: NlquadOptions, refresh: NlquadRefresh):
    """The chosen source's pages of new or changed captures (``refresh.fresh``; every page
    without ``--previous``): ``(pages, [tagged results carrying accounting outputs])``.
    Wayback captures are filtered between the CDX listing and the fetch; saved pages and
    WARC records without their content, which is read again for the pages that go on
    (``transforms.sources.page_reload``)."""
    max_decoded = mib_to_bytes(options.max_decoded_mib)
    if options.source == "wayback":
        from transforms.sources.wayback import FetchWaybackCaptures, ListWaybackArticles

        policy = wayback_policy(options)
        failure_limit = options.max_consecutive_failures
        chosen, listed = pbegin | "WaybackList" >> ListWaybackArticles(
            options.wayback_url, options.from_year, options.to_year, policy,
            options.max_captures, failure_limit)
        pages, fetched = (refresh.fresh(chosen, cdx_capture)
                          | "WaybackFetch" >> FetchWaybackCaptures(options.wayback_url, policy,
                                                                   failure_limit))
        return pages, [*listed, *fetched]
    if options.source == "sample":
        pages, results = pbegin | "Sample" >> ReadSamplePages()
    elif options.source == "html":
        pages, results = pbegin | "Html" >> ReadHtmlPages(options.input, options.index,
                                                          max_decoded)
    else:
        pages, results = pbegin | "Warc" >> ReadWarcPages(options.input, max_decoded)
    if not refresh.active or options.source == "sample":
        return refresh.fresh(pages, page_capture), results
    fresh = refresh.fresh(pages, page_capture, prepare=light_page)
    reloaded = fresh | "ReloadPages" >> beam.ParDo(ReloadPages(
        options.source == "warc", max_decoded)).with_outputs(*SIDE_OUTPUTS, main="main")
    return reloaded.main, [*results, reloaded]


def _write_squad(split_rows: tuple[str, list[dict[str, Any]]], staging_dir: str,
                 extra_fields: bool) -> None:
    split, rows = split_rows
    write_bytes(squad_path(staging_dir, split), to_json_bytes(squad_file(rows, extra_fields)))


class BuildNlquad(beam.PTransform):
    """Pages -> articles (parsed, deduplicated) -> question-answer rows: Parquet splits,
    the SQuAD export with ``--export-squad``, the refresh sidecar and the accounting, all
    staged in ``target``. With ``--previous`` the rows of unchanged captures are carried
    (``transforms.nlquad.refresh``)."""

    def __init__(self, plan: Plan[NlquadOptions], target: ReleaseTarget):
        super().__init__()
        self.options, self.target, self.previous = plan.options, target, plan.previous

    def expand(self, pbegin):
        options, staging = self.options, self.target.staging_dir
        refresh = NlquadRefresh(pbegin, self.previous, options.recompute_all)
        pages, results = read_pages(pbegin, options, refresh)
        total = (len(matching_files(options.input))
                 if options.source == "html" and not refresh.active else None)
        parsed = pages | "Parse" >> beam.ParDo(
            ParsePages(progress_total=total, layout=options.layout, outcomes=True)).with_outputs(
            *SIDE_OUTPUTS, ParsePages.OUTCOMES, main="main")
        articles, dedup_results = parsed.main | "Deduplicate" >> DeduplicateArticles(
            refresh.summaries)
        repeated = articles | "RepeatedParagraphs" >> FindRepeatedParagraphs(
            options.boilerplate_min_docs, options.boilerplate_min_words, refresh.summaries)
        extracted = articles | "ExtractQA" >> beam.ParDo(
            ExtractQuestionAnswers(options.split_salt, options.split_ratios,
                                   options.paragraph_separator, options.boilerplate_min_words),
            repeated=beam.pvalue.AsDict(repeated),
        ).with_outputs(*SIDE_OUTPUTS, ExtractQuestionAnswers.STATS,
                       ExtractQuestionAnswers.DOCUMENTS, main="main")
        rows, refresh_results, carried_stats = refresh.finish(extracted.main)
        written = [rows | "WriteSplits" >> WriteShards(
            staging, lambda row: row["id"], parquet_bytes, "parquet", NLQUAD_SCHEMA,
            options.max_rows_per_shard, sort_column="id")]
        if options.export_squad:
            written.append(rows
                           | "SquadRows" >> beam.FlatMap(batch_rows)
                           | "GroupForSquad" >> beam.GroupByKey()
                           | "WriteSquad" >> beam.Map(_write_squad, staging,
                                                      options.squad_extra_fields))
        documents = extracted[ExtractQuestionAnswers.DOCUMENTS]
        if refresh.carried is not None:
            documents = (documents, refresh.carried) | "AllDocuments" >> beam.Flatten()
        written.append(documents | "WriteSidecar" >> WriteSidecar(staging))
        skips = parsed[ParsePages.OUTCOMES]
        if refresh.carried_skips is not None:
            skips = (skips, refresh.carried_skips) | "AllSkipped" >> beam.Flatten()
        written.append(skips | "WriteSkipped" >> WriteOutcomes(staging))
        histograms = ((extracted[ExtractQuestionAnswers.STATS], *carried_stats)
                      | "HistogramEntries" >> beam.Flatten()
                      | "Histograms" >> beam.CombinePerKey(PartialHistogramFn()))
        written.append(pbegin | "Accounting" >> WriteAccounting(
            staging, [*results, parsed, *dedup_results, extracted, *refresh_results],
            histograms))
        return tuple(written)


def summary(result: dict[str, Any]) -> str:
    """The readable end-of-run summary ``build_nlquad`` prints; after a refresh, the stage
    counts are marked as this run's work (the rows per split are the release's)."""
    raw = result["stats"]["counts"]
    counts = Counts(raw, COUNTERS)
    refreshed = refresh_count_rows(result["stats"])
    lines = [
        f"NLQuAD release {result['manifest']['version']} written to {result['path']}",
        *(["  this run's work (carried documents were not fetched or parsed again):"]
          if refreshed else []),
        *[f"  {label + ':':<22} {count}"
          for label, count in [*refreshed, *cdx_count_rows(raw)]],
        f"  pages read:            {counts[PAGES_READ]}",
        f"  articles parsed:       {counts[PAGES_PARSED]}",
        *([f"  articles parsed, generic layout: {counts[PARSED_GENERIC]}"]
          if counts[PARSED_GENERIC] else []),
    ]
    for name, count in counts.fired(INPUT).items():  # whatever the source counted
        if name != INPUT_PAGES.name:
            lines.append(f"  input {name}: {count}")
    for reason, count in counts.family(PAGES_SKIPPED).items():
        lines.append(f"  pages skipped, {reason}: {count}")
    lines += [
        f"  duplicate captures:    {counts[DUPLICATE_CAPTURE]}",
        f"  duplicate texts:       {counts[DUPLICATE_CONTENT]}",
        f"  promo link lists removed: {counts[PROMO_LIST_REMOVED]}",
        f"  questions found:       {counts[FOUND]}",
        f"  QA pairs kept:         {counts[KEPT]}",
    ]
    for reason, count in counts.family(DROPPED).items():
        lines.append(f"  QA pairs dropped, {reason}: {count}")
    lines.append(dead_letter_line(raw))
    for split, rows in rows_in_split_order(result["manifest"]):
        lines.append(f"  rows in {split}: {rows}")
    return "\n".join(lines + empty_release_warning(result["manifest"]))


SPEC = DatasetSpec(
    name=DATASET,
    module="build_nlquad",
    version=DATASET_VERSION,
    about=ABOUT,
    description="Build an NLQuAD-style long-answer QA release from BBC News pages, or from "
                "any news site's saved pages (--layout). "
                "Any other --option is passed to Apache Beam (e.g. --runner, "
                "--direct_running_mode=multi_processing, --direct_num_workers=2).",
    options=NlquadOptions,
    releases=(RELEASE,),
    counters=COUNTERS,
    plan=plan,
    transform=BuildNlquad,
    summary=summary,
    refresh=RefreshRule("a capture: the same URL, timestamp and payload digest (base32 SHA-1, "
                        "as the Wayback CDX gives it)", row_key, check=require_sidecar),
)
