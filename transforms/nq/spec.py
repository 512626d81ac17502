"""Natural Questions-style data from search-query logs, declared once (``transforms.core.spec``).

Stage 1 (NQ §3.1): query logs -> normalization -> users within a window -> 8+ tokens -> NQ
heuristics 1-5 (and our 6-8) -> the accepted questions (``--stop-after questions`` publishes
them as ``nq_questions``). Stage 2 (NQ §3.1, §4.1): search -> the top-ranked Wikipedia page
among the top 5 -> its page -> NQ tokens and long-answer candidates -> the release ``nq`` in
the NQ original format (``nq_original/<split>/*.jsonl.gz``) and the HuggingFace layout
(``<split>/*.parquet``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from filters.text.splits import assign_split
from transforms.core.accounting import SIDE_OUTPUTS
from transforms.core.counters import Counts
from transforms.core.errors import UsageError
from transforms.core.inputs import require_inputs
from transforms.core.options import (
    ReleaseOptions,
    non_negative_int,
    option,
    positive_int,
    split_ratios_option,
)
from transforms.core.progress import ShowProgress
from transforms.core.samples import sample_path
from transforms.core.spec import DatasetSpec, Plan, RefreshRule, ReleaseKind, TableInvariants
from transforms.core.summary import dead_letter_line, empty_release_warning
from transforms.nq.card import nq_card, nq_questions_card, nq_stats
from transforms.nq.carried import (
    ORIGINAL_DIR,
    example_key,
    hf_parquet,
    original_bytes,
    packed_example,
    page_lengths,
    simplified_bytes,
)
from transforms.nq.carried_moves import CarryMoved
from transforms.nq.counters import (
    ACCEPTED,
    COUNTERS,
    DISTINCT,
    EXAMPLES,
    HEURISTICS,
    LASTING_DROPS,
    LINKING,
    LOG_MALFORMED_ROWS,
    LOG_ROWS,
    OUTCOMES_CARRIED,
    PAGES,
    REJECTED,
)
from transforms.nq.examples import FIELD_DOCS as EXAMPLE_FIELD_DOCS
from transforms.nq.examples import HF_SCHEMA, nq_shard_name, original_example
from transforms.nq.floor_text import summary_lines as floor_lines
from transforms.nq.linking import BuildExamples, LinkAndFetch, summary_label
from transforms.nq.linking_options import (
    LinkingOptions,
    ResolvedLinking,
    backend_options,
    linking_endpoints,
    linking_option,
    recorded_of,
    resolve_linking,
    source_of,
)
from transforms.nq.previous_read import RECORDED, ReadPrevious
from transforms.nq.publish import ensure_empty_jsonl, nq_dev_baselines
from transforms.nq.query_outcomes import (
    DIRECTORY as OUTCOMES_DIRECTORY,
)
from transforms.nq.query_outcomes import (
    RECORD,
    WithOutcomes,
    WriteOutcomes,
    carried_files,
    ensure_outcomes,
    fingerprint,
)
from transforms.nq.questions import OUTCOMES, REJECTED_QUERIES, IssuedByUsers, SelectQuestions
from transforms.nq.refresh import (
    UNIT,
    LinkingRefresh,
    check_refresh_options,
    previous_files,
    published_key,
    question_carry,
    question_key,
    refresh_note,
)
from transforms.nq.refresh_text import outcomes_line, questions_summary_lines, this_run
from transforms.nq.refresh_text import summary_lines as refresh_lines
from transforms.nq.schema import FIELD_DOCS, QUESTION_SCHEMA, REJECTED_QUERY_SCHEMA
from transforms.nq.simplified import FIELD_DOCS as SIMPLIFIED_FIELD_DOCS
from transforms.nq.simplified import SIMPLIFIED_DIR, ensure_simplified, simplified_shard_name
from transforms.release import (
    GroupCounts,
    HistogramFn,
    ReleaseTarget,
    ShardFormat,
    WriteAccounting,
    WriteShards,
    parquet_bytes,
    rows_in_split_order,
)
from transforms.release.invariant_formats import nq_formats
from transforms.release.invariant_spans import nq_annotations, nq_simplified_annotations
from transforms.sources.query_log_options import (
    QueryLogOptions,
    input_option,
    log_fields,
    min_users_option,
    reader_options,
)
from transforms.sources.query_logs import key_by_normalized_query

DATASET_QUESTIONS = "nq_questions"
DATASET_VERSION = "1.0.0"
DATASET_EXAMPLES = "nq"
QUESTIONS = "questions"
STAGES = (QUESTIONS, "examples")
NQ_SPLITS = "train=307373,dev=7830,test=7842"  # NQ's own split sizes


@dataclass(frozen=True)
class _Selection:
    """Question selection options (listed after the query-log options, as ``--help`` has
    always shown them)."""

    categories: str = option(sample_path("nq", "categories.tsv"),
                             "category lexicon TSV (from build_categories) or a categories "
                             "release directory; default: the bundled lexicon", rows=False)
    min_category_count: int = option(2, "lexicon entries found fewer times are ignored",
                                     parse=non_negative_int)
    keep_rejected: bool = option(False, "also write the rejected queries with reasons to "
                                        "rejected/queries/", flag=True, rows=False)
    stop_after: str = option("examples", "questions: write the selected questions (release "
                                         "nq_questions); examples (default): link, fetch pages, "
                                         "write NQ examples (release nq)", choices=STAGES)


@dataclass(frozen=True)
class NqOptions(LinkingOptions, ReleaseOptions, _Selection, QueryLogOptions):
    """``python -m pipelines.build_nq`` options."""

    input: str = input_option(sample_path("nq", "query_log.tsv"))
    min_users: int = min_users_option(2)
    split_ratios: tuple = linking_option(split_ratios_option(NQ_SPLITS),
                                         f"split names and sizes/ratios (default NQ's: "
                                         f"{NQ_SPLITS})", parse=split_ratios_option,
                                         cli_default=NQ_SPLITS)
    split_salt: str = linking_option("nq", "salt of the split hash of the normalized question")
    max_rows_per_shard: int = linking_option(500, "examples per output file (pages are large)",
                                             parse=positive_int, rows=False)
    batch_size: int = option(256, "queries per spaCy batch", parse=positive_int, rows=False)


@dataclass(frozen=True)
class NqContext:
    """What the job needs that is decided before it: the category lexicon's text (read once,
    up front), the resolved linking (page source, index directory), and whether every query
    is tagged again (``--recompute-all`` as given: a question release's refresh rebuilds
    every row, yet takes the recorded query outcomes, ``transforms.nq.query_outcomes``)."""

    categories_tsv: str
    linking: ResolvedLinking
    tag_all: bool = False


# an example's split is hashed from its question (``_examples``): one question, one split;
# annotations (``nq_annotated``) are spans of the document's tokens, in both layouts; and
# each example's HF row agrees with its simplified row, made from its ``nq_original`` line
EXAMPLE_INVARIANTS = (
    TableInvariants(id_column="id", group_key="question.text", spans=(nq_annotations(),),
                    agrees_with=(nq_formats(),)),
    TableInvariants("simplified/{split}", id_column="example_id", group_key="question_text",
                    spans=(nq_simplified_annotations(),)),
)
QUESTIONS_RELEASE = ReleaseKind(
    DATASET_QUESTIONS, "NQ question selection: questions selected from a search query log",
    schema=QUESTION_SCHEMA, field_docs=FIELD_DOCS, make_stats=nq_stats,
    make_card=nq_questions_card,
    invariants=(TableInvariants(QUESTIONS, id_column="question"),))
EXAMPLES_RELEASE = ReleaseKind(
    DATASET_EXAMPLES, "Natural Questions-style examples: questions with a Wikipedia page and "
                      "its long-answer candidates",
    schema=HF_SCHEMA, field_docs={**FIELD_DOCS, **EXAMPLE_FIELD_DOCS, **SIMPLIFIED_FIELD_DOCS},
    make_stats=nq_stats,
    make_card=nq_card, baselines=nq_dev_baselines, renderer="nq", evaluator="nq",
    invariants=EXAMPLE_INVARIANTS)
ANNOTATED_RELEASE = ReleaseKind(
    "nq_annotated", "NQ examples with crowd annotations (python -m pipelines.annotate import)",
    renderer="nq", evaluator="nq", invariants=EXAMPLE_INVARIANTS)


def categories_file(path: str) -> str:
    """The lexicon TSV of ``--categories``: the file, or ``categories.tsv`` of a release."""
    return path if path.endswith(".tsv") else FileSystems.join(path, "categories.tsv")


def read_categories(path: str) -> str:
    """The lexicon TSV text from a file or a categories release directory."""
    path = categories_file(path)
    with FileSystems.open(path) as handle:
        return handle.read().decode("utf-8")


def plan(options: NqOptions) -> Plan[NqOptions]:
    """The logs and the lexicon must exist; the lexicon is read now (``Plan.context``); the
    linking options are resolved (``--pages``, the bundled index) for stage 2; the refresh
    options are checked (``transforms.nq.refresh``)."""
    questions_only = options.stop_after == QUESTIONS
    tag_all = options.recompute_all
    options = check_refresh_options(options, questions_only)
    if options.min_users < 1:
        raise UsageError("--min-users must be at least 1")
    require_inputs([options.input, categories_file(options.categories)])
    try:
        categories_tsv = read_categories(options.categories)
    except OSError as error:
        raise UsageError(f"cannot read --categories {options.categories}: {error}") from None
    linking = resolve_linking(options, needs_index=not questions_only)
    source = {"kind": "query_log", "description": f"query logs matching {options.input}",
              "categories": options.categories, **source_of(linking), "lang": options.lang}
    recorded = {**recorded_of(linking), "split_ratios": dict(options.split_ratios),
                RECORD: fingerprint(categories_tsv, options.min_category_count)}
    context = NqContext(categories_tsv, linking, tag_all)
    note = refresh_note(options, questions_only)
    if questions_only:
        return Plan(options, QUESTIONS_RELEASE, (QUESTIONS,), source, recorded,
                    before_publish=ensure_outcomes, context=context, refresh_note=note)
    splits = tuple(name for name, _ in options.split_ratios)
    if OUTCOMES_DIRECTORY in splits:
        raise UsageError(f"--split-ratios: {OUTCOMES_DIRECTORY!r} names the release's refresh "
                         f"sidecar; call the split otherwise")
    return Plan(options, EXAMPLES_RELEASE, splits, source, recorded,
                before_publish=partial(_ensure_empty_jsonl, splits=splits), context=context,
                refresh_note=note, endpoints=linking_endpoints(options, linking))


def _ensure_empty_jsonl(target: ReleaseTarget, splits: tuple[str, ...]) -> None:
    ensure_empty_jsonl(target, list(splits))
    ensure_outcomes(target)
    ensure_simplified(target.staging_dir)


class BuildNq(beam.PTransform):
    """Query logs -> selected questions -> (stage 2) linked NQ examples in both formats, the
    rejected queries (``--keep-rejected``) and the accounting, all staged in ``target``."""

    def __init__(self, plan: Plan[NqOptions], target: ReleaseTarget):
        super().__init__()
        self.plan = plan
        self.options, self.context, self.target = plan.options, plan.context, target

    def expand(self, pbegin):
        options, staging = self.options, self.target.staging_dir
        by_users, results = pbegin | "Users" >> IssuedByUsers(
            options.input, log_fields(options), options.format, key_by_normalized_query,
            options.min_users, options.window, options.keep_rejected,
            **reader_options(options))
        previous = self.plan.previous
        outcome_files = carried_files(previous, self.plan.recorded[RECORD],
                                      self.context.tag_all)
        files = previous_files(self.plan, options.stop_after == QUESTIONS, outcome_files)
        read = None if files is None else pbegin | "RefreshReadPrevious" >> ReadPrevious(
            previous.pinned, files, LASTING_DROPS)  # one step for every kind of file
        selected = (by_users.main
                    | "Progress" >> ShowProgress("queries aggregated")
                    | "Outcomes" >> WithOutcomes(read[RECORDED] if outcome_files else None)
                    | "Batch" >> beam.BatchElements(min_batch_size=options.batch_size,
                                                    max_batch_size=options.batch_size)
                    | "Heuristics" >> beam.ParDo(SelectQuestions(
                        self.context.categories_tsv, options.min_category_count,
                        options.keep_rejected))
                    .with_outputs(*SIDE_OUTPUTS, REJECTED_QUERIES, OUTCOMES, main="main"))
        questions = selected.main
        results = [*results, by_users, selected]
        outcomes = selected[OUTCOMES] | "WriteOutcomes" >> WriteOutcomes(staging)
        if options.stop_after == QUESTIONS:
            carry = question_carry(pbegin, self.plan)
            rows, refresh_results = carry.finish(
                carry.fresh(questions, question_key)
                | "KeyQuestions" >> beam.Map(lambda row: (QUESTIONS, row)))
            written = [rows | "WriteQuestions" >> WriteShards(
                staging, question_key, parquet_bytes, "parquet", QUESTION_SCHEMA)]
            page_stats, results = [], [*results, *refresh_results]
        else:
            page_stats, linked_results, written = self._examples(pbegin, questions, read)
            results += linked_results
        written.append(outcomes)
        if options.keep_rejected:
            written.append((by_users[REJECTED_QUERIES], selected[REJECTED_QUERIES])
                           | "RejectedQueries" >> beam.Flatten()
                           | "KeyRejected" >> beam.Map(lambda row: ("queries", row))
                           | "WriteRejected" >> WriteShards(
                               staging, lambda r: r["question"], parquet_bytes, "parquet",
                               REJECTED_QUERY_SCHEMA, subdir="rejected"))
        lengths = (questions
                   | "Lengths" >> beam.FlatMap(lambda row: [
                       ("all/question_tokens", row["tokens"]),
                       ("all/users_in_window", row["users_in_window"])]))
        histograms = ((lengths, *page_stats)
                      | "AllLengths" >> beam.Flatten()
                      | "Histograms" >> beam.CombinePerKey(HistogramFn()))
        written.append(pbegin | "Accounting" >> WriteAccounting(staging, results, histograms))
        return tuple(written)

    def _examples(self, pbegin, questions, read):
        """Stage 2: link, fetch, tokenize, split, write both formats; a refresh links only
        the questions the previous release has no example of and writes the carried
        examples with this run's (``transforms.nq.refresh``). The page lengths describe every
        example. Returns (length stats, accounting results, writers' outputs)."""
        from filters.nq.candidates import nq_document

        options, staging = self.options, self.target.staging_dir
        refresh = LinkingRefresh(pbegin, self.plan, original=True, read=read)
        pairs, linked_results = (refresh.to_link(questions)
                                 | "LinkProgress" >> ShowProgress("questions linked")
                                 | "LinkAndFetch" >> LinkAndFetch(
                                     backend_options(options, self.context.linking),
                                     options.lang, options.shards))
        built = (pairs
                 | "Tokenize" >> beam.ParDo(BuildExamples(nq_document))
                 .with_outputs(*SIDE_OUTPUTS, main="main"))
        salt, ratios = options.split_salt, options.split_ratios
        examples, refresh_results = refresh.finish(
            built.main
            | "Example" >> beam.MapTuple(original_example)
            | "Split" >> beam.Map(lambda ex: (assign_split(ex["question_text"], salt, ratios),
                                              packed_example(ex))))
        release = self.plan.previous.pinned if self.plan.previous else None  # carried from
        totals = None  # a refresh counts the splits once, for CarryMoved and WriteShards
        if release is not None:  # examples whose shard changes: as bytes, files read once
            totals = examples | "SplitRows" >> GroupCounts()
            examples = examples | "CarryMoved" >> CarryMoved(
                release, options.max_rows_per_shard, totals)
        written = [examples | "WriteExamples" >> WriteShards(  # every format, one grouping
            staging, example_key, partial(hf_parquet, release=release), "parquet", HF_SCHEMA,
            options.max_rows_per_shard, counts=totals,
            also=[ShardFormat(partial(original_bytes, release=release), "jsonl.gz",
                              subdir=ORIGINAL_DIR, namer=nq_shard_name),
                  ShardFormat(partial(simplified_bytes, release=release), "parquet",
                              subdir=SIMPLIFIED_DIR, namer=simplified_shard_name)])]
        page_stats = examples | "PageLengths" >> beam.FlatMap(lambda kv: page_lengths(kv[1]))
        return [page_stats], [*linked_results, built, *refresh_results], written


def summary(result: dict[str, Any]) -> str:
    """The lines ``build_nq`` prints after a run."""
    raw = result["stats"]["counts"]
    counts = Counts(raw, COUNTERS)
    lines = [
        f"{result['manifest']['dataset']} {result['manifest']['version']} written to "
        f"{result['path']}",
        f"  log rows read:         {counts[LOG_ROWS]}",
        f"  malformed rows:        {counts[LOG_MALFORMED_ROWS]} (see rejected/dead_letter/)",
        f"  distinct queries:      {counts[DISTINCT]}",
    ]
    for name, count in counts.family(REJECTED).items():
        lines.append(f"  rejected, {name}: {count}")
    lines.append(f"  accepted questions:    {counts[ACCEPTED]}")
    for name, count in counts.fired(HEURISTICS).items():
        lines.append(f"    heuristic {name[1:]} fired: {count}")
    lines += outcomes_line(counts[OUTCOMES_CARRIED])
    if result["manifest"]["dataset"] == DATASET_QUESTIONS:
        lines.append("  stopped after question selection (--stop-after questions)")
        lines += questions_summary_lines(result["stats"])
        lines.append(dead_letter_line(raw))
        return "\n".join(lines + empty_release_warning(result["manifest"]))
    lines += refresh_lines(result["manifest"], result["stats"])
    for stage in (LINKING, PAGES, EXAMPLES):
        for name, count in counts.fired(stage).items():
            lines.append(f"  {summary_label(stage, name)}: {count}")
    share = result["stats"]["wikipedia_in_top5_share"]
    lines.append(f"  questions with a Wikipedia page in the top 5{this_run(result['stats'])}: "
                 f"{'-' if share is None else f'{share:.1%}'}")
    lines += floor_lines(result["manifest"], result["stats"])
    lines.append(dead_letter_line(raw))
    for split, rows in rows_in_split_order(result["manifest"]):
        lines.append(f"  examples in {split}: {rows}")
    return "\n".join(lines + empty_release_warning(result["manifest"]))


SPEC = DatasetSpec(
    name="nq",
    module="build_nq",
    version=DATASET_VERSION,
    about="Natural Questions-style data from search-query logs and Wikipedia",
    description="Build Natural Questions-style data from search-query logs in two stages. "
                "Stage 1 (NQ §3.1) selects the questions: normalized queries issued by enough "
                "users within a window, 8 or more tokens, NQ's heuristics 1-5 (--stop-after "
                "questions publishes them as the release nq_questions). Stage 2 (NQ §3.1, "
                "§4.1) searches for each question, takes the top-ranked Wikipedia page among "
                "the top 5, fetches it and writes NQ examples with its tokens and long-answer "
                "candidates: the release nq, in the NQ original format and as Parquet. Any "
                "other --option is passed to Apache Beam.",
    options=NqOptions,
    releases=(EXAMPLES_RELEASE, QUESTIONS_RELEASE),
    counters=COUNTERS,
    plan=plan,
    transform=BuildNq,
    summary=summary,
    output_label="nq or nq_questions",
    extra_releases=(ANNOTATED_RELEASE,),
    refresh=RefreshRule(UNIT, published_key),
)
