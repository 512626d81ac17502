"""Local search at Wikipedia scale (issue 15 §3): our index against bm25s's own retrieval and
against tantivy, on the synthetic corpus of ``search_scale_corpus`` (Zipfian vocabulary,
Wikipedia-like lengths; its docstring gives the parameters).

    python benchmarks/bench_search_scale.py                       # 1M documents (about 30 min)
    python benchmarks/bench_search_scale.py --docs 100000 --no-tantivy
    pip install 'tantivy==0.27.0'                                 # for the tantivy rows

Each phase runs in a process of its own (``child_process.run_child``), so each peak RSS
(``VmHWM``) is that phase's alone:

* **ours, build**: ``transforms.sources.search_corpus.build_index`` (out-of-core bm25s-format
  index, page store, ``docs`` Parquet), corpus generation timed apart;
* **ours, query**: ``LocalSearch.search`` (top 5, URL, title and snippet, as ``build_nq``
  uses it) twice, the first pass faulting the mapped index in, then ``Bm25Index.top_k``
  alone (ids only: MaxScore in C), the same with ``top_k_threshold`` (the numpy threshold
  algorithm, the path before the C extension) and page fetches by title;
* **bm25s retrieve** (the library's own path, the limit we replace): ``bm25s.BM25.load(mmap=
  True)`` on the same files and ``retrieve(k=5)``, ids only;
* **tantivy** (PyPI ``tantivy``): build (HTML not stored: the page store serves pages), then
  ids-only and ids + url/title queries (``search_scale_tantivy``);
* **HTML growth**: ours built twice at ``--html-docs`` documents, with and without
  ``--html-padding-bytes`` of hidden HTML per page, queried the same: the query-time RSS
  must not grow with the stored HTML.

Queries/s are per CPU-second of the querying process (one thread: the per-core figure; the
target is 500). Top-5 agreement compares our ids with bm25s's (must be 1.0: the same
scores) and with tantivy's (k1 1.2 and quantised lengths against our k1 1.5: high, not 1.0).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from child_process import Timed, peak_rss_mb, report, rss_split_mb, run_child, timed

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))


def _corpus():
    import search_scale_corpus

    return search_scale_corpus


def _tantivy():
    import search_scale_tantivy

    return search_scale_tantivy


def child_build(args: argparse.Namespace) -> dict[str, Any]:
    from transforms.sources.search_corpus import build_index

    corpus = _corpus()
    corpus.prepare()
    before = peak_rss_mb()
    records = Timed(corpus.iter_records(args.docs, args.seed, args.html_padding_bytes))
    started, cpu = time.perf_counter(), time.process_time()
    docs = build_index(records, args.index, ordered=True)
    return {"docs": docs, "seconds": time.perf_counter() - started - records.seconds,
            "cpu_seconds": time.process_time() - cpu, "generate_seconds": records.seconds,
            "disk": _disk(args.index), "rss_before_mb": before, "rss_mb": peak_rss_mb()}


def _disk(directory: str) -> dict[str, int]:
    disk_bytes = _tantivy().disk_bytes
    return {part: disk_bytes(str(Path(directory) / part)) for part in ("bm25", "pages", "docs")}


def child_query(args: argparse.Namespace) -> dict[str, Any]:
    from filters.nq.search_hits import wikipedia_title
    from transforms.clients.bm25_index import NATIVE_TOP_K
    from transforms.clients.local_search import LocalSearch

    queries = json.loads(Path(args.query_file).read_text(encoding="utf-8"))
    before = peak_rss_mb()
    started = time.perf_counter()
    search = LocalSearch(args.index)
    opened = time.perf_counter() - started
    rss_open = peak_rss_mb()
    ranked: list[list[int]] = []
    urls: list[str] = []
    doc_index = _corpus().doc_index

    def run(query: str) -> None:
        hits = search.search(query, 5)
        ranked.append([doc_index(h.url) for h in hits])
        urls.extend(h.url for h in hits[:1])

    cold = timed(run, queries)  # the first pass faults the mapped index pages in
    ranked.clear()
    full = timed(run, queries)
    tokenize, index = search._tokenize, search._index
    ids = timed(lambda q: index.top_k(tokenize([q])[0], 5), queries)
    numpy_ids = timed(lambda q: index.top_k_threshold(tokenize([q])[0], 5), queries)
    titles = [wikipedia_title(url, "en") for url in urls]
    pages = timed(lambda title: search.page(title).html, titles)
    Path(args.results).write_text(json.dumps(ranked), encoding="utf-8")
    return {"queries": len(queries), "open_seconds": opened, "search": full, "cold": cold,
            "ids": ids, "numpy_ids": numpy_ids, "native": NATIVE_TOP_K,
            "pages": pages, "rss_before_mb": before, "rss_open_mb": rss_open,
            "rss_mb": peak_rss_mb(), "rss_end": rss_split_mb()}


def child_bm25s(args: argparse.Namespace) -> dict[str, Any]:
    from filters.text.bm25 import import_bm25s
    from transforms.clients.local_search import IndexTokenizer

    queries = json.loads(Path(args.query_file).read_text(encoding="utf-8"))
    bm25s = import_bm25s()
    before = peak_rss_mb()
    retriever = bm25s.BM25.load(str(Path(args.index) / "bm25"), mmap=True)
    tokenize = IndexTokenizer("en")
    ranked: list[list[int]] = []

    def run(query: str) -> None:
        tokens = [t for t in tokenize([query])[0] if t in retriever.vocab_dict]
        if not tokens:
            ranked.append([])
            return
        ids, scores = retriever.retrieve([tokens], k=5, show_progress=False)
        ranked.append([int(i) for i, s in zip(ids[0], scores[0], strict=True) if s > 0])

    sample = queries[:args.bm25s_queries]
    result = timed(run, sample)
    Path(args.results).write_text(json.dumps(ranked), encoding="utf-8")
    return {"queries": len(sample), "ids": result, "rss_before_mb": before,
            "rss_mb": peak_rss_mb()}


def child_tantivy_build(args: argparse.Namespace) -> dict[str, Any]:
    tantivy_side, corpus = _tantivy(), _corpus()
    corpus.prepare()
    before = peak_rss_mb()
    records = Timed(corpus.iter_records(args.docs, args.seed, args.html_padding_bytes))
    built = tantivy_side.build_tantivy(records, args.index, heap_mb=args.heap_mb, threads=1,
                                       store_html=False)
    return {**built, "seconds": built["seconds"] - records.seconds,
            "generate_seconds": records.seconds, "rss_before_mb": before,
            "rss_mb": peak_rss_mb()}


def child_tantivy_query(args: argparse.Namespace) -> dict[str, Any]:
    queries = json.loads(Path(args.query_file).read_text(encoding="utf-8"))
    before = peak_rss_mb()
    search = _tantivy().TantivySearch(args.index)
    search.search(queries[0], 5)
    ids = timed(lambda q: search.search(q, 5), queries)
    pages = timed(lambda q: search.search_pages(q, 5), queries)
    Path(args.results).write_text(json.dumps([search.search(q, 5) for q in queries]),
                                  encoding="utf-8")
    return {"queries": len(queries), "ids": ids, "pages": pages, "rss_before_mb": before,
            "rss_mb": peak_rss_mb()}


PHASES = {"build": child_build, "query": child_query, "bm25s": child_bm25s,
          "tantivy-build": child_tantivy_build, "tantivy-query": child_tantivy_query}


def agreement(first: list[list[int]], second: list[list[int]], k: int = 5) -> dict[str, float]:
    """Mean |A ∩ B| / k of the top-``k`` sets and the share of queries whose top 1 agree."""
    pairs = list(zip(first, second, strict=False))
    overlap = [len(set(a[:k]) & set(b[:k])) / k for a, b in pairs]
    top1 = [bool(a) and bool(b) and a[0] == b[0] for a, b in pairs]
    return {"overlap_at_k": sum(overlap) / len(pairs), "top1": sum(top1) / len(pairs),
            "queries": len(pairs)}


def _child(args: argparse.Namespace, phase: str, index: Path, results: Path,
           docs: int | None = None, padding: int | None = None) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", phase, "--index", str(index),
               "--docs", str(docs or args.docs), "--seed", str(args.seed),
               "--html-padding-bytes", str(args.html_padding_bytes if padding is None
                                           else padding),
               "--query-file", str(args.query_file), "--results", str(results),
               "--heap-mb", str(args.heap_mb), "--bm25s-queries", str(args.bm25s_queries)]
    return run_child(command, phase, ROOT)


def _queries(args: argparse.Namespace, docs: int, path: Path) -> list[str]:
    made = _corpus().queries(args.queries, args.query_seed, docs, args.seed)
    path.write_text(json.dumps(made), encoding="utf-8")
    return made


def _mb(value: float) -> str:
    return f"{value:,.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--query-seed", type=int, default=1)
    parser.add_argument("--seed", type=int, default=None, help="corpus seed")
    parser.add_argument("--bm25s-queries", type=int, default=300,
                        help="queries for bm25s's own retrieve (slow at scale)")
    parser.add_argument("--heap-mb", type=int, default=512, help="tantivy writer heap")
    parser.add_argument("--no-tantivy", action="store_true")
    parser.add_argument("--html-docs", type=int, default=50_000,
                        help="documents of the HTML-growth check (0: skip it)")
    parser.add_argument("--html-padding-bytes", type=int, default=0)
    parser.add_argument("--padding", type=int, default=20_000,
                        help="hidden HTML bytes per page in the HTML-growth check")
    parser.add_argument("--work-dir", default=None, help="where the indexes are built")
    parser.add_argument("--child", choices=sorted(PHASES), help=argparse.SUPPRESS)
    parser.add_argument("--index", help=argparse.SUPPRESS)
    parser.add_argument("--results", help=argparse.SUPPRESS)
    parser.add_argument("--query-file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    if args.seed is None:
        args.seed = _corpus().DEFAULT_SEED
    if args.child:
        report(PHASES[args.child](args))
        return
    with tempfile.TemporaryDirectory(prefix="bench_search_scale_", dir=args.work_dir) as tmp:
        run(args, Path(tmp))


def run(args: argparse.Namespace, tmp: Path) -> None:
    print(f"Search at scale: {args.docs:,} synthetic documents, {args.queries} queries "
          f"(one core each, q/s per CPU-second; target >= 500 q/s per core)")
    args.query_file = tmp / "queries.json"
    _queries(args, args.docs, args.query_file)
    ours = tmp / "ours"
    built = _child(args, "build", ours, tmp / "unused.json")
    disk = built["disk"]
    rate = built["docs"] / built["seconds"]
    print(f"  ours, build        {built['seconds']:7.1f} s = {rate:,.0f} docs/s  peak RSS "
          f"{_mb(built['rss_mb'])}  on disk: bm25 {_mb(disk['bm25'] / 1e6)}, "
          f"pages {_mb(disk['pages'] / 1e6)}, docs {_mb(disk['docs'] / 1e6)}  (generating the "
          f"corpus: {built['generate_seconds']:.0f} s more)")
    queried = _child(args, "query", ours, tmp / "ours.json")
    ranked = json.loads((tmp / "ours.json").read_text())
    print(f"  ours, search       {queried['search']['qps_per_cpu']:7,.0f} q/s (top 5 + url, "
          f"title, snippet; first pass {queried['cold']['qps_per_cpu']:,.0f})  ids only "
          f"{queried['ids']['qps_per_cpu']:,.0f} q/s ("
          f"{'MaxScore in C' if queried['native'] else 'C extension not built: numpy'}; the numpy "
          f"threshold path {queried['numpy_ids']['qps_per_cpu']:,.0f} q/s)  page by title "
          f"{queried['pages']['qps_per_cpu']:,.0f}/s  open {queried['open_seconds']:.2f} s  "
          f"peak RSS {_mb(queried['rss_mb'])} (open {_mb(queried['rss_open_mb'])}; at the end "
          f"anonymous {_mb(queried['rss_end'].get('RssAnon', 0))}, mapped files "
          f"{_mb(queried['rss_end'].get('RssFile', 0))})")
    limit = _child(args, "bm25s", ours, tmp / "bm25s.json")
    same = agreement(ranked, json.loads((tmp / "bm25s.json").read_text()))
    print(f"  bm25s retrieve     {limit['ids']['qps_per_cpu']:7,.0f} q/s (ids only, mmap, "
          f"{limit['queries']} queries)  peak RSS {_mb(limit['rss_mb'])}  -> ours ids only "
          f"{queried['ids']['qps_per_cpu'] / limit['ids']['qps_per_cpu']:.1f}x its speed; "
          f"top-5 agreement {same['overlap_at_k']:.3f}")
    if not args.no_tantivy:
        tantivy_dir = tmp / "tantivy"
        tbuilt = _child(args, "tantivy-build", tantivy_dir, tmp / "unused.json")
        tq = _child(args, "tantivy-query", tantivy_dir, tmp / "tantivy.json")
        agreed = agreement(ranked, json.loads((tmp / "tantivy.json").read_text()))
        print(f"  tantivy, build     {tbuilt['seconds']:7.1f} s = "
              f"{tbuilt['docs'] / tbuilt['seconds']:,.0f} docs/s (1 thread, generation apart)  "
              f"peak RSS {_mb(tbuilt['rss_mb'])}  on disk {_mb(tbuilt['disk_bytes'] / 1e6)}, "
              f"{tbuilt['segments']} segments")
        print(f"  tantivy, search    {tq['ids']['qps_per_cpu']:7,.0f} q/s ids only  "
              f"{tq['pages']['qps_per_cpu']:,.0f} q/s + url, title  peak RSS "
              f"{_mb(tq['rss_mb'])}  -> ours ids only "
              f"{queried['ids']['qps_per_cpu'] / tq['ids']['qps_per_cpu']:.1f}x its speed; top-5 "
              f"agreement {agreed['overlap_at_k']:.3f}, top-1 {agreed['top1']:.3f}")
        shutil.rmtree(tantivy_dir, ignore_errors=True)
    shutil.rmtree(ours, ignore_errors=True)
    if args.html_docs:
        html_growth(args, tmp)


def html_growth(args: argparse.Namespace, tmp: Path) -> None:
    args.query_file = tmp / "html_queries.json"
    _queries(args, args.html_docs, args.query_file)
    rows = []
    for padding in (0, args.padding):
        index = tmp / f"html-{padding}"
        built = _child(args, "build", index, tmp / "unused.json", args.html_docs, padding)
        queried = _child(args, "query", index, tmp / f"html-{padding}.json", args.html_docs,
                         padding)
        rows.append((padding, built["disk"]["pages"], queried))
        shutil.rmtree(index, ignore_errors=True)
    print(f"  HTML growth, {args.html_docs:,} docs: " + "; ".join(
        f"+{padding:,} B hidden HTML per page: pages {_mb(pages / 1e6)}, query peak RSS "
        f"{_mb(q['rss_mb'])} (anonymous {_mb(q['rss_end'].get('RssAnon', 0))}), "
        f"{q['search']['qps_per_cpu']:,.0f} q/s"
        for padding, pages, q in rows))


if __name__ == "__main__":
    main()
