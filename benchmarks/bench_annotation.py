"""Benchmark ``annotate import`` (NQ) against the plain-Python loop of the same work. Not a test.

    python benchmarks/bench_annotation.py                 # NQ scale: 300k 1-way + 8k 5-way
    python benchmarks/bench_annotation.py --scale 0.1     # a tenth of it

Synthesizes a release in NQ's original format (300,000 x ``--scale`` 1-way train examples and
8,000 x ``--scale`` 5-way dev examples; each document has ``--paragraphs`` (6) paragraphs of 10
tokens, each a long-answer candidate) and its votes (one per annotator per example;
``--paragraphs`` makes the documents longer), then measures in separate processes: the plain
loop of the same work — read the examples and votes, parse and check every vote, keep the latest
per annotator, build NQ's ``annotations`` and write the annotated examples as gzipped JSON lines
and HuggingFace-layout Parquet — (the limit) and ``python -m pipelines.annotate import``
(DirectRunner; it also writes the votes table, stats with kappa and worker agreement, and the
card).
Prints examples/s, votes/s, peak RSS and the time ratio.
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from child_process import report, run_child

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = ("the river flows north through the valley and feeds the lake near the old town "
         "where the bridge was built in the year of the flood").split()


PARAGRAPHS = 6


def _example(number: int) -> dict:
    tokens, candidates, offset = [], [], 0
    for paragraph in range(PARAGRAPHS):
        start = len(tokens)
        for word in ["<P>", *WORDS[paragraph % 6:paragraph % 6 + 8], "</P>"]:
            tokens.append({"token": word, "start_byte": offset,
                           "end_byte": offset + len(word), "html_token": word.startswith("<")})
            offset += len(word) + 1
        candidates.append({"start_token": start, "end_token": len(tokens),
                           "start_byte": tokens[start]["start_byte"],
                           "end_byte": tokens[-1]["end_byte"], "top_level": True})
    return {"example_id": number, "question_text": f"where does river {number} flow",
            "question_tokens": ["where", "does", "river", str(number), "flow"],
            "document_url": f"https://en.wikipedia.org//w/index.php?title=R{number}&amp;oldid=1",
            "document_title": f"River {number}", "document_html": "<html></html>",
            "document_tokens": tokens, "long_answer_candidates": candidates,
            "annotations": []}


def _vote(number: int, annotator: int) -> dict:
    candidate = (number + annotator) % (PARAGRAPHS + 1) - 1
    shorts = []
    if candidate >= 0 and annotator % 2 == 0:
        start = candidate * 10 + 2
        shorts = [{"start_token": start, "end_token": start + 2}]
    return {"example_id": str(number), "annotator_id": f"w{annotator:03d}",
            "question_good": True, "long_answer_candidate": candidate,
            "short_answers": shorts, "yes_no_answer": "NONE"}


def synthesize(root: Path, train: int, dev: int) -> tuple[Path, Path, int]:
    release = root / "nq" / "bench"
    votes = root / "votes.jsonl"
    count = 0
    with open(votes, "w", encoding="utf-8") as out:
        for split, n, ways, first in (("train", train, 1, 0), ("dev", dev, 5, train)):
            folder = release / "nq_original" / split
            folder.mkdir(parents=True)
            with gzip.open(folder / f"nq-{split}-00.jsonl.gz", "wt", encoding="utf-8",
                           compresslevel=1) as handle:
                for number in range(first, first + n):
                    handle.write(json.dumps(_example(number)) + "\n")
                    for annotator in range(ways):
                        out.write(json.dumps(_vote(number, annotator)) + "\n")
                        count += 1
    from transforms.release.manifest import file_manifest

    (release / "dataset_info.json").write_text(json.dumps(  # import verifies the release first
        {"dataset": "nq", "version": "bench", "splits": ["train", "dev"],
         "files": file_manifest(str(release))}), encoding="utf-8")
    return release, votes, count


def plain(release: Path, votes_path: Path, out: Path) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from filters.annotation.nq import NqVoteError, check_nq_vote, nq_annotation
    from filters.annotation.votes import latest_votes, parse_nq_vote
    from transforms.nq.examples import HF_SCHEMA, hf_example

    started = time.perf_counter()
    votes = defaultdict(list)
    with open(votes_path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            vote = parse_nq_vote(json.loads(line), str(votes_path), number)
            votes[vote.example_id].append(vote)
    examples = 0
    out.mkdir(parents=True)
    for split, ways in (("train", 1), ("dev", 5)):
        source = release / "nq_original" / split / f"nq-{split}-00.jsonl.gz"
        with gzip.open(source, "rt", encoding="utf-8") as handle, gzip.open(
                out / f"{split}.jsonl.gz", "wt", encoding="utf-8") as sink, pq.ParquetWriter(
                out / f"{split}.parquet", HF_SCHEMA, compression="zstd") as writer:
            batch = []
            for line in handle:
                example = json.loads(line)
                usable = []
                for vote in votes.get(str(example["example_id"]), []):
                    try:
                        check_nq_vote(vote, example)
                    except NqVoteError:
                        continue
                    usable.append(vote)
                latest = latest_votes(usable)
                if len(latest) < ways:
                    continue
                example["annotations"] = [nq_annotation(v, example) for v in latest]
                sink.write(json.dumps(example) + "\n")
                batch.append(hf_example(example))
                if len(batch) == 1000:
                    writer.write_table(pa.Table.from_pylist(batch, schema=HF_SCHEMA))
                    batch = []
                examples += 1
            if batch:
                writer.write_table(pa.Table.from_pylist(batch, schema=HF_SCHEMA))
    return {"seconds": time.perf_counter() - started, "examples": examples}


def pipeline(release: Path, votes: Path, out: Path) -> dict:
    from pipelines.annotate import run

    started = time.perf_counter()
    result = run(["import", "--dataset", "nq", "--input", str(release), "--votes", str(votes),
                  "--ways", "train=1,dev=5", "--output", str(out), "--runner=DirectRunner"])
    return {"seconds": time.perf_counter() - started,
            "examples": result["stats"]["counts"]["examples"]["annotated"]}


def measure(mode: str, release: Path, votes: Path, out: Path) -> dict:
    command = [sys.executable, __file__, "--child", mode, "--paragraphs", str(PARAGRAPHS),
               "--release", str(release),
               "--votes", str(votes), "--out", str(out)]
    return run_child(command, mode, ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of NQ's size (300,000 1-way + 8,000 5-way examples)")
    parser.add_argument("--paragraphs", type=int, default=6,
                        help="paragraphs (10 tokens each) per document; NQ pages have hundreds")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--release", help=argparse.SUPPRESS)
    parser.add_argument("--votes", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global PARAGRAPHS
    PARAGRAPHS = args.paragraphs
    if args.child:
        paths = Path(args.release), Path(args.votes), Path(args.out)
        result = plain(*paths) if args.child == "plain" else pipeline(*paths)
        result["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        report(result)
        return
    train, dev = int(300_000 * args.scale), int(8_000 * args.scale)
    with tempfile.TemporaryDirectory(prefix="bench_annotation_") as tmp:
        release, votes, count = synthesize(Path(tmp), train, dev)
        limit = measure("plain", release, votes, Path(tmp) / "plain")
        full = measure("pipeline", release, votes, Path(tmp) / "releases")
    assert limit["examples"] == full["examples"] == train + dev, (limit, full)
    print(f"Annotation import benchmark: {train} 1-way + {dev} 5-way NQ examples of "
          f"{PARAGRAPHS * 10} tokens, {count} votes")
    for name, r in (("plain loop: parse, check, annotate (limit)", limit),
                    ("annotate import, DirectRunner", full)):
        print(f"  {name:44s} {r['seconds']:7.1f} s  {r['examples'] / r['seconds']:8.0f} "
              f"examples/s  {count / r['seconds']:8.0f} votes/s  peak RSS {r['rss']:6.0f} MB")
    print(f"  ratio pipeline/plain time: {full['seconds'] / limit['seconds']:.2f}x")


if __name__ == "__main__":
    main()
