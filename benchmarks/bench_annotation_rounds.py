"""Benchmark adaptive annotation rounds and worker-quality aggregation on simulated campaigns.
Not a test.

    python benchmarks/bench_annotation_rounds.py               # 2,000 items per dataset
    python benchmarks/bench_annotation_rounds.py --items 200   # quicker
    python benchmarks/bench_annotation_rounds.py --datasets jnq --items 500  # one dataset

Builds ``--items`` JNQ questions, JBoolQ questions and NQ examples in memory (five candidate
paragraphs per question, twenty per NQ page) and lets the seeded simulated crowd of
``annotate simulate`` (50 workers, accuracy 0.75-0.95, NQ calibrated to NQ §4) judge them,
with the hidden truth kept (``simulate_truth``). Per dataset it measures:

* the full overlap (JNQ/JBoolQ 10-way, stage by stage as a platform runs it; NQ 5-way)
  against adaptive rounds: each round asks what ``filters.annotation.curtail`` says is still
  open, answered by ``simulate_rounds`` (the same draws as the full overlap's); judgments used
  as a share of the full overlap's and the share of items whose decisions are identical;
* the accuracy against the truth of the decisions of the papers' rules (``paper``) and of a
  worker-quality model (``ds``, the QUALITY part's crowd-kit Dawid-Skene fitted on every
  vote of the campaign), with 0%, 10% and 20% spammers: the share of the truth's decisions
  (JNQ/JBoolQ: good question, question kind, each candidate's EXIST or not, each true EXIST
  paragraph's span or YES/NO; NQ: long answer, short answer) that the aggregate got right.
  JNQ/JBoolQ votes are then asked on every stage and candidate (``jnq_every_stage``): the
  paper decides as on the stage-by-stage overlap, and the model gets the votes of the items
  it lets through where the paper stopped;
* the expected calibration error (``transforms.metrics.calibration``) of each decision's
  confidence (``paper``: vote share; ``ds``: posterior; ``worker_rules.decisions``) against
  the truth, at 10% spammers. The summary's ECE is ``ds``'s over the three datasets' decisions;
  its ``ds vs paper`` the mean over the three datasets of the accuracy gap at 20% spammers.

A part whose API is not in the tree prints ``n/a (<why>)``, never a number. Prints items/s,
peak RSS and the ratios, and ends with one line:
``rounds: exact X% of full overlap (identical Y%); confident X2% (accuracy delta D points);
ds vs paper at 20% spammers: +Z points; ECE E``.
"""

from __future__ import annotations

import argparse
import importlib
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.annotation_rounds.confident import (  # noqa: E402
    CONFIDENCE,
    MIN_VOTES,
    ConfidentFigures,
    jnq_confident,
    nq_confident,
    rule_of,
)
from benchmarks.annotation_rounds.items import jnq_row, nq_example  # noqa: E402
from benchmarks.annotation_rounds.scoring import (  # noqa: E402
    jnq_confidences,
    jnq_decisions,
    jnq_truth_checks,
    nq_confidences,
    nq_reading,
    nq_truth_checks,
    right_share,
)
from filters.annotation.jnq import JnqResult, JnqThresholds, aggregate_question  # noqa: E402
from filters.annotation.sequential import StopRule  # noqa: E402
from filters.annotation.votes import parse_jnq_vote, parse_nq_vote  # noqa: E402
from transforms.annotation.manifest import ReleaseRef  # noqa: E402
from transforms.annotation.simulate import (  # noqa: E402
    WorkerPool,
    simulate_jnq_votes,
    simulate_nq_votes,
)
from transforms.annotation.simulate_truth import jnq_truth_record, nq_truth_record  # noqa: E402

SPAMMERS = (0.0, 0.1, 0.2)
ROUNDS_SPAMMERS = 0.1  # the simulator's default pool
WAYS = {"jnq": 10, "jboolq": 10, "nq": 5}
DATASETS = tuple(WAYS)


# ------------------------------------------------------------------ optional APIs (others')


@dataclass
class Api:
    """A function of another part of issue 36, or why it is not available."""

    function: Callable[..., Any] | None
    why: str = ""

    def na(self) -> str:
        return f"n/a ({self.why})"


def optional(module: str, name: str) -> Api:
    try:
        return Api(getattr(importlib.import_module(module), name))
    except ImportError as error:
        return Api(None, f"{module} not in the tree: {error.name}")
    except AttributeError:
        return Api(None, f"{module} has no {name}")


def ds_api() -> Api:
    """``fit_campaign`` of the QUALITY part, when it and crowd-kit are there."""
    fit = optional("transforms.annotation.worker_fit", "fit_campaign")
    if fit.function is None:
        return fit
    try:
        importlib.import_module("crowdkit.aggregation")
    except ImportError:
        return Api(None, "crowd-kit is not installed: pip install '.[crowd]'")
    return fit


# ----------------------------------------------------------------------- JNQ / JBoolQ


def jnq_votes(row: dict[str, Any], pool: WorkerPool, order: str, ways: int) -> list[Any]:
    return [parse_jnq_vote(v) for v in simulate_jnq_votes(row, ways, pool, order)]


def jnq_every_stage(row: dict[str, Any], pool: WorkerPool, order: str, ways: int,
                    answer: Callable[..., Any]) -> list[Any]:
    """Every judgment the rules could ever need: ``ways`` on every stage, and on every
    candidate for the per-paragraph ones (both short-answer stages), drawn as the full
    overlap's are. The papers' decisions on them are those of the stage-by-stage overlap
    (which asks a stage only where the paper's previous decisions let an item through); a
    worker model needs them all, since it may let through what the paper stopped."""
    candidates = row["candidate_paragraph_ids"]
    requests = [{"stage": "good_question", "more": ways},
                {"stage": "yes_no_question", "more": ways}]
    requests += [{"stage": stage, "paragraph": paragraph, "more": ways}
                 for stage in ("long_answer", "yes_no_answer", "span")
                 for paragraph in candidates]
    return [parse_jnq_vote(v) for v in answer(row, requests, [], ways, pool, order)]


def jnq_aggregate(row: dict[str, Any], votes: list[Any], order: str, ways: int,
                  rules: Any = None) -> JnqResult:
    return aggregate_question(row["id"], votes, row["candidate_paragraph_ids"], order, ways,
                              rules=rules)


def jnq_rounds(row: dict[str, Any], pool: WorkerPool, order: str, ways: int,
               curtail: Callable[..., Any], answer: Callable[..., Any],
               aggregate: Callable[..., Any]) -> tuple[int, int, JnqResult]:
    """(judgments, rounds, decisions) of exact curtailment, round after round."""
    votes: list[Any] = []
    rounds = 0
    while True:
        state = curtail(row["id"], votes, row["candidate_paragraph_ids"], order, ways)
        if not state.open:
            break
        requests = [{"stage": s.stage, "paragraph": s.paragraph, "more": s.more}
                    for s in state.open]
        fresh = answer(row, requests, votes, ways, pool, order)
        if not fresh:
            raise RuntimeError(f"{row['id']}: open slots but no worker left to ask")
        votes += [parse_jnq_vote(v) for v in fresh]
        rounds += 1
    return len(votes), rounds, aggregate(row["id"], votes, row["candidate_paragraph_ids"],
                                         order, ways)


# -------------------------------------------------------------------------------- NQ


def nq_rounds(example: dict[str, Any], pool: WorkerPool, ways: int,
              requests_for: Callable[..., Any], answer: Callable[..., Any]
              ) -> tuple[list[dict[str, Any]], int]:
    """The votes ``annotate next``'s rounds collect for one dev example (``rounds.
    requests_for`` asks, ``simulate_rounds.answer_nq_request`` answers), and the rounds."""
    release = ReleaseRef("", "nq", "bench", "bench", ("dev",), {})
    votes: list[dict[str, Any]] = []
    rounds = 0
    while True:
        parsed = [parse_nq_vote(v) for v in votes]
        requests = requests_for(release, "dev", example, ways, parsed, JnqThresholds())
        if not requests:
            return votes, rounds
        fresh = [v for r in requests for v in answer(example, r.record("nq"), parsed, ways, pool)]
        if not fresh:
            raise RuntimeError(f"{example['example_id']}: open but no worker left to ask")
        votes += fresh
        rounds += 1


# ------------------------------------------------------------------------- measuring


@dataclass
class Measured:
    """One dataset's figures (``None``: not measured; ``why`` says why)."""

    dataset: str
    items: int
    full_judgments: int = 0
    full_seconds: float = 0.0
    rounds_judgments: int | None = None
    rounds_seconds: float = 0.0
    rounds_asked: int = 0
    identical: int | None = None
    fit_seconds: float = 0.0
    accuracy: dict[str, dict[float, float]] = field(default_factory=dict)
    calibration: dict[str, list[tuple[float, bool]]] = field(default_factory=dict)
    checks: dict[str, list[bool]] = field(default_factory=dict)  # at ROUNDS_SPAMMERS
    confident: ConfidentFigures | None = None
    why: dict[str, str] = field(default_factory=dict)


def score(measured: Measured, name: str, spammers: float, checks: list[bool]) -> None:
    """Record ``name``'s accuracy at ``spammers`` (and its checks for the confident rule's
    comparison at the rounds' pool)."""
    measured.accuracy.setdefault(name, {})[spammers] = right_share(checks)
    if spammers == ROUNDS_SPAMMERS:
        measured.checks[name] = checks


def measure_rounds(measured: Measured, rows: list[dict[str, Any]], order: str, seed: int,
                   workers: int) -> None:
    """Full overlap against exact curtailment, with the default pool."""
    ways = WAYS[order]
    curtail = optional("filters.annotation.curtail", "curtail")
    aggregate = optional("filters.annotation.curtail", "aggregate_curtailed")
    answer = optional("transforms.annotation.simulate_rounds", "answer_jnq_requests")
    pool = WorkerPool(size=workers, spammer_share=ROUNDS_SPAMMERS, seed=seed)
    started = time.perf_counter()
    full = []
    for row in rows:
        votes = jnq_votes(row, pool, order, ways)
        full.append((len(votes), jnq_aggregate(row, votes, order, ways)))
    measured.full_seconds = time.perf_counter() - started
    measured.full_judgments = sum(n for n, _ in full)
    missing = next((api for api in (curtail, aggregate, answer) if api.function is None), None)
    if missing is not None:
        measured.why["rounds"] = missing.why
        return
    started = time.perf_counter()
    rounds = [jnq_rounds(row, pool, order, ways, curtail.function, answer.function,
                         aggregate.function) for row in rows]
    measured.rounds_seconds = time.perf_counter() - started
    measured.rounds_judgments = sum(n for n, _, _ in rounds)
    measured.rounds_asked = max(r for _, r, _ in rounds)
    measured.identical = sum(jnq_decisions(result) == jnq_decisions(done)
                             for (_, _, result), (_, done) in zip(rounds, full, strict=True))


def measure_jnq(order: str, items: int, seed: int, workers: int, ds: Api,
                rule: StopRule) -> Measured:
    ways = WAYS[order]
    rows = [jnq_row(number, order) for number in range(items)]
    measured = Measured(order, items)
    measure_rounds(measured, rows, order, seed, workers)
    rules_for = optional("transforms.annotation.worker_rules", "rules_for")
    decisions = optional("transforms.annotation.worker_rules", "decisions")
    answer = optional("transforms.annotation.simulate_rounds", "answer_jnq_requests")
    if answer.function is None:
        measured.why["ds"] = f"no every-stage overlap to fit on: {answer.why}"
    for share in SPAMMERS:
        pool = WorkerPool(size=workers, spammer_share=share, seed=seed)
        votes = ([jnq_every_stage(row, pool, order, ways, answer.function) for row in rows]
                 if answer.function is not None else
                 [jnq_votes(row, pool, order, ways) for row in rows])
        truths = [jnq_truth_record(row, pool, order) for row in rows]
        paper = [jnq_aggregate(row, v, order, ways) for row, v in zip(rows, votes, strict=True)]
        score(measured, "paper", share, [c for result, truth in zip(paper, truths, strict=True)
                                         for c in jnq_truth_checks(result, truth, order)])
        model = None
        if ds.function is not None and rules_for.function is not None and "ds" not in \
                measured.why:
            started = time.perf_counter()
            model = ds.function("ds", [vote for judged in votes for vote in judged])
            measured.fit_seconds += time.perf_counter() - started
            rules = rules_for.function(model, JnqThresholds())
            fitted = [jnq_aggregate(row, v, order, ways, rules)
                      for row, v in zip(rows, votes, strict=True)]
            score(measured, "ds", share, [c for result, truth in zip(fitted, truths, strict=True)
                                          for c in jnq_truth_checks(result, truth, order)])
        if share != ROUNDS_SPAMMERS or decisions.function is None:
            continue
        for name, results, fit in (("paper", paper, None), ("ds", fitted if model else None,
                                                            model)):
            if results is not None:
                measured.calibration[name] = [
                    pair for result, v, truth in zip(results, votes, truths, strict=True)
                    for pair in jnq_confidences(decisions.function(result, v, fit), truth)]
    pool = WorkerPool(size=workers, spammer_share=ROUNDS_SPAMMERS, seed=seed)
    measured.confident = jnq_confident(
        rows, [jnq_truth_record(row, pool, order) for row in rows], pool, order, ways, rule)
    return measured


def measure_nq(items: int, seed: int, workers: int, ds: Api, rule: StopRule) -> Measured:
    ways = WAYS["nq"]
    examples = [nq_example(number) for number in range(items)]
    measured = Measured("nq", items)
    decide = optional("filters.annotation.nq_decisions", "nq_decisions")
    if decide.function is None:
        measured.why["ds"] = decide.why
    for share in SPAMMERS:
        pool = WorkerPool(size=workers, spammer_share=share, seed=seed)
        started = time.perf_counter()
        votes = [simulate_nq_votes(example, ways, pool) for example in examples]
        truths = [nq_truth_record(example, pool) for example in examples]
        readings = {"paper": [nq_reading(v, decide.function) for v in votes]}
        if share == ROUNDS_SPAMMERS:
            measured.full_seconds = time.perf_counter() - started
            measured.full_judgments = sum(len(v) for v in votes)
        if ds.function is not None and "ds" not in measured.why:
            started = time.perf_counter()
            model = ds.function("ds", [parse_nq_vote(vote) for v in votes for vote in v])
            measured.fit_seconds += time.perf_counter() - started
            readings["ds"] = [nq_reading(v, decide.function, "ds", model.posteriors,
                                         model.skills) for v in votes]
        for name, read in readings.items():
            score(measured, name, share,
                  [c for r, t in zip(read, truths, strict=True) for c in nq_truth_checks(r, t)])
            if share == ROUNDS_SPAMMERS and decide.function is not None:
                measured.calibration[name] = [
                    pair for r, t in zip(read, truths, strict=True)
                    for pair in nq_confidences(r, t)]
    pool = WorkerPool(size=workers, spammer_share=ROUNDS_SPAMMERS, seed=seed)
    measured.confident = nq_confident(
        examples, [nq_truth_record(example, pool) for example in examples], pool, ways, rule)
    requests_for = optional("transforms.annotation.rounds", "requests_for")
    answer = optional("transforms.annotation.simulate_rounds", "answer_nq_request")
    missing = next((api for api in (requests_for, answer) if api.function is None), None)
    if missing is not None:
        measured.why["rounds"] = missing.why
        return measured
    pool = WorkerPool(size=workers, spammer_share=ROUNDS_SPAMMERS, seed=seed)
    started = time.perf_counter()
    judged, rounds, identical = 0, 0, 0
    for example in examples:
        votes, asked = nq_rounds(example, pool, ways, requests_for.function, answer.function)
        judged += len(votes)
        rounds = max(rounds, asked)
        full = nq_reading(simulate_nq_votes(example, ways, pool), None)
        identical += nq_reading(votes, None) == full
    measured.rounds_seconds = time.perf_counter() - started
    measured.rounds_judgments, measured.rounds_asked, measured.identical = judged, rounds, identical
    measured.why["rounds_note"] = "NQ is never curtailed: dev/test keep every annotation"
    return measured


# --------------------------------------------------------------------------- printing


def percent(value: float | None, why: str = "") -> str:
    return f"{100 * value:.1f}%" if value is not None else f"n/a ({why})"


def ece_of(measured: Measured, name: str, ece: Api) -> float | None:
    pairs = measured.calibration.get(name)
    if ece.function is None or not pairs:
        return None
    return ece.function([c for c, _ in pairs], [r for _, r in pairs])


def print_dataset(measured: Measured, ds: Api, ece: Api) -> None:
    unit = "examples" if measured.dataset == "nq" else "questions"
    rate = measured.items / measured.full_seconds if measured.full_seconds else 0.0
    print(f"{measured.dataset}: {measured.items:,} {unit}, {WAYS[measured.dataset]}-way, "
          f"{ROUNDS_SPAMMERS:.0%} spammers for the rounds and ECE")
    print(f"  full overlap: {measured.full_judgments:,} judgments, "
          f"{measured.full_seconds:.2f} s ({rate:,.0f} items/s simulated and aggregated)")
    if measured.rounds_judgments is None:
        print(f"  rounds: n/a ({measured.why['rounds']})")
    else:
        share = measured.rounds_judgments / measured.full_judgments
        ratio = measured.rounds_seconds / max(measured.full_seconds, 1e-9)
        note = (f", at most {measured.rounds_asked} rounds per item, "
                f"{measured.rounds_seconds:.2f} s ({ratio:.1f}x the full overlap's time)")
        if "rounds_note" in measured.why:
            note += f" ({measured.why['rounds_note']})"
        print(f"  rounds (exact curtailment): {measured.rounds_judgments:,} judgments = "
              f"{share:.1%} of full overlap; identical decisions on "
              f"{measured.identical / measured.items:.1%} of items{note}")
    for share, paper in measured.accuracy["paper"].items():
        ds_figure = measured.accuracy.get("ds", {}).get(share)
        print(f"  accuracy vs truth, {share:.0%} spammers: paper {percent(paper)}, "
              f"ds {percent(ds_figure, measured.why.get('ds', ds.why))}")
    print_confident(measured)
    if measured.fit_seconds:
        print(f"  ds fits: {measured.fit_seconds:.1f} s for {len(SPAMMERS)} campaigns")
    for name in ("paper", "ds"):
        value = ece_of(measured, name, ece)
        print(f"  ECE {name}: " + (f"{value:.3f} over {len(measured.calibration[name]):,} "
                                   "decisions" if value is not None else
                                   ece.na() if ece.function is None else
                                   ds.na() if name == "ds" else "n/a (no decisions)"))


def reference(measured: Measured) -> str:
    """The full overlap the confident rule is compared with: ds (the same aggregate), else
    paper."""
    return "ds" if "ds" in measured.checks else "paper"


def print_confident(measured: Measured) -> None:
    found = measured.confident
    if found is None:
        return
    right = right_share(found.checks)
    deltas = ", ".join(f"{100 * (right - right_share(measured.checks[name])):+.2f} points vs "
                       f"its {name}" for name in ("ds", "paper") if name in measured.checks)
    print(f"  confident rule, {ROUNDS_SPAMMERS:.0%} spammers: {found.judgments:,} judgments = "
          f"{found.judgments / measured.full_judgments:.1%} of full overlap, right on "
          f"{right:.2%} of the truth's decisions ({deltas}), {found.rounds} rounds, "
          f"{found.seconds:.1f} s")


def confident_part(results: list[Measured], rule: StopRule) -> str:
    """``X2% (accuracy delta D points)``: every dataset's judgments against its full
    overlap's, and the accuracy over every decision checked against the full overlap's
    (ds where fitted)."""
    measured = [m for m in results if m.confident is not None]
    used = sum(m.confident.judgments for m in measured)  # type: ignore[union-attr]
    full = sum(m.full_judgments for m in measured)
    mine = [c for m in measured for c in m.confident.checks]  # type: ignore[union-attr]
    theirs = [c for m in measured for c in m.checks[reference(m)]]
    delta = 100 * (right_share(mine) - right_share(theirs))
    return f"{used / full:.1%} (accuracy delta {delta:+.2f} points)"


def summary_line(results: list[Measured], ds: Api, ece: Api, rule: StopRule) -> str:
    measured = [m for m in results if m.rounds_judgments is not None]
    if measured:
        used = sum(m.rounds_judgments or 0 for m in measured)
        full = sum(m.full_judgments for m in measured)
        identical = sum(m.identical or 0 for m in measured) / sum(m.items for m in measured)
        exact = f"exact {used / full:.1%} of full overlap (identical {identical:.1%})"
    else:
        exact = f"exact n/a ({results[0].why.get('rounds', 'not measured')})"
    gains = [m.accuracy["ds"][0.2] - m.accuracy["paper"][0.2] for m in results
             if "ds" in m.accuracy]
    ds_line = f"{100 * sum(gains) / len(gains):+.1f} points" if gains else ds.na()
    pooled = [pair for m in results for pair in m.calibration.get("ds", [])]
    if ece.function is None:
        ece_line = ece.na()
    elif not pooled:
        ece_line = ds.na()
    else:
        ece_line = f"{ece.function([c for c, _ in pooled], [r for _, r in pooled]):.3f}"
    return (f"rounds: {exact}; confident {confident_part(results, rule)}; ds vs paper at 20% "
            "spammers: "
            f"{ds_line}; ECE {ece_line}")


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2000, help="items per dataset")
    parser.add_argument("--seed", type=int, default=0, help="seed of the worker pools")
    parser.add_argument("--workers", type=int, default=50, help="worker pool size")
    parser.add_argument("--confidence", type=float, default=CONFIDENCE,
                        help="the confident rule's (chosen on --seed 1)")
    parser.add_argument("--min-votes", type=int, default=MIN_VOTES,
                        help="the confident rule's cold start")
    parser.add_argument("--datasets", default=",".join(DATASETS),
                        help="comma-separated datasets to run (default jnq,jboolq,nq)")
    args = parser.parse_args(argv)
    datasets = [name.strip() for name in args.datasets.split(",") if name.strip()]
    unknown = [name for name in datasets if name not in DATASETS]
    if unknown or not datasets:
        parser.error(f"--datasets takes some of {','.join(DATASETS)}, not {args.datasets!r}")
    ds = ds_api()
    ece = optional("transforms.metrics.calibration", "expected_calibration_error")
    rule = rule_of(args.confidence, args.min_votes)
    print(f"confident rule: --confidence {rule.confidence} --min-votes {rule.min_votes}, "
          f"seed {args.seed}")
    started = time.perf_counter()
    results = [measure_nq(args.items, args.seed, args.workers, ds, rule) if name == "nq"
               else measure_jnq(name, args.items, args.seed, args.workers, ds, rule)
               for name in datasets]
    for measured in results:
        print_dataset(measured, ds, ece)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"total {time.perf_counter() - started:.1f} s, peak RSS {peak:.0f} MB")
    line = summary_line(results, ds, ece, rule)
    print(line)
    return line


if __name__ == "__main__":
    main()
