"""How cost grows with the input: a scale ladder on one machine (issue 39 §2). Not a test.

    python benchmarks/bench_scale_ladder.py                  # the full ladder (hours on 2 cores)
    python benchmarks/bench_scale_ladder.py --quick          # the same, small (minutes)
    python benchmarks/bench_scale_ladder.py --rungs nlquad=1k,10k --modes in_memory

NLQuAD at 1k, 10k and 100k pages (read with ``--source html``) and NQ at 1k, 10k and 50k
questions (linked with ``--search local`` against a local index and page store of 1M
synthetic documents, as ``bench_search_scale.py`` builds it), each rung a ``run`` of the
builder in a process of its own, with the DirectRunner in ``multi_processing`` mode
(``--workers`` processes) and in memory. ``scale_ladder.inputs`` says how the inputs are made;
they are made once under ``--work`` and reused by later runs (the 1M-document index takes
most of an hour to build on 2 shared cores).

Every rung shows a progress bar with the job's count, rate and ETA (``scale_ladder.watch``:
the workers' progress lines added up) and prints its time per item (the builder's ``run``,
Beam's start-up included) and peak RSS of its whole process tree (each process's own pages
once, shared file pages such as the mapped index once). Then, per dataset and mode, the top
rung's time per item over the rung below it (the 10k rung of the full ladder: target at
most 1.15x) and the peak (target at most 4 GB, no rung killed for memory), and last one line:

    ladder: nlquad per-item x<ratio top/10k>, peak <GB> GB; nq per-item x<ratio>, peak <GB> GB

with, for each dataset, the worse of the modes run. NQ's questions are synthetic, so they are
linked with ``--min-score 0``: every question goes through search, page fetch, tokens,
candidates and an example, the work that grows with the input (with the default floor most
synthetic questions would stop at the floor).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from child_process import peak_rss_mb, report  # noqa: E402
from scale_ladder import inputs  # noqa: E402
from scale_ladder.watch import RungResult, child_command, run_rung  # noqa: E402

DATASETS = ("nlquad", "nq")
MODES = ("multi_processing", "in_memory")
FULL = {"nlquad": (1_000, 10_000, 100_000), "nq": (1_000, 10_000, 50_000)}
QUICK = {"nlquad": (50, 100, 200), "nq": (50, 100, 200)}
FULL_INDEX_DOCS, QUICK_INDEX_DOCS = 1_000_000, 20_000
RATIO_TARGET, PEAK_TARGET_GB = 1.15, 4.0
UNIT = {"nlquad": "pages", "nq": "questions"}
STAGE = {"nlquad": "pages parsed", "nq": "questions searched"}  # the bar's stage


@dataclass(frozen=True)
class LadderOptions:
    """What to run: rungs per dataset, runner modes, workers, index size, where inputs live."""

    rungs: dict[str, tuple[int, ...]]
    modes: tuple[str, ...]
    workers: int
    index_docs: int
    work: Path
    bar_every_s: float
    progress_every_s: float
    prepare_only: bool = False


def parse_count(text: str) -> int:
    """``1k`` -> 1000, ``1M`` -> 1000000, ``250`` -> 250."""
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    number = int(float(text[:-1] if scale > 1 else text) * scale)
    if number < 1:
        raise argparse.ArgumentTypeError(f"a rung needs at least 1 item, got {text!r}")
    return number


def parse_rungs(text: str) -> tuple[str, tuple[int, ...]]:
    """``nlquad=1k,10k,100k`` -> ("nlquad", (1000, 10000, 100000))."""
    dataset, _, counts = text.partition("=")
    if dataset not in DATASETS or not counts:
        raise argparse.ArgumentTypeError(f"--rungs DATASET=N,N,... with DATASET one of "
                                         f"{', '.join(DATASETS)}; got {text!r}")
    return dataset, tuple(sorted({parse_count(c) for c in counts.split(",")}))


def parse_options(argv: list[str] | None = None) -> tuple[LadderOptions, argparse.Namespace]:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rungs", type=parse_rungs, action="append", default=[],
                        metavar="DATASET=N,N,...",
                        help="rungs of a dataset (repeat per dataset; only those named run); "
                             "default: nlquad=1k,10k,100k and nq=1k,10k,50k")
    parser.add_argument("--quick", action="store_true",
                        help="small default rungs (50, 100, 200 items) and a 20,000-document "
                             "index: the ladder in minutes")
    parser.add_argument("--modes", default=",".join(MODES),
                        help="DirectRunner modes, comma-separated (default: both)")
    parser.add_argument("--workers", type=int, default=2, help="multi_processing workers")
    parser.add_argument("--index-docs", type=parse_count, default=None,
                        help="NQ's local index size (default 1M; --quick 20k)")
    parser.add_argument("--work", type=Path, default=ROOT / ".cache" / "scale_ladder",
                        help="where the inputs are made once and reused")
    parser.add_argument("--bar-every", type=float, default=10.0,
                        help="seconds between progress lines when not on a terminal")
    parser.add_argument("--progress-every", type=float, default=2.0,
                        help="the builders' --progress: seconds between a worker's lines")
    parser.add_argument("--prepare-only", action="store_true",
                        help="make the inputs under --work (pages, index, logs) and stop")
    parser.add_argument("--child", choices=DATASETS, help=argparse.SUPPRESS)
    parser.add_argument("--argv", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    modes = tuple(m for m in args.modes.split(",") if m)
    if not modes or set(modes) - set(MODES):
        parser.error(f"--modes: choose among {', '.join(MODES)}")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.progress_every <= 0 or args.bar_every <= 0:
        parser.error("--progress-every and --bar-every must be positive")
    rungs = dict(args.rungs) if args.rungs else dict(QUICK if args.quick else FULL)
    docs = args.index_docs or (QUICK_INDEX_DOCS if args.quick else FULL_INDEX_DOCS)
    if "nq" in rungs and max(rungs["nq"]) > docs:
        parser.error(f"--index-docs {docs} is smaller than the largest NQ rung")
    return LadderOptions(rungs, modes, args.workers, docs, args.work, args.bar_every,
                         args.progress_every, args.prepare_only), args


def child(dataset: str, argv: list[str]) -> None:
    """One build in this process: the builder's ``run`` time, rows and own peak RSS. Logging
    is set up as the command line sets it (``run`` alone does not), so the in-memory mode's
    progress lines, written by this process, reach the bar too."""
    from pipelines.cli.entry import configure_logging

    configure_logging(argv)
    module = __import__(f"pipelines.build_{dataset}", fromlist=["run"])
    started = time.perf_counter()
    result = module.run(argv)
    report({"seconds": time.perf_counter() - started,
            "rows": sum(result["manifest"]["rows_per_split"].values()),
            "own_peak_mb": peak_rss_mb()})


def runner_args(mode: str, workers: int) -> list[str]:
    args = ["--runner=DirectRunner", f"--direct_running_mode={mode}"]
    return args + ([f"--direct_num_workers={workers}"] if mode == "multi_processing" else [])


def rung_inputs(options: LadderOptions, dataset: str, count: int) -> list[str]:
    work = options.work
    if dataset == "nlquad":
        rung = inputs.nlquad_pages(work, count, max(options.rungs["nlquad"]))
        return inputs.nlquad_arguments(rung)
    index = inputs.nq_index(work, options.index_docs)
    return [*inputs.nq_arguments(inputs.nq_log(work, count, options.index_docs), index),
            "--min-score", "0"]


def run_one(options: LadderOptions, dataset: str, count: int, mode: str) -> RungResult:
    output = options.work / "out" / f"{dataset}-{count}-{mode}"
    shutil.rmtree(output, ignore_errors=True)
    argv = [*runner_args(mode, options.workers), *rung_inputs(options, dataset, count),
            "--progress", f"{options.progress_every_s:g}", "--output", str(output)]
    print(f"{dataset} {count:,} {UNIT[dataset]}, {mode}:", flush=True)
    try:
        return run_rung(child_command(Path(__file__), dataset, argv), STAGE[dataset], count,
                        sys.stdout, options.bar_every_s, ROOT)
    finally:
        shutil.rmtree(output, ignore_errors=True)


def describe(dataset: str, count: int, mode: str, result: RungResult) -> str:
    head = f"  = {dataset} {count:>9,} {UNIT[dataset]:9s} {mode:16s}"
    if result.killed:
        return f"{head} KILLED (SIGKILL: out of memory?) after {result.wall_seconds:.0f} s"
    if result.report is None:
        tail = "\n".join(result.tail[-15:])
        return f"{head} FAILED (exit {result.returncode}):\n{tail}"
    seconds = result.report["seconds"]
    return (f"{head} {seconds:9.1f} s  {1000 * seconds / count:8.2f} ms/item  peak "
            f"{result.peak_gb:5.2f} GB (sum of RSS {result.peak_sum_gb:5.2f} GB)  "
            f"rows {result.report['rows']:,}")


def summarize(dataset: str, mode: str, rungs: tuple[int, ...],
              results: dict[int, RungResult]) -> tuple[float | None, float]:
    """Print one dataset and mode's targets; return (top/below per-item ratio, peak GB)."""
    peak = max(r.peak_gb for r in results.values())
    ok = [n for n in rungs if results[n].report is not None]
    ratio = None
    if len(rungs) >= 2 and rungs[-1] in ok and rungs[-2] in ok:
        per = {n: results[n].report["seconds"] / n for n in rungs[-2:]}
        ratio = per[rungs[-1]] / per[rungs[-2]]
    killed = [n for n in rungs if results[n].killed]
    verdict = ("n/a" if ratio is None else
               "met" if ratio <= RATIO_TARGET else "NOT met")
    print(f"{dataset} {mode}: per-item {rungs[-1]:,}/{rungs[-2] if len(rungs) > 1 else '-'} "
          f"x{ratio if ratio is not None else float('nan'):.3f} (target <= {RATIO_TARGET}: "
          f"{verdict}); peak {peak:.2f} GB (target <= {PEAK_TARGET_GB:g}: "
          f"{'met' if peak <= PEAK_TARGET_GB else 'NOT met'}); killed for memory: "
          f"{', '.join(f'{n:,}' for n in killed) or 'none'}")
    return ratio, peak


def final_line(worst: dict[str, tuple[float | None, float]]) -> str:
    """``ladder: nlquad per-item x1.02, peak 1.3 GB; nq per-item x1.05, peak 2.1 GB``."""
    parts = []
    for dataset in DATASETS:
        ratio, peak = worst.get(dataset, (None, float("nan")))
        shown = f"{ratio:.2f}" if ratio is not None else "n/a"
        parts.append(f"{dataset} per-item x{shown}, peak {peak:.1f} GB")
    return "ladder: " + "; ".join(parts)


def main(argv: list[str] | None = None) -> str | None:
    """Run the ladder; return its last line (None in a ``--child``)."""
    options, args = parse_options(argv)
    if args.child:
        child(args.child, json.loads(args.argv))
        return None
    options.work.mkdir(parents=True, exist_ok=True)
    print(f"scale ladder: {options.rungs}, modes {', '.join(options.modes)}, "
          f"{options.workers} workers, NQ index {options.index_docs:,} documents, inputs in "
          f"{options.work}", flush=True)
    if options.prepare_only:
        for dataset, rungs in options.rungs.items():
            for count in rungs:
                rung_inputs(options, dataset, count)
                print(f"inputs ready: {dataset} {count:,} {UNIT[dataset]}", flush=True)
        return None
    worst: dict[str, tuple[float | None, float]] = {}
    for mode in options.modes:  # each mode's ladders first: the final line needs both datasets
        for dataset, rungs in options.rungs.items():
            results = {}
            for count in rungs:
                results[count] = run_one(options, dataset, count, mode)
                print(describe(dataset, count, mode, results[count]), flush=True)
            ratio, peak = summarize(dataset, mode, rungs, results)
            old_ratio, old_peak = worst.get(dataset, (None, 0.0))
            ratios = [r for r in (ratio, old_ratio) if r is not None]
            worst[dataset] = (max(ratios) if ratios else None, max(peak, old_peak))
        print(f"so far (after {mode}): {final_line(worst)}", flush=True)
    line = final_line(worst)
    print(line, flush=True)
    return line


if __name__ == "__main__":
    main()
