"""Speed of NQ stage 2: page tokenization + candidates, local search, end to end. Not a test.

    python benchmarks/bench_nq.py [--repeat 20]

* pages/s of NQ tokenization + long-answer candidates over the bundled Wikipedia-like pages
  (and the real NQ pages in ../shared/data/nq when present), against a bare ``lxml.html``
  parse of the same pages (the limit), with the ratio;
* search queries/s of the local BM25 index (bundled corpus) on the NQ-open questions in
  ../shared/data/queries when present, else the bundled sample questions;
* end-to-end questions/s of ``build_nq`` (DirectRunner) on a pre-aggregated log of those
  questions; peak RSS of the process.
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "data"


def bundled_pages() -> list[str]:
    corpus = ROOT / "pipelines" / "samples" / "nq" / "corpus" / "wiki"
    return [p.read_text(encoding="utf-8") for p in sorted(corpus.glob("*.html"))]


def real_pages() -> list[str]:
    path = SHARED / "nq" / "nq_dev_original_first3.jsonl.gz"
    if not path.exists():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line)["document_html"] for line in handle]


def questions() -> list[str]:
    path = SHARED / "queries" / "en_nq_open_efficientqa_dev.jsonl"
    if path.exists():
        return [json.loads(x)["question"] for x in path.read_text().splitlines() if x.strip()]
    from pipelines.build_nq import run

    with tempfile.TemporaryDirectory() as tmp:
        result = run(["--runner=DirectRunner", "--stop-after", "questions", "--output", tmp])
        import pyarrow.dataset as ds

        return ds.dataset(Path(result["path"]) / "questions").to_table()["question"].to_pylist()


def time_pages(pages: list[str], repeat: int) -> tuple[float, float]:
    from lxml import html as lxml_html

    from filters.nq.candidates import nq_document

    # Interleaved passes, so that load from a neighbour on a shared core hits both alike.
    bare = full = 0.0
    for _ in range(repeat):
        started = time.perf_counter()
        for page in pages:
            lxml_html.document_fromstring(page)
        bare += time.perf_counter() - started
        started = time.perf_counter()
        for page in pages:
            nq_document(page)
        full += time.perf_counter() - started
    n = len(pages) * repeat
    return n / full, n / bare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20, help="passes over the pages")
    args = parser.parse_args()
    from transforms.clients.local_search import LocalSearch
    from transforms.sources.search_corpus import ensure_sample_index

    print("NQ stage 2 benchmark (one core)")
    for name, pages in (("bundled Wikipedia-like pages", bundled_pages()),
                        ("real NQ pages (../shared/data/nq)", real_pages())):
        if not pages:
            continue
        size = sum(len(p.encode()) for p in pages) / len(pages) / 1024
        ours, limit = time_pages(pages, args.repeat if len(pages) > 3 else args.repeat * 5)
        print(f"  tokens + candidates, {name} ({len(pages)} pages, {size:.0f} KB avg): "
              f"{ours:7.1f} pages/s; bare lxml parse {limit:7.1f} pages/s; "
              f"ratio {ours / limit:.2f}")
    qs = questions()
    index = LocalSearch(ensure_sample_index())
    started = time.perf_counter()
    for q in qs:
        index.search(q, 5)
    elapsed = time.perf_counter() - started
    print(f"  local search ({len(index)} pages indexed): {len(qs) / elapsed:8.0f} queries/s "
          f"over {len(qs)} questions")
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log.jsonl"
        log.write_text("".join(json.dumps({"query": q, "count": 2, "users": 2}) + "\n"
                               for q in qs), encoding="utf-8")
        from pipelines.build_nq import run

        started = time.perf_counter()
        result = run(["--runner=DirectRunner", "--input", str(log), "--output",
                      str(Path(tmp) / "out"), "--stop-after", "examples"])
        elapsed = time.perf_counter() - started
    examples = sum(result["manifest"]["rows_per_split"].values())
    print(f"  build_nq end to end: {len(qs)} questions in {elapsed:.1f} s = "
          f"{len(qs) / elapsed:.0f} questions/s ({examples} examples written)")
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
