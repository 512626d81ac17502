"""Benchmark NQ's cross-format invariant (``formats_disagree``). Not a test.

    python benchmarks/bench_invariant_formats.py              # 200,000 examples
    python benchmarks/bench_invariant_formats.py --rows 20000 --tokens 2000

Writes a staged NQ-like release of ``--rows`` annotated examples (``--tokens`` document
tokens, a candidate every 40 tokens, one annotation with a short answer; 10,000 rows per
row group) in both tables the check compares: the HF Parquet ``train`` and
``simplified/train``. Times ``check_invariants`` with the class labels alone (the floor: no
declaration), NQ's declaration without ``agrees_with``, the format agreement alone, and
NQ's whole declaration, each in a fresh process so that its peak RSS is its own. Prints the
wall and CPU seconds and the peak RSS.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from transforms.nq.examples import HF_SCHEMA, hf_example  # noqa: E402
from transforms.nq.simplified import SIMPLIFIED_SCHEMA, simplify_example  # noqa: E402
from transforms.nq.spec import EXAMPLE_INVARIANTS  # noqa: E402
from transforms.release.invariants import check_invariants  # noqa: E402

CHUNK = 1_000  # distinct examples; the release repeats them with other ids
DECLARATIONS = {
    "class labels only": (),
    "nq without agrees_with": tuple(dataclasses.replace(t, agrees_with=())
                                    for t in EXAMPLE_INVARIANTS),
    "formats alone": (dataclasses.replace(EXAMPLE_INVARIANTS[0], id_column=None,
                                          group_key=None, spans=()),),
    "nq (whole declaration)": EXAMPLE_INVARIANTS,
}


def example(index: int, tokens: int, rng: random.Random) -> dict:
    """An annotated original-format example of ``tokens`` tokens."""
    words, offset = [], 0
    for position in range(tokens):
        word = "<P>" if position % 40 == 0 else f"w{rng.randrange(5000)}"
        words.append({"token": word, "start_byte": offset, "end_byte": offset + len(word),
                      "html_token": word == "<P>"})
        offset += len(word) + 1
    boxes = [{"start_token": s, "end_token": min(s + 40, tokens),
              "start_byte": words[s]["start_byte"],
              "end_byte": words[min(s + 40, tokens) - 1]["end_byte"], "top_level": True}
             for s in range(0, tokens, 40)]
    return {"example_id": index, "question_text": f"question {index}", "question_tokens": [],
            "document_url": f"https://en.wikipedia.org/{index}", "document_title": "t",
            "document_html": "", "document_tokens": words, "long_answer_candidates": boxes,
            "annotations": [{"annotation_id": index, "long_answer": {**boxes[0],
                                                                     "candidate_index": 0},
                             "short_answers": [{"start_token": 5, "end_token": 7,
                                                "start_byte": words[5]["start_byte"],
                                                "end_byte": words[6]["end_byte"]}],
                             "yes_no_answer": "NONE"}]}


def write_release(root: Path, rows: int, tokens: int) -> None:
    """``rows`` examples in ``root/train`` and ``root/simplified/train``."""
    rng = random.Random(0)
    base = [example(i, tokens, rng) for i in range(CHUNK)]
    hf = pa.Table.from_pylist([hf_example(e) for e in base], schema=HF_SCHEMA)
    simple = pa.Table.from_pylist([simplify_example(e) for e in base],
                                  schema=SIMPLIFIED_SCHEMA)
    for directory in ("train", "simplified/train"):
        (root / directory).mkdir(parents=True)
    hf_writer = pq.ParquetWriter(root / "train" / "train-00000-of-00001.parquet", HF_SCHEMA)
    simple_writer = pq.ParquetWriter(root / "simplified/train/simplified-nq-train-00.parquet",
                                     SIMPLIFIED_SCHEMA)
    question_type = HF_SCHEMA.field("question").type
    for first in range(0, rows, CHUNK):
        ids = list(range(first, first + CHUNK))
        questions = pa.array([f"question {i}" for i in ids])
        hf_chunk = hf.set_column(0, HF_SCHEMA.field("id"), pa.array([str(i) for i in ids]))
        hf_chunk = hf_chunk.set_column(2, HF_SCHEMA.field("question"), pa.StructArray.from_arrays(
            [questions, hf.column("question").combine_chunks().field("tokens")],
            fields=list(question_type)))
        simple_chunk = (simple.set_column(1, SIMPLIFIED_SCHEMA.field("example_id"),
                                          pa.array(ids, pa.int64()))
                        .set_column(0, SIMPLIFIED_SCHEMA.field("question_text"), questions))
        hf_writer.write_table(hf_chunk, row_group_size=10_000)
        simple_writer.write_table(simple_chunk, row_group_size=10_000)
    hf_writer.close()
    simple_writer.close()


def timed(label: str, root: str) -> None:
    began, cpu = time.perf_counter(), time.process_time()
    violations = check_invariants(root, DECLARATIONS[label])
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{label:<24} {seconds:7.2f} s ({cpu:6.2f} s CPU)  peak RSS {rss:,.0f} MiB  "
          f"violations {len(violations)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000, help="a multiple of 1,000")
    parser.add_argument("--tokens", type=int, default=200, help="document tokens per example")
    args = parser.parse_args()
    spawn = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as directory:
        began = time.perf_counter()
        writer = spawn.Process(target=write_release,
                               args=(Path(directory), args.rows, args.tokens))
        writer.start()
        writer.join()
        print(f"wrote {args.rows:,} examples x 2 formats in "
              f"{time.perf_counter() - began:.1f} s", flush=True)
        for label in DECLARATIONS:
            process = spawn.Process(target=timed, args=(label, directory))
            process.start()
            process.join()


if __name__ == "__main__":
    main()
