"""Benchmark the invariant check a release passes before it is published. Not a test.

    python benchmarks/bench_invariants.py                 # 1,000,000 NLQuAD-like rows
    python benchmarks/bench_invariants.py --rows 100000

Writes an NLQuAD-like staged release of ``--rows`` rows (train/dev/test 80/10/10, 4 questions
per article, a context of ``--context`` characters, 50,000 rows per file) and times
``transforms.release.invariants.check_invariants`` with NLQuAD's declaration: the id and
group-key passes (hashes in numpy) and the three answer-span checks (Python ``str`` slices
and splits over the decoded context column), each alone and all together.
Prints the wall and CPU seconds (CPU is what compares on a loaded machine), rows/s and peak
RSS.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from transforms.core.spec import TableInvariants  # noqa: E402
from transforms.nlquad.spec import INVARIANTS  # noqa: E402
from transforms.release.invariants import check_invariants  # noqa: E402

FILE_ROWS = 50_000
WORDS = ("the river flows north through the valley and feeds the lake near the old town "
         "where the bridge was built in the year of the flood").split()


def context_of(length: int) -> str:
    text, index = [], 0
    while sum(len(w) + 1 for w in text) < length:
        text.append(WORDS[index % len(WORDS)])
        index += 1
    return " ".join(text)[:length]


def write_release(root: Path, rows: int, length: int) -> None:
    """``rows`` rows in 50,000-row files under ``root/<split>/``."""
    context = context_of(length)
    start, end = length // 4, length // 2
    answer = context[start:end]
    words_before = len(context[:start].split())
    for first in range(0, rows, FILE_ROWS):
        count = min(FILE_ROWS, rows - first)
        ids = [f"bbc-{(first + i) // 4}-q{(first + i) % 4}" for i in range(count)]
        documents = [f"bbc-{(first + i) // 4}" for i in range(count)]
        split = {0: "dev", 1: "test"}.get((first // FILE_ROWS) % 10, "train")
        table = pa.table({
            "id": ids, "document_id": documents, "context": [context] * count,
            "answer_text": [answer] * count, "answer_start": [start] * count,
            "answer_end": [end] * count, "answer_word_start": [words_before] * count,
            "answer_word_end": [words_before + len(answer.split())] * count,
            "answers": [{"text": [answer], "answer_start": [start]}] * count})
        directory = root / split
        directory.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, directory / f"{split}-{first // FILE_ROWS:05d}.parquet")


def timed(label: str, root: Path, declared: tuple[TableInvariants, ...], rows: int) -> None:
    began, cpu = time.perf_counter(), time.process_time()
    violations = check_invariants(str(root), declared)
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{label:<28} {seconds:7.2f} s ({cpu:6.2f} s CPU)  {rows / seconds:>10,.0f} rows/s  "
          f"peak RSS so far {rss:,.0f} MiB  violations {len(violations)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--context", type=int, default=600, help="characters per context")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        began = time.perf_counter()
        writer = multiprocessing.get_context("spawn").Process(  # its memory is not ours
            target=write_release, args=(root, args.rows, args.context))
        writer.start()
        writer.join()
        print(f"wrote {args.rows:,} rows in {time.perf_counter() - began:.1f} s; peak RSS "
              f"before checking {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f}"
              " MiB")
        (declared,) = INVARIANTS
        timed("ids (id)", root, (TableInvariants(id_column="id"),), args.rows)
        timed("group key (document_id)", root,
              (TableInvariants(group_key="document_id"),), args.rows)
        timed("answer spans (3 checks)", root, (TableInvariants(spans=declared.spans),),
              args.rows)
        timed("all (NLQuAD's declaration)", root, INVARIANTS, args.rows)


if __name__ == "__main__":
    main()
