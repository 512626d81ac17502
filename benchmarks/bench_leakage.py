"""Benchmark ``release leakage`` on near-identical questions. Not a test.

    python benchmarks/bench_leakage.py --questions 100000 [--external 100000]

Synthesizes the worst case of the near-duplicate search: a release of ``--questions`` rows
(train/dev/test 80/10/10) and an evaluation set (JSONL) of ``--external`` questions, all of
one template that differs only in a number (``what is the population of the town of 12345
in the county of ...``), so that every release question is a near-duplicate of every set
question and every LSH band puts them all in one bucket. Then runs
``transforms.release.leakage.release_leakage`` in a process of its own and prints its time,
peak RSS, the candidates compared and the queries that reached the candidate cap.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from child_process import peak_rss_mb, report, run_child  # noqa: E402

TEMPLATE = "what is the population of the town of {} in the county of north yorkshire england"
SPLITS = (("train", 0.8), ("dev", 0.1), ("test", 0.1))


def write_inputs(directory: Path, questions: int, external: int) -> tuple[Path, Path]:
    """The release (numbers 0..questions-1) and the set (numbers after them): near-identical
    questions, none exactly the same."""
    from tests.transforms.release.test_diff import write_release

    rows = [{"id": f"q{i}", "question": TEMPLATE.format(10_000_000 + i),
             "document_id": f"doc-{i}"} for i in range(questions)]
    tables: dict[str, list[dict[str, Any]]] = {}
    start = 0
    for name, share in SPLITS:
        end = questions if name == SPLITS[-1][0] else start + int(questions * share)
        tables[name] = rows[start:end]
        start = end
    release = write_release(directory / "releases", "1.0.0", tables, dataset="leaky")
    evaluation = directory / "eval.jsonl"
    with evaluation.open("w", encoding="utf-8") as handle:
        for j in range(external):
            handle.write(json.dumps({"id": f"e{j}",
                                     "question": TEMPLATE.format(20_000_000 + j)}) + "\n")
    return release, evaluation


def child(release: str, evaluation: str) -> None:
    from transforms.release.leakage import release_leakage

    started = time.perf_counter()
    result = release_leakage(release, [evaluation])
    seconds = time.perf_counter() - started
    near = result["external"][0]["near"]
    report({"seconds": seconds, "peak_rss_mb": peak_rss_mb(), "near_rows": near["rows"],
            "external_matched": near["external_questions"],
            "search": result["external"][0].get("search", {})})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--external", type=int, default=None,
                        help="evaluation-set questions (default: as many as --questions)")
    parser.add_argument("--child", nargs=2, metavar=("RELEASE", "EVAL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    external = args.questions if args.external is None else args.external
    with tempfile.TemporaryDirectory() as tmp:
        release, evaluation = write_inputs(Path(tmp), args.questions, external)
        result = run_child([sys.executable, __file__, "--child", str(release),
                            str(evaluation)], "release_leakage", ROOT)
    print(f"release leakage, {args.questions:,} near-identical questions against "
          f"{external:,}: {result['seconds']:.1f} s, peak RSS {result['peak_rss_mb']:.0f} MB")
    print(f"  near-duplicate rows {result['near_rows']:,}, set questions matched "
          f"{result['external_matched']:,}")
    print(f"  search: {json.dumps(result['search'])}")


if __name__ == "__main__":
    main()
