"""Japanese Natural Questions (JNQ) and JBoolQ from Japanese search-query logs, declared once
(``transforms.core.spec``).

Uematsu, Wang, Kawahara, Shibata, "A Benchmark Suite of Japanese Natural Questions": queries
without spaces, of 8+ words (fugashi/unidic-lite), matching pattern 1 (topic "は" + an
interrogative), 2 (final "?") or 3 (意味/方法/理由...) — or, for JBoolQ, more than six words
ending with "?" or "か" — are searched; the top-ranked ja.wikipedia.org article among the top 5
is the document; its first paragraph and the 4 paragraphs most similar to the search snippet
are the long-answer candidates. The release is ``--variant`` (``jnq`` or ``jboolq``), or
``<variant>_questions`` with ``--stop-after questions``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import apache_beam as beam

from filters.text.splits import assign_split
from transforms.core.accounting import SIDE_OUTPUTS
from transforms.core.counters import Counts
from transforms.core.inputs import require_inputs
from transforms.core.options import ReleaseOptions, option, split_ratios_option
from transforms.core.progress import ShowProgress
from transforms.core.samples import sample_path
from transforms.core.spec import (
    SPLIT,
    DatasetSpec,
    Plan,
    RefreshRule,
    ReleaseKind,
    TableInvariants,
)
from transforms.core.summary import dead_letter_line, empty_release_warning
from transforms.jnq.card import jnq_card_for, jnq_dev_baselines, jnq_stats
from transforms.jnq.counters import COUNTERS, NO_PARAGRAPHS_REASON, PATTERNS
from transforms.jnq.labels import SHORT_ANSWER_TYPES
from transforms.jnq.schema import (
    EXAMPLE_SCHEMA,
    FIELD_DOCS,
    QUESTION_SCHEMA,
    REJECTED_QUERY_SCHEMA,
)
from transforms.jnq.stages import (
    REJECTED_QUERIES,
    BuildJnqExamples,
    SelectJapaneseQuestions,
    key_by_ja_query,
)
from transforms.jnq.training_tables import BOOLQ, SQUAD_V2
from transforms.nq.counters import (
    ACCEPTED,
    DISTINCT,
    EXAMPLES,
    LASTING_DROPS,
    LINKING,
    LOG_MALFORMED_ROWS,
    LOG_ROWS,
    PAGES,
    REJECTED,
)
from transforms.nq.linking import LinkAndFetch, summary_label
from transforms.nq.linking_options import (
    LinkingOptions,
    ResolvedLinking,
    backend_options,
    lang_option,
    linking_endpoints,
    linking_option,
    recorded_of,
    resolve_linking,
    source_of,
)
from transforms.nq.questions import IssuedByUsers
from transforms.nq.refresh import (
    UNIT,
    LinkingRefresh,
    check_refresh_options,
    published_key,
    question_carry,
    question_key,
    refresh_note,
)
from transforms.nq.refresh_text import questions_summary_lines
from transforms.nq.refresh_text import summary_lines as refresh_lines
from transforms.release import (
    HistogramFn,
    ReleaseTarget,
    WriteAccounting,
    WriteShards,
    parquet_bytes,
    rows_in_split_order,
)
from transforms.release.invariant_spans import (
    paragraph_spans,
    squad_answers,
    variant_selection,
)
from transforms.sources.query_log_options import (
    QueryLogOptions,
    input_option,
    log_fields,
    min_users_option,
    reader_options,
)

DATASET_VERSION = "1.0.0"
VARIANTS = ("jnq", "jboolq")
QUESTIONS = "questions"
JNQ_SPLITS = "train=0.8,dev=0.1,test=0.1"


@dataclass(frozen=True)
class _Selection:
    """Question selection options (listed after the query-log options, as ``--help`` has
    always shown them)."""

    variant: str = option("jnq", "jnq (patterns 1-3) or jboolq (yes/no questions)",
                          choices=VARIANTS)
    count_symbols: bool = option(False, "count punctuation and symbols as words (default: "
                                        "they do not)", flag=True)
    extended_keywords: bool = option(False, "pattern 3 also accepts the documented extended "
                                            "keyword set", flag=True)
    keep_rejected: bool = option(False, "also write rejected queries with reasons to "
                                        "rejected/queries/", flag=True, rows=False)
    stop_after: str = option("examples", "questions: write only the accepted questions "
                                         "(release <variant>_questions); examples (default): "
                                         "link and select paragraphs (release <variant>)",
                             choices=(QUESTIONS, "examples"))


@dataclass(frozen=True)
class JnqOptions(LinkingOptions, ReleaseOptions, _Selection, QueryLogOptions):
    """``python -m pipelines.build_jnq`` options."""

    input: str = input_option(sample_path("jnq", "query_log.tsv"))
    min_users: int = min_users_option(1)
    lang: str = lang_option("ja")
    split_ratios: tuple = linking_option(split_ratios_option(JNQ_SPLITS),
                                         "split names and ratios", parse=split_ratios_option,
                                         cli_default=JNQ_SPLITS)
    split_salt: str = linking_option("jnq", "salt of the split hash of the normalized question")


@dataclass(frozen=True)
class JnqContext:
    """What the job needs that is decided before it: the resolved linking (page source,
    index directory)."""

    linking: ResolvedLinking


# an example's split is hashed from its question: one question, one split, in every table
EXAMPLE_INVARIANTS = (TableInvariants(id_column="id", group_key="question",
                                      spans=(variant_selection(),)),)
ANNOTATED_INVARIANTS = (
    TableInvariants(id_column="id", group_key="question",
                    spans=(variant_selection(),
                           paragraph_spans(SHORT_ANSWER_TYPES.index("span")))),
    TableInvariants(f"{SQUAD_V2}/{SPLIT}", id_column="id", group_key="question",
                    spans=(squad_answers("context", "answers"),)),
    TableInvariants(f"{BOOLQ}/{SPLIT}", id_column="id", group_key="question"),
)


def _examples_release(variant: str) -> ReleaseKind:
    return ReleaseKind(variant, f"{variant} examples: Japanese questions with a ja.wikipedia.org "
                                "article, its paragraphs and five candidate paragraphs",
                       schema=EXAMPLE_SCHEMA, field_docs=FIELD_DOCS, make_stats=jnq_stats,
                       make_card=jnq_card_for(variant), baselines=jnq_dev_baselines,
                       renderer="jnq", evaluator="jnq", invariants=EXAMPLE_INVARIANTS)


def _questions_release(variant: str) -> ReleaseKind:
    return ReleaseKind(f"{variant}_{QUESTIONS}",
                       f"{variant} question selection: the accepted Japanese questions",
                       schema=QUESTION_SCHEMA, field_docs=FIELD_DOCS, make_stats=jnq_stats,
                       make_card=jnq_card_for(variant),
                       invariants=(TableInvariants(QUESTIONS, id_column="question",
                                                   spans=(variant_selection(),)),))


def _annotated_release(variant: str) -> ReleaseKind:
    return ReleaseKind(f"{variant}_annotated", f"{variant} examples with crowd judgments "
                                               "(python -m pipelines.annotate import)",
                       renderer="jnq", evaluator="jnq", invariants=ANNOTATED_INVARIANTS)


EXAMPLES_RELEASES = {variant: _examples_release(variant) for variant in VARIANTS}
QUESTIONS_RELEASES = {variant: _questions_release(variant) for variant in VARIANTS}


def plan(options: JnqOptions) -> Plan[JnqOptions]:
    """The logs must exist; the linking options are resolved (``--pages``, the bundled
    index) for the examples; the refresh options are checked (``transforms.nq.refresh``)."""
    questions_only = options.stop_after == QUESTIONS
    options = check_refresh_options(options, questions_only)
    require_inputs([options.input])
    linking = resolve_linking(options, needs_index=not questions_only)
    source = {"kind": "query_log", "description": f"query logs matching {options.input}",
              **source_of(linking), "lang": options.lang}
    recorded = {**recorded_of(linking), "split_ratios": dict(options.split_ratios)}
    note = refresh_note(options, questions_only)
    if questions_only:
        return Plan(options, QUESTIONS_RELEASES[options.variant], (QUESTIONS,), source,
                    recorded, context=JnqContext(linking), refresh_note=note)
    return Plan(options, EXAMPLES_RELEASES[options.variant],
                tuple(name for name, _ in options.split_ratios), source, recorded,
                context=JnqContext(linking), refresh_note=note,
                endpoints=linking_endpoints(options, linking))


class BuildJnq(beam.PTransform):
    """Query logs -> Japanese questions -> (unless ``--stop-after questions``) linked
    examples with paragraph candidates, the rejected queries (``--keep-rejected``) and the
    accounting, all staged in ``target``."""

    def __init__(self, plan: Plan[JnqOptions], target: ReleaseTarget):
        super().__init__()
        self.plan = plan
        self.options, self.context, self.target = plan.options, plan.context, target

    def expand(self, pbegin):
        options, staging = self.options, self.target.staging_dir
        by_users, results = pbegin | "Users" >> IssuedByUsers(
            options.input, log_fields(options), options.format, key_by_ja_query,
            options.min_users, options.window, options.keep_rejected,
            **reader_options(options))
        selected = (by_users.main
                    | "Progress" >> ShowProgress("queries aggregated")
                    | "Select" >> beam.ParDo(SelectJapaneseQuestions(
                        options.variant, options.count_symbols, options.extended_keywords,
                        options.keep_rejected))
                    .with_outputs(*SIDE_OUTPUTS, REJECTED_QUERIES, main="main"))
        questions = selected.main
        results = [*results, by_users, selected]
        lengths = questions | "Words" >> beam.Map(
            lambda row: ("all/question_words", row["words"]))
        written = []
        if options.keep_rejected:
            too_few_users = by_users[REJECTED_QUERIES] | "AsQuestionRows" >> beam.Map(
                _from_nq_row, options.variant)
            written.append((too_few_users, selected[REJECTED_QUERIES])
                           | "RejectedQueries" >> beam.Flatten()
                           | "KeyRejected" >> beam.Map(lambda row: ("queries", row))
                           | "WriteRejected" >> WriteShards(
                               staging, lambda r: r["question"], parquet_bytes, "parquet",
                               REJECTED_QUERY_SCHEMA, subdir="rejected"))
        if options.stop_after == QUESTIONS:
            carry = question_carry(pbegin, self.plan)
            rows, refresh_results = carry.finish(
                carry.fresh(questions, question_key)
                | "KeyQuestions" >> beam.Map(lambda row: (QUESTIONS, row)))
            written.append(rows | "WriteQuestions" >> WriteShards(
                staging, question_key, parquet_bytes, "parquet", QUESTION_SCHEMA))
            results += refresh_results
            page_stats = []
        else:
            refresh = LinkingRefresh(pbegin, self.plan, original=False,
                                     lasting=LASTING_DROPS | {NO_PARAGRAPHS_REASON})
            pairs, linked = (refresh.to_link(questions)
                             | "LinkProgress" >> ShowProgress("questions linked")
                             | "LinkAndFetch" >> LinkAndFetch(
                                 backend_options(options, self.context.linking),
                                 options.lang, options.shards))
            built = (pairs
                     | "Paragraphs" >> beam.ParDo(BuildJnqExamples())
                     .with_outputs(*SIDE_OUTPUTS, main="main"))
            salt, ratios = options.split_salt, options.split_ratios
            rows, refresh_results = refresh.finish(built.main | "Split" >> beam.Map(
                lambda row: (assign_split(row["question"], salt, ratios), row)))
            results += [*linked, built, *refresh_results]
            written.append(rows | "WriteExamples" >> WriteShards(
                staging, question_key, parquet_bytes, "parquet", EXAMPLE_SCHEMA))
            page_stats = [rows | "ParagraphCounts" >> beam.MapTuple(
                lambda _, row: ("all/paragraphs_per_document", len(row["paragraphs"])))]
        histograms = ((lengths, *page_stats)
                      | "AllLengths" >> beam.Flatten()
                      | "Histograms" >> beam.CombinePerKey(HistogramFn()))
        written.append(pbegin | "Accounting" >> WriteAccounting(staging, results, histograms))
        return tuple(written)


def _from_nq_row(row: dict[str, Any], variant: str) -> dict[str, Any]:
    """A row rejected by the users/window rule, in the JNQ question layout."""
    return {"question": row["question"], "variant": variant, "variants": row["variants"],
            "events": row["events"], "users_in_window": row["users_in_window"],
            "distinct_users": row["distinct_users"], "words": 0, "patterns": [],
            "reason": row["reason"]}


def summary(result: dict[str, Any]) -> str:
    """The lines ``build_jnq`` prints after a run."""
    raw = result["stats"]["counts"]
    counts = Counts(raw, COUNTERS)
    lines = [f"{result['manifest']['dataset']} {result['manifest']['version']} written to "
             f"{result['path']}",
             f"  log rows read:      {counts[LOG_ROWS]}",
             f"  malformed rows:     {counts[LOG_MALFORMED_ROWS]}",
             f"  distinct queries:   {counts[DISTINCT]}"]
    lines += [f"  rejected, {k}: {v}" for k, v in counts.family(REJECTED).items()]
    lines.append(f"  accepted questions: {counts[ACCEPTED]}")
    lines += [f"    pattern {k[1:]}: {v}" for k, v in counts.fired(PATTERNS).items()]
    if result["manifest"]["dataset"].endswith(f"_{QUESTIONS}"):
        lines += questions_summary_lines(result["stats"])
    else:
        lines += refresh_lines(result["manifest"], result["stats"])
    for stage in (LINKING, PAGES, EXAMPLES):
        lines += [f"  {summary_label(stage, k)}: {v}"
                  for k, v in counts.fired(stage).items()]
    lines.append(dead_letter_line(raw, width=20))
    lines += [f"  rows in {split}: {n}" for split, n in rows_in_split_order(result["manifest"])]
    return "\n".join(lines + empty_release_warning(result["manifest"]))


SPEC = DatasetSpec(
    name="jnq",
    module="build_jnq",
    version=DATASET_VERSION,
    about="Japanese Natural Questions (JNQ) or JBoolQ from Japanese query logs",
    description="Build JNQ or JBoolQ from Japanese search-query logs. Any other --option is "
                "passed to Apache Beam.",
    options=JnqOptions,
    releases=(*EXAMPLES_RELEASES.values(), *QUESTIONS_RELEASES.values()),
    counters=COUNTERS,
    plan=plan,
    transform=BuildJnq,
    summary=summary,
    output_label="jnq, jboolq, jnq_questions or jboolq_questions",
    extra_releases=tuple(_annotated_release(variant) for variant in VARIANTS),
    refresh=RefreshRule(UNIT, published_key),
)
