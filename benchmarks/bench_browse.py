"""Benchmark the release browser's site generation against the plain-Python limit. Not a test.

    python benchmarks/bench_browse.py --examples 100000 [--kind generic|nlquad]

Synthesizes a release of ``--examples`` rows (train/dev/test 80/10/10, Parquet shards of
20,000 rows, a manifest and stats as the pipelines publish them, some rejected records):

* ``generic``: question-answering rows (id, title, URL, a question of ~9 words, a context of
  ~150 words, answers) of a dataset without its own renderer, so one entry per row;
* ``nlquad``: NLQuAD rows (``transforms.nlquad.schema``), three questions per article with
  their answer spans in a ~600-word context, shown by the NLQuAD renderer (one entry per
  article, the spans highlighted).

Then measures in separate processes (the release, too, is written by one, so that the peak
RSS of each measured process is its own): the plain loop of the same work (read every row of the
main tables with pyarrow and write the ``html.escape``'d text of every value, 100 rows per
file) — the limit — and ``transforms.browse.site.write_site`` on the release (page size
100). Prints rows/s, entries/s, peak RSS, the site's size and the time ratio.
"""

from __future__ import annotations

import argparse
import html
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from child_process import report, run_child  # noqa: E402

SHARD_ROWS = 20_000
SPLITS = (("train", 0.8), ("dev", 0.1), ("test", 0.1))
WORDS = ("the", "port", "workers", "minister", "said", "new", "rules", "would", "cost",
         "million", "people", "city", "council", "plan", "after", "years", "of", "talks",
         "government", "report", "found", "that", "many", "schools", "were", "closed", "in",
         "winter", "because", "storm", "damage", "experts", "warned", "prices", "rise",
         "local", "families", "support", "change", "river", "bridge", "company", "shares")
QUESTIONS = ("What are the new rules?", "How much will it cost?", "What happens next?",
             "Why does it matter?", "Who is affected?", "What did the minister say?")
GENERIC = pa.schema([("id", pa.string()), ("title", pa.string()), ("url", pa.string()),
                     ("question", pa.string()), ("context", pa.string()),
                     ("answers", pa.list_(pa.string()))])


def sentence_pool(rng: random.Random, size: int = 2000) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))).capitalize() + "."
            for _ in range(size)]


def generic_rows(rng: random.Random, pool: list[str], start: int, n: int):
    for i in range(start, start + n):
        context = " ".join(rng.choices(pool, k=10))
        yield {"id": f"ex-{i:07d}", "title": rng.choice(pool)[:60], "question":
               f"{rng.choice(QUESTIONS)[:-1]} {i}?", "url": f"https://example.org/a/{i}",
               "context": context, "answers": [context[:80]]}


def nlquad_rows(rng: random.Random, pool: list[str], start: int, n: int):
    """Rows of articles with three questions each; each answer a paragraph-aligned span."""
    made = 0
    article = start // 3
    while made < n:
        paragraphs = [" ".join(rng.choices(pool, k=4)) for _ in range(12)]
        context = "\n".join(paragraphs)
        document_id = f"bbc-{article:08d}"
        offsets, position = [], 0
        for paragraph in paragraphs:
            offsets.append((position, position + len(paragraph)))
            position += len(paragraph) + 1
        for q in range(1, 4):
            if made == n:
                break
            first, last = offsets[(q - 1) * 4][0], offsets[(q - 1) * 4 + 3][1]
            answer = context[first:last]
            words_before = len(context[:first].split())
            made += 1
            yield {"id": f"{document_id}-q{q}", "document_id": document_id,
                   "title": f"Article {article}: {pool[article % len(pool)][:50]}",
                   "date": "2017-04-05", "published": "2017-04-05T07:18:44Z",
                   "url": f"https://www.bbc.co.uk/news/uk-{article:08d}",
                   "capture_url": f"http://www.bbc.co.uk/news/uk-{article:08d}",
                   "capture_timestamp": "20170405071844", "layout_era": "B",
                   "question": f"{QUESTIONS[(article + q) % len(QUESTIONS)][:-1]} ({q})?",
                   "question_index": q, "context": context, "answer_text": answer,
                   "answer_start": first, "answer_end": last,
                   "answer_word_start": words_before,
                   "answer_word_end": words_before + len(answer.split()),
                   "answer_paragraphs": 4, "answers": {"text": [answer],
                                                       "answer_start": [first]}}
        article += 1


def synthesize(root: Path, kind: str, examples: int) -> Path:
    """Publish the synthetic release under ``root``; its version directory."""
    from transforms.release import ReleaseTarget, jsonl_bytes, publish
    from transforms.release.staging import claim_staging

    if kind == "nlquad":
        from transforms.nlquad.schema import NLQUAD_SCHEMA as schema
        make_rows = nlquad_rows
    else:
        schema, make_rows = GENERIC, generic_rows
    dataset = "nlquad" if kind == "nlquad" else "bench_qa"
    rng = random.Random(14)
    pool = sentence_pool(rng)
    target = ReleaseTarget.create(str(root), dataset, "1.0.0")
    claim_staging(target)
    start = 0
    for split, share in SPLITS:
        total = round(examples * share) if split != "test" else examples - start
        shards = max(1, -(-total // SHARD_ROWS))
        for shard in range(shards):
            n = min(SHARD_ROWS, total - shard * SHARD_ROWS)
            path = Path(target.staging_dir, split, f"{split}-{shard:05d}-of-{shards:05d}.parquet")
            path.parent.mkdir(parents=True, exist_ok=True)
            rows = list(make_rows(rng, pool, start, n))
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, compression="zstd")
            start += n
    rejected = Path(target.staging_dir, "rejected", "dropped_questions",
                    "dropped_questions-00000-of-00001.jsonl")
    rejected.parent.mkdir(parents=True)
    rejected.write_bytes(jsonl_bytes([{"id": f"x{i}", "reason": ("too_short", "no_answer")[i % 2],
                                       "question": rng.choice(QUESTIONS)}
                                      for i in range(examples // 100)]))
    stats = {"counts": {"questions": {"input": examples + examples // 100, "kept": examples,
                                      "dropped.too_short": examples // 200,
                                      "dropped.no_answer": examples // 100 - examples // 200}}}
    publish(target, overwrite=False, splits=[s for s, _ in SPLITS], schema=schema,
            field_docs={}, options={"command": "python benchmarks/bench_browse.py"}, source={},
            make_stats=lambda *_: stats, make_card=lambda *_: "benchmark release\n")
    return Path(target.final_dir)


def plain(release: Path, out: Path) -> dict[str, Any]:
    """The limit: read every main-table row and write its values' escaped text."""
    started = time.perf_counter()
    out.mkdir(parents=True)
    rows, page, lines = 0, 0, []
    for split, _ in SPLITS:
        for path in sorted((release / split).glob("*.parquet")):
            for batch in pq.ParquetFile(path).iter_batches(batch_size=256):
                for row in batch.to_pylist():
                    lines.append("".join(f"<p>{html.escape(str(v), quote=True)}</p>"
                                         for v in row.values()))
                    rows += 1
                    if len(lines) == 100:
                        page += 1
                        (out / f"page-{page:05d}.html").write_text("\n".join(lines), "utf-8")
                        lines = []
    if lines:
        (out / f"page-{page + 1:05d}.html").write_text("\n".join(lines), "utf-8")
    return {"seconds": time.perf_counter() - started, "rows": rows, "entries": rows}


def site(release: Path, out: Path) -> dict[str, Any]:
    from transforms.browse.site import write_site

    started = time.perf_counter()
    summary = write_site(str(release), str(out), page_size=100)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "rows": sum(summary["examples"]["rows_read"].values()),
            "entries": summary["examples"]["entries"], "renderer": summary["renderer"]}


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


def measure(mode: str, release: Path, out: Path) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", mode, "--release", str(release),
               "--out", str(out)]
    result = run_child(command, mode, ROOT)
    result["mb"] = size_mb(out)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=100_000, help="rows of the release")
    parser.add_argument("--kind", choices=("generic", "nlquad"), default="generic")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--release", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "synthesize":
        report(str(synthesize(Path(args.out), args.kind, args.examples)))
        return
    if args.child:
        run = plain if args.child == "plain" else site
        result = run(Path(args.release), Path(args.out))
        result["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        report(result)
        return
    with tempfile.TemporaryDirectory(prefix="bench_browse_") as tmp:
        started = time.perf_counter()
        release = Path(run_child([sys.executable, __file__, "--child", "synthesize", "--kind",
                                  args.kind, "--examples", str(args.examples), "--out",
                                  str(Path(tmp) / "releases")], "synthesize", ROOT))
        made = time.perf_counter() - started
        limit = measure("plain", release, Path(tmp) / "plain")
        full = measure("site", release, Path(tmp) / "site")
    print(f"Release browser benchmark: a synthetic {args.kind} release of {args.examples} "
          f"rows (written in {made:.1f} s)")
    for name, r in (("plain loop: read rows + html.escape (limit)", limit),
                    (f"write_site ({full['renderer']} renderer)", full)):
        print(f"  {name:44s} {r['seconds']:7.2f} s  {r['rows'] / r['seconds']:8.0f} rows/s  "
              f"{r['entries'] / r['seconds']:8.0f} entries/s  peak RSS {r['rss']:5.0f} MB  "
              f"output {r['mb']:6.0f} MB")
    print(f"  {full['entries']} entries; ratio write_site/plain time: "
          f"{full['seconds'] / limit['seconds']:.2f}x")


if __name__ == "__main__":
    main()
