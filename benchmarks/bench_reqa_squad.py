"""Benchmark build_reqa on the real SQuAD v1.1 dev file, and at SQuAD-train scale. Not a test.

    python benchmarks/bench_reqa_squad.py                      # shared dev, both splitters
    python benchmarks/bench_reqa_squad.py --copies 9 --splitter reqa   # train-sized set
    python benchmarks/bench_reqa_squad.py --repeat 3           # medians of 3 runs

Runs ``python -m pipelines.build_reqa --source squad`` (DirectRunner) in a fresh process per
run on ``../shared/data/squad/dev-v1.1.json`` (10,570 questions, 2,067 paragraphs) or, with
``--copies N``, on N copies of it (each paragraph prefixed with a copy tag ``K<n>``, each
question suffixed with `` (<n>)``, so nothing is merged or deduplicated; 9 copies give 95,130
questions, 92,250 sentences and 18,603 paragraphs with the ReQA rules, the size of ReQA SQuAD
train: 87,599 questions, 91,707 sentences, 18,896 paragraphs). Records wall time, peak RSS,
the counts, the Table 6 baselines (over every question) and, separately, the time of the
baselines step alone (``reqa_baselines`` on the published release). Prints a table and one
JSON line per configuration.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from child_process import report, run_child

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEV = ROOT.parent / "shared" / "data" / "squad" / "dev-v1.1.json"


def synthesize(source: Path, path: Path, copies: int) -> None:
    data = json.loads(source.read_text(encoding="utf-8"))["data"]
    out = []
    for copy in range(copies):
        for article in data:
            paragraphs = []
            for paragraph in article["paragraphs"]:
                prefix = f"K{copy} "
                qas = [{**qa, "id": f"{qa['id']}-{copy}",
                        "question": f"{qa['question']} ({copy})",
                        "answers": [{**a, "answer_start": a["answer_start"] + len(prefix)}
                                    for a in qa["answers"]]} for qa in paragraph["qas"]]
                paragraphs.append({"context": prefix + paragraph["context"], "qas": qas})
            out.append({"title": f"{article['title']} {copy}", "paragraphs": paragraphs})
    path.write_text(json.dumps({"version": "1.1", "data": out}), encoding="utf-8")


def child(path: Path, output: Path, splitter: str) -> dict:
    from pipelines.build_reqa import run
    from transforms.reqa.baselines import reqa_baselines

    started = time.perf_counter()
    result = run(["--runner=DirectRunner", "--source", "squad", "--input", str(path),
                  "--splitter", splitter, "--output", str(output)])
    seconds = time.perf_counter() - started
    stats = result["stats"]
    started = time.perf_counter()
    reqa_baselines(result["path"])
    baseline_seconds = time.perf_counter() - started
    return {"seconds": seconds, "baseline_seconds": baseline_seconds,
            "questions": stats["questions"], "candidates": stats["candidates"],
            "paragraphs": stats["paragraphs"], "examples": stats["examples"]["read"],
            "crossing": stats["counts"].get("answers", {}).get("cross_sentence_boundary", 0),
            "baselines": {row["name"]: {k: round(v, 3) for k, v in row.items() if k != "name"}
                          for row in stats["baselines"]["rows"]},
            "baselines_n": stats["baselines"]["n"]}


def measure(path: Path, splitter: str, tmp: Path) -> dict:
    command = [sys.executable, __file__, "--child", splitter, "--file", str(path),
               "--out", str(tmp / f"release-{splitter}-{time.monotonic_ns()}")]
    return run_child(command, splitter, ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", default=str(DEV), help="SQuAD v1.1 JSON (default: shared dev)")
    parser.add_argument("--copies", type=int, default=1, help="copies of the input (1: as is)")
    parser.add_argument("--splitter", action="append", choices=("senter", "reqa"),
                        help="splitter(s) to run (default: both)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per splitter; medians")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = child(Path(args.file), Path(args.out), args.child)
        result["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        report(result)
        return
    source = Path(args.input)
    if not source.exists():
        sys.exit(f"no input at {source} (the shared SQuAD dev file)")
    with tempfile.TemporaryDirectory(prefix="bench_reqa_squad_") as tmp_name:
        tmp = Path(tmp_name)
        path = source
        if args.copies > 1:
            path = tmp / "squad.json"
            synthesize(source, path, args.copies)
        print(f"build_reqa on {source.name} x{args.copies} (DirectRunner, medians of "
              f"{args.repeat})")
        for splitter in args.splitter or ["senter", "reqa"]:
            runs = [measure(path, splitter, tmp) for _ in range(args.repeat)]
            first = runs[0]
            row = {**first, "splitter": splitter, "copies": args.copies,
                   "seconds": statistics.median(r["seconds"] for r in runs),
                   "baseline_seconds": statistics.median(r["baseline_seconds"] for r in runs),
                   "rss_mb": statistics.median(r["rss_mb"] for r in runs),
                   "all_seconds": [round(r["seconds"], 2) for r in runs]}
            print(f"  --splitter {splitter:6s} {row['seconds']:7.1f} s (baselines alone "
                  f"{row['baseline_seconds']:.1f} s)  peak RSS {row['rss_mb']:6.0f} MB  "
                  f"{row['examples']} examples -> {row['questions']} questions, "
                  f"{row['candidates']} candidates, {row['paragraphs']} paragraphs")
            for name, metrics in row["baselines"].items():
                print(f"    {name} (n={row['baselines_n']}): " + ", ".join(
                    f"{k} {v:.3f}" for k, v in sorted(metrics.items())))
            print("JSON " + json.dumps(row))


if __name__ == "__main__":
    main()
