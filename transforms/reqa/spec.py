"""ReQA sentence-retrieval sets (Ahmad, Constant, Yang, Cer 2019), declared once
(``transforms.core.spec``).

Every paragraph of SQuAD v1.1, Natural Questions (original format) or an NLQuAD release is
split into sentences; the answer index holds each sentence with its paragraph as context, and
a question's correct answers are the sentences its answer span overlaps. ``--source`` picks
the input and the release: ``reqa_squad``, ``reqa_nq`` or ``reqa_nlquad``, each with the two
tables ``questions`` and ``candidates``.

Writes ``<output>/reqa_<source>/<version>/``: ``questions/*.parquet`` (qid, question,
correct_candidate_ids, source, document, example_ids), ``candidates/*.parquet``
(candidate_id, sentence, context, paragraph_id, document, source, sentence_start,
sentence_end), ``rejected/`` (dropped examples with their reason, dead letters),
``stats.json`` (with BM25 baselines over every question at sentence and paragraph level),
a card and the manifest. ``--splitter reqa`` uses the paper's own sentence rules instead of
spaCy's ``senter``; ``--source nlquad`` needs ``--input`` (an NLQuAD release directory or
Parquet glob).

``--previous`` reuses the sentences of every paragraph the previous release indexed and
carries each row whose values did not change (``transforms.reqa.refresh``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from transforms.core.errors import UsageError
from transforms.core.inputs import require_inputs
from transforms.core.options import (
    ReleaseOptions,
    max_decoded_option,
    mib_to_bytes,
    option,
    positive_int,
)
from transforms.core.spec import DatasetSpec, Plan, RefreshRule, ReleaseKind, TableInvariants
from transforms.core.summary import dead_letter_line, empty_release_warning
from transforms.release import (
    HistogramFn,
    ReleaseTarget,
    WriteAccounting,
    WriteShards,
    list_files,
    parquet_bytes,
    require_intact,
    write_bytes,
)
from transforms.release.formats import shard_name
from transforms.release.invariant_spans import char_span
from transforms.release.refresh.counters import INPUTS_CARRIED
from transforms.reqa.baselines import reqa_baselines
from transforms.reqa.build import BuildReqa
from transforms.reqa.card import SOURCE_NAMES, reqa_card_for, reqa_stats, summary_value
from transforms.reqa.counters import COUNTERS
from transforms.reqa.inputs import input_simulated, release_of, resolve_input
from transforms.reqa.labeling import SPLITTERS
from transforms.reqa.refresh import UNIT, CarrySameRows, ReadPreviousReqa, row_key
from transforms.reqa.schema import (
    CANDIDATES_SCHEMA,
    FIELD_DOCS,
    QUESTIONS_SCHEMA,
    RELEASE_SCHEMA,
    SOURCES,
)
from transforms.sources.compressed import DEFAULT_MAX_DECODED_BYTES, MIB

DATASET_PREFIX = "reqa_"
DATASET_VERSION = "1.0.0"
NQ_MAX_DECODED_MIB = 16 * 1024  # per NQ file, streamed: memory holds one line
OTHER_MAX_DECODED_MIB = DEFAULT_MAX_DECODED_BYTES / MIB  # per SQuAD file, read whole
QUESTIONS, CANDIDATES = "questions", "candidates"
GROUPS = (QUESTIONS, CANDIDATES)
SCHEMAS = {QUESTIONS: QUESTIONS_SCHEMA, CANDIDATES: CANDIDATES_SCHEMA}
RENDERER = EVALUATOR = "reqa"  # transforms.browse.renderers.reqa, python -m pipelines.evaluate


@dataclass(frozen=True)
class _Input:
    """What is read (listed before the release options, as ``--help`` has always shown)."""

    source: str = option("squad", "input format: squad (SQuAD v1.1 JSON, default), nq (NQ "
                                  "original-format JSON lines) or nlquad (NLQuAD release "
                                  "Parquet)", choices=SOURCES)
    input: str | None = option(None, "glob of input files, or a release directory (nq: "
                                     "<release>/nq_original/<split>/*.jsonl.gz; nlquad: "
                                     "<release>/<split>/*.parquet; a dataset directory with "
                                     "LATEST means that version); default: the bundled sample "
                                     "of squad and nq; required for nlquad", rows=False)
    no_verify: bool = option(False, "with a release as --input, do not check it against its "
                                    "manifest first (a damaged release is refused, exit 5)",
                             flag=True, rows=False)
    split: str = option("", "with a release directory as --input: read only this split "
                            "(default: every split)", rows=False)


@dataclass(frozen=True)
class ReqaOptions(ReleaseOptions, _Input):
    """``python -m pipelines.build_reqa`` options."""

    splitter: str = option("senter", "sentence splitter: senter (spaCy en_core_web_sm's "
                                     "statistical senter, default) or reqa (the ReQA paper's "
                                     "regular-expression rules, sb_sed.py of "
                                     "google/retrieval-qa-eval: rebuilds ReQA SQuAD as "
                                     "published, e.g. 10,250 candidates on SQuAD v1.1 dev)",
                           choices=SPLITTERS)
    batch_size: int = option(64, "paragraphs' tasks per spaCy batch", parse=positive_int,
                             rows=False)
    max_rows_per_shard: int = option(50_000, "Parquet rows per shard file", parse=positive_int,
                                     rows=False)
    max_decoded_mib: float | None = max_decoded_option(
        None, "input file",
        f"{NQ_MAX_DECODED_MIB} for --source nq, whose files are streamed a line at a time and "
        f"an official NQ train file decodes to several GiB; {OTHER_MAX_DECODED_MIB:g} for "
        "squad, read whole")


@dataclass(frozen=True)
class ReqaContext:
    """What the job needs that is decided before it: the file glob ``--input`` resolves to."""

    pattern: str


def dataset_name(source: str) -> str:
    """The release a ``--source`` writes: ``reqa_<source>``."""
    return DATASET_PREFIX + source


# a question and a candidate once each, every correct candidate of a question published; a
# candidate is the sentence at its offsets
INVARIANTS = (
    TableInvariants("questions", id_column="qid", references=(
        ("correct_candidate_ids", "candidates", "candidate_id"),)),
    TableInvariants("candidates", id_column="candidate_id", spans=(
        char_span("context", "sentence_start", "sentence_end", "sentence"),)),
)


def _release(source: str) -> ReleaseKind:
    return ReleaseKind(
        dataset_name(source),
        f"ReQA sentence-level answer retrieval set from {SOURCE_NAMES[source]}",
        schema=RELEASE_SCHEMA, field_docs=FIELD_DOCS, make_stats=reqa_stats,
        make_card=reqa_card_for(source), baselines=reqa_baselines, renderer=RENDERER,
        evaluator=EVALUATOR, invariants=INVARIANTS)


RELEASES = {source: _release(source) for source in SOURCES}


def default_max_decoded_mib(source: str) -> float:
    """``--max-decoded-mib`` when not given: NQ files are streamed, others read whole."""
    return NQ_MAX_DECODED_MIB if source == "nq" else OTHER_MAX_DECODED_MIB


def plan(options: ReqaOptions) -> Plan[ReqaOptions]:
    """``--input`` resolved to a file glob that must match (``Plan.context``); a release
    given as ``--input`` is verified against its manifest unless ``--no-verify``, and its
    simulated-annotations record, if any, is carried (``Plan.simulated``); the
    ``--max-decoded-mib`` default of the source (the manifest records the option as given)."""
    for name, value, choices in (("source", options.source, SOURCES),
                                 ("splitter", options.splitter, SPLITTERS)):
        if value not in choices:  # the parser checks them; typed options may not have been
            raise UsageError(f"--{name} {value!r} is not one of {', '.join(choices)}")
    if options.batch_size < 1:
        raise UsageError("--batch-size must be at least 1")
    try:
        pattern = resolve_input(options.source, options.input, options.split)
    except ValueError as error:  # also a LATEST naming no sibling version
        raise UsageError(str(error)) from None
    require_inputs([pattern])
    release = release_of(options.input)
    if release and not options.no_verify:
        require_intact(release)
    simulated = input_simulated(release) if release else None
    resolved = replace(options, max_decoded_mib=default_max_decoded_mib(options.source)
                       if options.max_decoded_mib is None else options.max_decoded_mib)
    return Plan(resolved, RELEASES[options.source], GROUPS,
                source_description(options, pattern),
                recorded={"max_decoded_mib": options.max_decoded_mib},
                before_publish=ensure_groups, context=ReqaContext(pattern),
                simulated=simulated)


def source_description(options: ReqaOptions, pattern: str) -> dict[str, Any]:
    """The manifest's ``source``: the kind, what was read and the split."""
    origin = "the bundled sample" if not options.input else options.input
    return {"kind": options.source,
            "description": f"{SOURCE_NAMES[options.source]}, {origin} ({pattern})",
            "pattern": pattern, "split": options.split or "all"}


def ensure_groups(target: ReleaseTarget) -> None:
    """A zero-row file with the group's own schema for a group that got no rows."""
    present = {p.split("/")[0] for p in list_files(target.staging_dir)}
    for group in GROUPS:
        if group not in present:
            write_bytes(FileSystems.join(target.staging_dir, group,
                                         shard_name(group, 0, 1, "parquet")),
                        parquet_bytes([], SCHEMAS[group]))


class BuildReqaRelease(beam.PTransform):
    """Input examples -> ReQA questions and candidates shards, the dropped examples, the
    statistics and the accounting, all staged in ``target``."""

    def __init__(self, plan: Plan[ReqaOptions], target: ReleaseTarget):
        super().__init__()
        self.options, self.context, self.target = plan.options, plan.context, target
        self.previous = plan.previous

    def expand(self, pbegin):
        options, staging = self.options, self.target.staging_dir
        previous_rows, known = {}, None
        if self.previous is not None:
            previous_rows, known = pbegin | "Previous" >> ReadPreviousReqa(
                self.previous, CANDIDATES, sentences=not options.recompute_all)
        questions, candidates, statistics, results = pbegin | "Reqa" >> BuildReqa(
            options.source, self.context.pattern, options.batch_size, options.splitter,
            mib_to_bytes(options.max_decoded_mib), known_sentences=known)
        if self.previous is not None:
            questions, carried_questions = questions | "CarryQuestions" >> CarrySameRows(
                previous_rows[QUESTIONS], options.recompute_all)
            candidates, carried_candidates = candidates | "CarryCandidates" >> CarrySameRows(
                previous_rows[CANDIDATES], options.recompute_all)
            results = [*results, carried_questions, carried_candidates]
        max_rows = options.max_rows_per_shard
        written = [
            questions
            | "KeyQuestions" >> beam.Map(lambda row: (QUESTIONS, row))
            | "WriteQuestions" >> WriteShards(
                staging, lambda row: f"{row['question']}\x00{row['qid']}", parquet_bytes,
                "parquet", QUESTIONS_SCHEMA, max_rows),
            candidates
            | "KeyCandidates" >> beam.Map(lambda row: (CANDIDATES, row))
            | "WriteCandidates" >> WriteShards(
                staging, lambda row: f"{row['document']}\x00{row['paragraph_id']}\x00"
                                     f"{row['sentence_start']:010d}\x00{row['candidate_id']}",
                parquet_bytes, "parquet", CANDIDATES_SCHEMA, max_rows),
        ]
        histograms = statistics | "Histograms" >> beam.CombinePerKey(HistogramFn())
        written.append(pbegin | "Accounting" >> WriteAccounting(staging, results, histograms))
        return tuple(written)


def summary(result: dict[str, Any]) -> str:
    """The lines ``build_reqa`` prints after a run."""
    stats, manifest = result["stats"], result["manifest"]
    examples = stats["examples"]
    lengths = stats["lengths"]
    lines = [
        f"{manifest['dataset']} {manifest['version']} written to {result['path']}",
        f"  input examples:        {examples['read']}",
        f"  kept:                  {examples['kept']}",
    ]
    for reason, count in stats["drop_reasons"].items():
        lines.append(f"  dropped, {reason}: {count}")
    lines += [
        f"  malformed:             {examples['malformed']} (see rejected/dead_letter/)",
        dead_letter_line(stats["counts"]),
        f"  questions:             {stats['questions']}",
        f"  candidate sentences:   {stats['candidates']}",
        f"  paragraphs:            {stats['paragraphs']}",
        f"  sentences/paragraph:   {summary_value(lengths, 'sentences_per_paragraph')}",
        f"  correct/question:      {summary_value(lengths, 'correct_per_question')}",
    ]
    refresh = stats.get("refresh")
    if refresh and not refresh["recompute_all"]:
        lines.append(f"  refresh:               sentences of {refresh[INPUTS_CARRIED.name]} "
                     f"paragraphs reused, not split again; every example labeled again")
    return "\n".join(lines + empty_release_warning(manifest))


SPEC = DatasetSpec(
    name="reqa",
    module="build_reqa",
    version=DATASET_VERSION,
    about="a ReQA sentence-retrieval set from SQuAD, NQ or NLQuAD",
    description="Build a ReQA sentence-level answer retrieval set (questions and candidate "
                "sentences with their paragraph) from SQuAD v1.1, Natural Questions or an "
                "NLQuAD release. Any other --option is passed to Beam.",
    options=ReqaOptions,
    releases=tuple(RELEASES.values()),
    counters=COUNTERS,
    plan=plan,
    transform=BuildReqaRelease,
    summary=summary,
    output_label="reqa_<source>",
    refresh=RefreshRule(UNIT, row_key),
)
