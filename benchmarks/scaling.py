"""How each pipeline scales with input size and workers. Not a test.

    python benchmarks/scaling.py [--sizes 1 4 16] [--pipelines nlquad nq jnq]

Each pipeline runs on its bundled sample repeated 1x, 4x and 16x with distinct ids (NLQuAD:
pages under new article ids with a unique sentence; NQ and JNQ: the sample log with every
event repeated under new user ids), in a fresh process (DirectRunner, in-memory), then at the
largest size with the multi-process runner and 1 vs 2 workers. Prints records/s, time per
record (flat = linear cost) and peak RSS of the process and its workers.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from child_process import report, run_child

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _repeat_log(source: Path, target: Path, copies: int) -> int:
    lines = source.read_text(encoding="utf-8").splitlines()
    header, rows = lines[0], lines[1:]
    out = [header]
    for copy in range(copies):
        for row in rows:
            fields = row.split("\t")
            if len(fields) == 3 and copy:
                fields[2] = f"{fields[2]}-c{copy}"
            out.append("\t".join(fields))
    target.write_text("\n".join(out) + "\n", encoding="utf-8")
    return len(out) - 1


def prepare(pipeline: str, copies: int, directory: Path) -> tuple[list[str], int]:
    """Input options and record count of one pipeline at ``copies`` x its sample."""
    samples = ROOT / "pipelines" / "samples"
    if pipeline == "nlquad":
        from bench_nlquad import synthesize

        from transforms.sources.page_files import sample_index

        pages = synthesize(directory, len(sample_index()) * copies)
        return ["--source", "html", "--input", str(directory / "*.html"),
                "--boilerplate-min-docs", str(max(3, 4 * copies + 1))], pages
    log = directory / "log.tsv"
    count = _repeat_log(samples / pipeline / "query_log.tsv", log, copies)
    return ["--input", str(log), "--sample-index"], count  # copies: not the sample itself


def child(pipeline: str, options: list[str], records: int) -> None:
    module = {"nlquad": "build_nlquad", "nq": "build_nq", "jnq": "build_jnq"}[pipeline]
    run = __import__(f"pipelines.{module}", fromlist=["run"]).run
    started = time.perf_counter()
    run(options)
    seconds = time.perf_counter() - started
    rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
              resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    report({"seconds": seconds, "records": records, "rss": rss})


def measure(pipeline: str, copies: int, runner: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"scaling_{pipeline}_") as tmp:
        options, records = prepare(pipeline, copies, Path(tmp))
        options += [*runner, "--output", str(Path(tmp) / "out")]
        command = [sys.executable, __file__, "--child", pipeline, "--records", str(records),
                   "--options", json.dumps(options)]
        return run_child(command, f"{pipeline} x{copies}", ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--pipelines", nargs="+", default=["nlquad", "nq", "jnq"])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--records", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--options", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, json.loads(args.options), args.records)
        return
    print(f"{'pipeline':8s} {'size':>5s} {'runner':28s} {'records':>8s} {'seconds':>8s} "
          f"{'records/s':>10s} {'ms/record':>10s} {'peak RSS':>9s}")
    largest = max(args.sizes)
    for pipeline in args.pipelines:
        runs = [(size, "in-memory", ["--runner=DirectRunner"]) for size in args.sizes]
        runs += [(largest, f"multi_processing, {n} worker{'s' * (n > 1)}",
                  ["--runner=DirectRunner", "--direct_running_mode=multi_processing",
                   f"--direct_num_workers={n}"]) for n in (1, 2)]
        for size, label, runner in runs:
            r = measure(pipeline, size, runner)
            print(f"{pipeline:8s} {size:>4d}x {label:28s} {r['records']:>8d} "
                  f"{r['seconds']:>8.2f} {r['records'] / r['seconds']:>10.1f} "
                  f"{1000 * r['seconds'] / r['records']:>10.2f} {r['rss']:>7.0f}MB")


if __name__ == "__main__":
    main()
