"""Speed of NQ stage 2: page tokenization + candidates, local search, end to end. Not a test.

    python benchmarks/bench_nq.py [--repeat 20]
    python benchmarks/bench_nq.py --repeat 1 \
        --beam-args="--direct_running_mode=multi_processing --direct_num_workers=2"

* pages/s of NQ tokenization + long-answer candidates over the bundled Wikipedia-like pages
  (and the real NQ pages in ../shared/data/nq when present), against a bare ``lxml.html``
  parse of the same pages (the limit), with the ratio;
* search queries/s of the local BM25 index (bundled corpus) on the NQ-open questions in
  ../shared/data/queries when present, else the bundled sample questions;
* end-to-end questions/s of ``build_nq`` on a pre-aggregated log of those questions, against
  the plain-Python limit of the same work, each in a process of its own (peak RSS of each):

  - ``plain``: one Python loop, one process, no Beam runner, over the functions the stages
    call, with ``build_nq``'s defaults (``NqOptions()``): read and validate the log rows,
    normalize and aggregate them (``AggregateQueryFn``'s methods called directly), users in
    the window, the cheap checks, spaCy length and NQ heuristics in batches of
    ``--batch-size``, local BM25 search and the top Wikipedia hit, the page from the local
    page store (redirects dropped), NQ tokens and candidates once per page, the
    original-format example, the split, and the same hash-sharded, sorted Parquet and
    ``nq_original`` JSON-lines shards (byte-identical to the pipeline's; checked);
  - ``pipeline``: ``pipelines.build_nq.run`` with ``--beam-args`` (default DirectRunner).

  Not in the plain loop: the release bookkeeping (counters and tallies, histograms,
  ``stats.json``, card, manifest, checksums, staging and publishing), the compressed-file
  layer of the log reader (the log is plain JSON lines) and Beam's ``Shared`` search
  handle; ``transforms.*`` modules import Beam, so the plain process holds it in memory.
  Two private helpers are called so as not to copy them: the redirect pattern of
  ``FetchPages`` and the shard hash of ``WriteShards``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from child_process import peak_rss_mb, report, run_child

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


def run_plain(log: Path, output: Path) -> dict:
    """The plain-Python limit of ``build_nq`` on ``log``: the same functions in one loop, one
    process; writes the data files under ``output``."""
    from transforms.nq.spec import NqOptions

    options = NqOptions()
    started = time.perf_counter()
    questions = _select_questions(log, options)
    splits = _examples(questions, options)
    _write_splits(splits, output, options)
    return {"seconds": time.perf_counter() - started,
            "rows": sum(len(rows) for rows in splits.values())}


def _select_questions(log: Path, options: Any) -> list[dict]:
    """Stage 1: read, normalize and aggregate the log; users in the window; the cheap checks,
    spaCy length and NQ heuristics (``IssuedByUsers``, ``SelectQuestions``)."""
    from filters.nq.category_lexicon import CategoryLexicon
    from filters.nq.heuristics import matched_heuristics, query_view
    from filters.nq.queries import INT64_MAX, MIN_TOKENS, cheap_rejection
    from filters.text.spacy_models import load_english
    from transforms.nq.questions import candidate_row
    from transforms.nq.spec import read_categories
    from transforms.sources.query_log_options import log_fields
    from transforms.sources.query_logs import (
        AggregateQueryFn,
        infer_format,
        iter_rows,
        key_by_normalized_query,
        to_record,
    )

    fields, aggregate, stats = log_fields(options), AggregateQueryFn(), {}
    for _, row in iter_rows(log.read_bytes(), infer_format(str(log), options.format)):
        try:
            if isinstance(row, Exception):
                raise row
            key, record = key_by_normalized_query(to_record(row, fields))
        except (ValueError, TypeError, OverflowError):
            continue  # malformed: the pipeline dead-letters it
        if key not in stats:
            stats[key] = aggregate.create_accumulator()
        aggregate.add_input(stats[key], record)
    candidates = []
    for question in sorted(stats):
        row = candidate_row(question, stats[question], options.window)
        counts = (row["events"], row["users_in_window"], row["distinct_users"])
        if max(counts) <= INT64_MAX and row["users_in_window"] >= options.min_users:
            candidates.append(row)
    nlp = load_english()
    lexicon = CategoryLexicon.from_tsv(read_categories(options.categories),
                                       options.min_category_count)
    selected = []
    for start in range(0, len(candidates), options.batch_size):
        survivors = []
        for row in candidates[start:start + options.batch_size]:
            if cheap_rejection(row["question"]) is None:
                tokens = len(nlp.tokenizer(row["question"]))
                if tokens >= MIN_TOKENS:
                    survivors.append({**row, "tokens": tokens})
        docs = nlp.pipe([row["question"] for row in survivors])
        for row, doc in zip(survivors, docs, strict=True):
            fired = matched_heuristics(query_view(doc), lexicon.__contains__)
            if fired:
                selected.append({**row, "heuristics": fired})
    return selected


def _examples(questions: list[dict], options: Any) -> dict[str, list[dict]]:
    """Stage 2: search, the top Wikipedia hit, its page (once), NQ tokens and candidates
    (once per page), the original-format example and its split (``LinkAndFetch``,
    ``BuildExamples``, ``original_example``, ``assign_split``)."""
    from filters.nq.candidates import nq_document
    from filters.nq.search_hits import TOP_K, top_wikipedia_hit, wikipedia_title
    from filters.text.splits import assign_split
    from transforms.clients.local_search import LocalSearch
    from transforms.nq.backends import LocalPageFetcher
    from transforms.nq.examples import original_example
    from transforms.nq.linking import _REDIRECT, PageDrop
    from transforms.sources.index_copy import local_index
    from transforms.sources.search_corpus import ensure_sample_index

    index_dir = local_index(ensure_sample_index(lang=options.lang))
    search, fetcher = LocalSearch(index_dir), LocalPageFetcher(index_dir, options.lang)
    by_title: dict[str, list[dict]] = {}
    for row in questions:
        hits = search.search(row["question"], TOP_K)
        hit = top_wikipedia_hit(hits, options.lang, TOP_K)
        if hit is not None:
            by_title.setdefault(wikipedia_title(hit.url, options.lang), []).append(
                {**row, "search_rank": hit.rank, "search_snippet": hit.snippet,
                 "search_hits": [h.url for h in hits]})
    splits: dict[str, list[dict]] = {}
    for title in sorted(by_title):
        try:
            page = fetcher.fetch(title)
        except PageDrop:
            continue
        if _REDIRECT.search(page.html[:20000]):
            continue
        tokens, candidates = nq_document(page.html)
        if not candidates:
            continue
        for row in by_title[title]:
            example = original_example(page, row, tokens, candidates)
            split = assign_split(example["question_text"], options.split_salt,
                                 options.split_ratios)
            splits.setdefault(split, []).append(example)
    search.close()
    fetcher.close()
    return splits


def _write_splits(splits: dict[str, list[dict]], output: Path, options: Any) -> None:
    """Both formats, sharded and sorted as ``WriteShards`` does (same names, same bytes)."""
    from transforms.nq.examples import HF_SCHEMA, hf_example, jsonl_gz_bytes, nq_shard_name
    from transforms.release.formats import parquet_bytes, shard_name
    from transforms.release.shards import _stable_int

    for split, rows in splits.items():
        count = max(1, math.ceil(len(rows) / options.max_rows_per_shard))
        shards: list[list[dict]] = [[] for _ in range(count)]
        for row in rows:
            shards[_stable_int(row["question_text"], "shard") % count].append(row)
        for index, shard in enumerate(shards):
            if not shard:
                continue
            shard.sort(key=lambda row: row["question_text"])
            for path, data in (
                    (output / split / shard_name(split, index, count, "parquet"),
                     parquet_bytes([hf_example(row) for row in shard], HF_SCHEMA)),
                    (output / "nq_original" / split / nq_shard_name(split, index, count),
                     jsonl_gz_bytes(shard))):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)


def run_pipeline(log: Path, output: Path, beam_args: list[str]) -> dict:
    """``build_nq`` end to end on ``log``."""
    from pipelines.build_nq import run

    started = time.perf_counter()
    result = run([*beam_args, "--input", str(log), "--output", str(output),
                  "--stop-after", "examples", "--sample-index"])  # the plain limit's index
    return {"seconds": time.perf_counter() - started, "path": str(result["path"]),
            "rows": sum(result["manifest"]["rows_per_split"].values())}


def child(mode: str, log: Path, output: Path, beam_args: list[str]) -> None:
    result = run_plain(log, output) if mode == "plain" else run_pipeline(log, output, beam_args)
    result["peak_rss_mb"] = peak_rss_mb()
    report(result)


def measure(mode: str, log: Path, output: Path, beam_args: list[str]) -> dict:
    command = [sys.executable, __file__, "--child", mode, "--log", str(log), "--out",
               str(output), f"--beam-args={shlex.join(beam_args)}"]
    return run_child(command, f"{mode} run", ROOT)


def data_files(directory: Path) -> dict[str, bytes]:
    """The split shards of a release (``<split>/*.parquet``, ``nq_original/``) by path."""
    return {str(p.relative_to(directory)): p.read_bytes()
            for pattern in ("*/*.parquet", "nq_original/*/*.jsonl.gz")
            for p in directory.glob(pattern) if not p.is_relative_to(directory / "rejected")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20, help="passes over the pages")
    parser.add_argument("--beam-args", default="--runner=DirectRunner",
                        help="Beam options for the build_nq run, one string")
    parser.add_argument("--child", choices=("plain", "pipeline"), help=argparse.SUPPRESS)
    parser.add_argument("--log", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    beam_args = shlex.split(args.beam_args)
    if args.child:
        child(args.child, Path(args.log), Path(args.out), beam_args)
        return
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
    with tempfile.TemporaryDirectory(prefix="bench_nq_") as tmp:
        log = Path(tmp) / "log.jsonl"
        log.write_text("".join(json.dumps({"query": q, "count": 2, "users": 2}) + "\n"
                               for q in qs), encoding="utf-8")
        plain = measure("plain", log, Path(tmp) / "plain", beam_args)
        pipeline = measure("pipeline", log, Path(tmp) / "release", beam_args)
        ours, theirs = data_files(Path(tmp) / "plain"), data_files(Path(pipeline["path"]))
    print(f"  build_nq end to end, {len(qs)} questions (pre-aggregated log):")
    for name, result in (("plain Python (limit)", plain), (f"pipeline {args.beam_args}",
                                                            pipeline)):
        rate = len(qs) / result["seconds"]
        print(f"    {name:43s} {result['seconds']:7.2f} s  {rate:8.1f} questions/s  "
              f"peak RSS {result['peak_rss_mb']:7.1f} MB  examples {result['rows']}")
    print(f"    ratio pipeline/plain time: {pipeline['seconds'] / plain['seconds']:.2f}x")
    print(f"    data files identical: {'yes' if ours == theirs else 'NO'} "
          f"({len(ours)} plain, {len(theirs)} pipeline)")


if __name__ == "__main__":
    main()
