"""What an annotated release adds when it is published: quality figures, baselines, the card.

The figures are the papers' own (NQ §3.3 and §4.4; JNQ Tables 1-3) plus Fleiss' kappa per
annotation stage and each worker's agreement with the aggregate, so spammers stand out. They
are computed from the release's ``votes/`` table (one row per judgment: small even at NQ scale)
and, for JNQ, the annotated rows.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import replace
from functools import partial
from typing import Any

from transforms.annotation import suggestion_agreement as suggested
from transforms.annotation.carry_report import STATS_KEY, carried_card_lines, carried_stats
from transforms.annotation.counters import CARRIED_VOTES, COUNTERS, EXAMPLES, SIMULATED, VOTES
from transforms.annotation.judgment_counts import STOP_KEY, judgment_card_lines
from transforms.annotation.worker_table import CARD_LINES as WORKER_CARD_LINES
from transforms.core.counters import Counts
from transforms.jnq.card import JBOOLQ_INFO, JNQ_INFO
from transforms.jnq.labels import as_names
from transforms.jnq.training_tables import TRAINING_STATS_KEY, training_stats
from transforms.jnq.training_tables import card_lines as training_card_lines
from transforms.metrics.agreement import fleiss_kappa, worker_agreement
from transforms.metrics.annotation_quality import jnq_quality, nq_quality, quality_tables_markdown
from transforms.metrics.jnq import jnq_metrics
from transforms.nq.card import NQ_INFO
from transforms.nq.simplified import CARD_LINE as SIMPLIFIED_CARD_LINE
from transforms.release import (
    CardInfo,
    DatasetCard,
    baseline_table,
    group_tallies,
    length_statistics,
    md_text,
    read_group_rows,
)
from transforms.release.card import CROWDSOURCED
from transforms.release.citations import NOT_ANNOTATED
from transforms.release.simulated import NOTE_HEADING

SIMULATED_NOTE = (f"{NOTE_HEADING} The votes of this release were written by "
                  "`python -m pipelines.annotate simulate` (a seeded synthetic worker pool), "
                  "not by people: use it to test a pipeline, never to train or evaluate a model.")


def _by_item(rows: Iterable[dict[str, Any]], key: str) -> dict[str, list[dict[str, Any]]]:
    items: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        items[row[key]].append(row)
    return dict(sorted(items.items()))


def _kappa(items: dict[str, list[dict]], label) -> float | None:
    labels = [[label(row) for row in rows] for rows in items.values() if len(rows) > 1]
    value = fleiss_kappa(labels)
    return None if value is None else round(value, 4)


def _mode(values: list[Any]) -> Any:
    counts = Counter(values)
    return min(counts, key=lambda v: (-counts[v], str(v)))


def nq_annotation_figures(votes: list[dict[str, Any]]) -> dict[str, Any]:
    """Quality, kappa per stage and worker agreement of NQ judgments (``votes/`` rows)."""
    items = _by_item(votes, "example_id")
    examples = [{"annotations": [{
        "long_answer": {"candidate_index": row["long_answer_candidate"],
                        "start_token": row["long_answer_candidate"],
                        "end_token": row["long_answer_candidate"]},
        "long_answer_type": row["long_answer_type"],
        "short_answers": [{}] * row["short_answers"],
        "yes_no_answer": row["yes_no_answer"]} for row in rows]} for rows in items.values()]
    multi = {k: rows for k, rows in items.items() if len(rows) > 1}
    aggregate = {k: _mode([r["long_answer_candidate"] for r in rows]) for k, rows in multi.items()}
    judgments = [(row["annotator_id"], row["example_id"], row["long_answer_candidate"])
                 for rows in multi.values() for row in rows]
    return {
        "quality": nq_quality(examples),
        "fleiss_kappa": {
            "question_good": _kappa(items, lambda r: r["question_good"]),
            "long_answer": _kappa(items, lambda r: r["long_answer_candidate"]),
            "has_long_answer": _kappa(items, lambda r: r["long_answer_candidate"] >= 0),
            "yes_no_answer": _kappa(items, lambda r: r["yes_no_answer"]),
        },
        "worker_agreement": worker_agreement(judgments, aggregate),
    }


def jnq_annotation_figures(votes: list[dict[str, Any]], rows: list[dict[str, Any]]
                           ) -> dict[str, Any]:
    """Quality (JNQ Tables 1-3), kappa per stage and worker agreement of JNQ judgments."""
    per_stage: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for vote in votes:
        item = f"{vote['question_id']}/{vote['paragraph']}"
        per_stage[vote["stage"]][item].append(vote)
    kappa = {stage: _kappa(dict(items), lambda r: r["value"])
             for stage, items in sorted(per_stage.items())}
    labels = {f"{row['id']}/{a['paragraph_id']}": "true" if a["label"] == "EXIST" else "false"
              for row in rows for a in row["annotations"]}
    judgments = [(v["annotator_id"], f"{v['question_id']}/{v['paragraph']}", v["value"])
                 for v in votes if v["stage"] == "long_answer"]
    return {"quality": jnq_quality(rows), "fleiss_kappa": kappa,
            "worker_agreement": worker_agreement(judgments, labels)}


def annotation_stats(base: str, staging_dir: str, splits: list[str],
                     tallies: dict[str, int], histograms: dict,
                     carried_from: dict[str, Any] | None = None,
                     recompute_all: bool = False, carried_simulated: bool = False,
                     suggestions: dict[str, Any] | None = None,
                     stop: dict[str, Any] | None = None) -> dict[str, Any]:
    """``stats.json`` of an annotated release. ``carried_from``: the previous annotated
    release (``--previous``), whose carried annotations ``stats["annotations"]`` describes;
    ``carried_simulated``: its votes were simulated, so the carried ones count as such;
    ``suggestions``: the export's (``suggestion_agreement``), compared with the decisions;
    ``stop``: the confident rule the rounds were stopped by (``StopRule.describe``)."""
    votes = [row for split in splits for row in read_group_rows(staging_dir, f"votes/{split}")]
    counts = group_tallies(tallies)
    rows: list[dict[str, Any]] = []
    if base == "nq":
        figures = nq_annotation_figures(votes)
    else:
        rows = [as_names(row) for split in splits for row in read_group_rows(staging_dir, split)]
        figures = jnq_annotation_figures([as_names(vote) for vote in votes], rows)
    read = Counts(counts, COUNTERS)
    simulated = read[SIMULATED] + (read[CARRIED_VOTES] if carried_simulated else 0)
    stats = {"counts": counts, "lengths": length_statistics(histograms),
             "simulated_votes": simulated, **figures}
    if carried_from is not None:
        stats[STATS_KEY] = carried_stats(counts, carried_from, recompute_all)
    if suggestions is not None:
        stats[suggested.STATS_KEY] = suggested.suggestion_agreement(base, suggestions, votes, rows)
    if stop is not None:
        stats[STOP_KEY] = stop
    trained = training_stats(base, splits, lambda split: map(
        as_names, read_group_rows(staging_dir, split)))
    if trained is not None:
        stats[TRAINING_STATS_KEY] = trained
    return stats


def jnq_baselines(staging_dir: str, split: str = "dev") -> dict[str, Any]:
    """First-paragraph and top-snippet-similarity predictions scored against the EXIST
    paragraphs of the annotated split (JNQ §5's paragraph-level F1)."""
    rows = read_group_rows(staging_dir, split)
    gold = {row["id"]: row["gold_paragraph_ids"] for row in rows}
    table = {"split": split, "n": len(rows), "metrics": ["micro_f1", "macro_f1"], "rows": []}
    if not rows:
        return {**table, "note": f"no annotated questions in {split}"}
    for name, rank in (("first paragraph", 0), ("most snippet-similar paragraph", 1)):
        predictions = {}
        for row in rows:
            ranked = dict(zip(row["candidate_ranks"], row["candidate_paragraph_ids"],
                              strict=False))
            predictions[row["id"]] = [ranked[rank]] if rank in ranked else []
        scores = jnq_metrics(gold, predictions)
        table["rows"].append({"name": name, "micro_f1": scores["micro_f1"],
                              "macro_f1": scores["macro_f1"]})
    return table


def _agreement_lines(stats: dict[str, Any], limit: int = 10) -> list[str]:
    workers = stats["worker_agreement"]
    ranked = sorted(((w, f) for w, f in workers.items() if f.get("agreement") is not None),
                    key=lambda item: (item[1]["agreement"], item[0]))
    lines = ["## Agreement", "", "| stage | Fleiss' kappa |", "|---|---|"]
    lines += [f"| {stage} | {'-' if k is None else k} |"
              for stage, k in stats["fleiss_kappa"].items()]
    lines += ["", f"Workers with the lowest agreement with the aggregate (of {len(workers)}; "
              "all in `stats.json`):", "", "| worker | judgments compared | agreement |",
              "|---|---|---|"]
    lines += [f"| {w} | {f['compared']} | {f['agreement']:.2f} |" for w, f in ranked[:limit]]
    return lines + [""]


def annotation_card(base: str, manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    """The data card of an annotated release."""
    counts = stats["counts"]
    annotates = manifest["source"]["annotates"]
    examples, votes = counts.get(EXAMPLES, {}), counts.get(VOTES, {})
    paper = ("Natural Questions (Kwiatkowski et al. 2019): each annotator's judgment is one "
             "entry of `annotations` (§3.2); train 1-way, dev/test 5-way (§5)"
             if base == "nq" else
             "the JNQ benchmark suite (Uematsu, Wang, Kawahara, Shibata): thresholds of "
             "§3.2-3.5 over 10 workers" + (" in JBoolQ's order (§4)" if base == "jboolq"
                                           else ""))
    lines = [f"# {md_text(manifest['dataset'])} version {md_text(manifest['version'])}", ""]
    if stats.get("simulated_votes"):
        lines += [SIMULATED_NOTE, ""]
    lines += [
        f"Human annotations of {md_text(annotates['dataset'])} "
        f"{md_text(annotates['version'])} (release fingerprint "
        f"{md_text(annotates['fingerprint'])}), aggregated as in {paper}.",
        "",
        "| what | count |", "|---|---|",
        *[f"| votes {k.replace('.', ', ')} | {v} |" for k, v in sorted(votes.items())],
        *[f"| examples {k.replace('.', ', ')} | {v} |" for k, v in sorted(examples.items())],
        "",
        "| split | rows |", "|---|---|",
        *[f"| {md_text(split)} | {n} |" for split, n in manifest["rows_per_split"].items()],
        "",
        "Pending examples (fewer judgments than required) are not in the release: see "
        "`rejected/pending_examples/`. Refused votes are in `rejected/dead_letter/` with "
        "their reason.",
        "",
        *carried_card_lines(stats),
        quality_tables_markdown(base if base == "nq" else "jnq", stats["quality"]),
        "",
        *_agreement_lines(stats),
        *judgment_card_lines(stats),
        *suggested.card_lines(stats),
        *baseline_table(stats),
        "## Formats",
        "",
    ]
    if base == "nq":
        lines += ["- `nq_original/<split>/*.jsonl.gz`: the NQ original format with "
                  "`annotations`; `natural_questions.nq_eval` reads it as gold.",
                  "- `<split>/*.parquet`: the HuggingFace `natural_questions` layout.",
                  SIMPLIFIED_CARD_LINE]
    else:
        lines += ["- `<split>/*.parquet`: the release's rows with `annotations` (one per "
                  "candidate paragraph), `gold_paragraph_ids` and `is_yes_no_question`.",
                  *training_card_lines(base, stats),
                  *WORKER_CARD_LINES]
    lines += ["- `votes/<split>/*.parquet`: every judgment used, one row each.", ""]
    return "\n".join(lines)


ANNOTATION_PROTOCOLS = {
    "nq": (
        "Natural Questions' protocol (Kwiatkowski et al. 2019, §3.2): for each question and "
        "its Wikipedia page an annotator judges whether the question is good, selects the "
        "long answer (one of the page's long-answer candidates, or none), then the short "
        "answer spans inside it or a YES/NO answer. Each judgment is one entry of "
        "`annotations`; by default train is 1-way and dev/test 5-way annotated (`--ways`), "
        "as in NQ §5. Every vote used is in `votes/`."),
    "jnq": (
        "The JNQ protocol (Uematsu, Wang, Kawahara and Shibata 2024, §3.2-3.5): crowd "
        "workers judge, in stages, whether the question is good, whether each candidate "
        "paragraph holds the answer, whether the question is a yes/no question, its yes/no "
        "answer and the short-answer span; each stage is asked of 10 workers by default and "
        "aggregated with the paper's vote thresholds (`--t-*` options, recorded in the "
        "manifest). A paragraph is EXIST when enough workers agree. Every vote used is in "
        "`votes/`."),
    "jboolq": (
        "The JBoolQ protocol (Uematsu, Wang, Kawahara and Shibata 2024, §4): crowd workers "
        "judge whether the question is good, whether it is a yes/no question, which "
        "candidate paragraphs hold the answer and the yes/no answer, in that order; each "
        "stage is asked of 10 workers by default and aggregated with the paper's vote "
        "thresholds (`--t-*` options, recorded in the manifest). Every vote used is in "
        "`votes/`."),
}

ANNOTATION_LIMITATIONS = (
    "The votes may be simulated (`python -m pipelines.annotate simulate`, a seeded "
    "synthetic worker pool): the card then says so at the top, and the release must not be "
    "used to train or evaluate a model.",
    "Crowd judgments vary: the agreement table and per-worker agreement above show how much; "
    "single-annotated (1-way) splits carry one worker's view.",
    "Examples with fewer judgments than required are left out (`rejected/pending_examples/`), "
    "so a partial annotation run covers a non-random subset of the questions.",
)


def annotation_info(base: str) -> CardInfo:
    """What an annotated ``base`` release (``nq``, ``jnq`` or ``jboolq``) says about itself:
    the base dataset's card info with the annotation protocol and its limitations."""
    info = {"nq": NQ_INFO, "jboolq": JBOOLQ_INFO}.get(base, JNQ_INFO)
    return replace(
        info,
        pretty_name=f"{info.pretty_name}, annotated",
        summary=(f"{info.summary} This release adds the human annotations, aggregated as in "
                 "the paper, and every vote used (`votes` table)."),
        limitations=(*(text for text in info.limitations if text != NOT_ANNOTATED),
                     *ANNOTATION_LIMITATIONS),
        annotation=ANNOTATION_PROTOCOLS.get(base, ANNOTATION_PROTOCOLS["jnq"]),
        annotations_creators=(CROWDSOURCED,),  # simulated votes: simulated_info
    )


def annotation_dataset_card(base: str) -> DatasetCard:
    """``make_card`` of an annotated ``base`` release: its ``CardInfo`` and
    ``annotation_card`` as the body."""
    return DatasetCard(info=annotation_info(base), body=partial(annotation_card, base))
