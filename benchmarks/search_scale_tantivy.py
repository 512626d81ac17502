"""The tantivy side of the search-scale comparison (issue 15 §3), and a tantivy-only check.

    python benchmarks/search_scale_tantivy.py --docs 20000
    python benchmarks/search_scale_tantivy.py --docs 20000 --html-padding-bytes 20000

Uses PyPI ``tantivy`` (tested with ``tantivy==0.27.0``, index format v7). ``build_tantivy``
writes an on-disk index of page records (those of ``search_scale_corpus.iter_records`` or of
``transforms.sources.search_corpus``): ``doc_id`` (u64, indexed and fast: read at query time
from a memory-mapped column, never from the document store), ``url`` (stored, indexed whole
so a page can be looked up), ``title`` (stored), ``text`` (indexed with term frequencies, no
positions, not stored) and, with ``store_html``, ``html`` (stored bytes). ``TantivySearch``
ranks with tantivy's BM25 (k1 = 1.2, b = 0.75, field norms quantised to a byte) over an OR
of the query's terms.

Tokens: ``tokenizer="default"`` is tantivy's default analyzer (split on non-alphanumerics,
drop tokens over 40 bytes, lower-case), which on the synthetic corpus (ASCII words of 2+
letters, no stopwords) gives the tokens of our bm25s index; ``tokenizer="bm25s"`` registers
a regex analyzer with bm25s's rule (``\\w\\w+``, lower-cased, bm25s's English stopwords out)
for real text. The query is analysed by the same analyzer.

Speed: tantivy-py's ``Searcher.search`` collects through a ``MultiCollector`` (even with
``count=False``), which keeps tantivy from using Block-WAND (it prunes only under a plain
top-score collector), so a disjunction costs the sum of its terms' postings: a query with a
term in half the documents is ~10x slower than one with rare terms only (see the by-document-
frequency line of the check).

The check prints, per phase in a fresh process (so each peak RSS is that phase's alone; peak
RSS is ``VmHWM``, see ``child_process.peak_rss_mb``): build time (wall and CPU, the corpus
generation timed apart), index size on disk, segments, peak RSS; then single-threaded query
throughput over the queries of ``search_scale_corpus.queries`` (ids only, and ids with
url/title read from the document store), CPU time, peak RSS, and RSS after the id-only
queries split into anonymous memory and mapped index files. The comparison with our index is
``bench_search_scale.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import tantivy
from child_process import Timed, peak_rss_mb, report, rss_split_mb, run_child, timed

ROOT = Path(__file__).resolve().parent.parent
BM25S_TOKENIZER = "bm25s_en"
_MAX_TOKEN_BYTES = 40


def _analyzer(tokenizer: str) -> tantivy.TextAnalyzer:
    if tokenizer == "default":
        return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
                .filter(tantivy.Filter.remove_long(_MAX_TOKEN_BYTES))
                .filter(tantivy.Filter.lowercase()).build())
    if tokenizer == "bm25s":
        from bm25s.stopwords import STOPWORDS_EN

        return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(r"\w\w+"))
                .filter(tantivy.Filter.lowercase())
                .filter(tantivy.Filter.custom_stopword(list(STOPWORDS_EN))).build())
    raise ValueError(f"tokenizer is 'default' or 'bm25s', not {tokenizer!r}")


def _tokenizer_name(tokenizer: str) -> str:
    return "default" if tokenizer == "default" else BM25S_TOKENIZER


def schema(store_html: bool = True, tokenizer: str = "default") -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("doc_id", stored=False, indexed=True, fast=True)
    builder.add_text_field("url", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("title", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("text", stored=False, tokenizer_name=_tokenizer_name(tokenizer),
                           index_option="freq")
    if store_html:
        builder.add_bytes_field("html", stored=True, indexed=False)
    return builder.build()


def _settings_path(directory: str) -> str:
    return os.path.join(directory, "search_scale.json")


def disk_bytes(directory: str) -> int:
    """Bytes the directory takes on disk (``du``: allocated blocks)."""
    total = 0
    for root, _, files in os.walk(directory):
        for name in files:
            total += os.stat(os.path.join(root, name)).st_blocks * 512
    return total


def build_tantivy(records: Iterable[dict[str, Any]], directory: str, heap_mb: int = 256,
                  threads: int = 1, store_html: bool = True, tokenizer: str = "default"
                  ) -> dict[str, Any]:
    """Index ``records`` (dicts with url, title, text, html; ``doc_id`` when present, else
    the position in ``records``) into a new tantivy index at ``directory``: ``threads``
    indexing threads sharing a writer heap of ``heap_mb`` MB (tantivy wants >= 15 MB a
    thread), one commit, merges waited for. Returns docs, seconds (wall), cpu_seconds
    (this process, all threads), disk_bytes and segments."""
    started, cpu_started = time.perf_counter(), time.process_time()
    os.makedirs(directory, exist_ok=True)
    index = tantivy.Index(schema(store_html, tokenizer), path=directory, reuse=False)
    if tokenizer != "default":
        index.register_tokenizer(BM25S_TOKENIZER, _analyzer(tokenizer))
    with open(_settings_path(directory), "w", encoding="utf-8") as handle:
        json.dump({"tokenizer": tokenizer, "store_html": store_html}, handle)
    writer = index.writer(heap_size=heap_mb * 1_000_000, num_threads=threads)
    docs = 0
    for position, record in enumerate(records):
        doc = tantivy.Document()
        doc.add_unsigned("doc_id", int(record.get("doc_id", position)))
        doc.add_text("url", record["url"])
        doc.add_text("title", record["title"])
        doc.add_text("text", record["text"])
        if store_html:
            doc.add_bytes("html", record["html"].encode("utf-8"))
        writer.add_document(doc)
        docs += 1
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    segments = index.searcher().num_segments
    return {"docs": docs, "seconds": time.perf_counter() - started,
            "cpu_seconds": time.process_time() - cpu_started,
            "disk_bytes": disk_bytes(directory), "segments": segments,
            "heap_mb": heap_mb, "threads": threads, "store_html": store_html,
            "tokenizer": tokenizer}


class TantivySearch:
    """BM25 search over an index written by ``build_tantivy`` (memory-mapped; the searcher
    is loaded once)."""

    def __init__(self, directory: str):
        self.directory = directory
        with open(_settings_path(directory), encoding="utf-8") as handle:
            settings = json.load(handle)
        self.index = tantivy.Index.open(directory)
        if settings["tokenizer"] != "default":
            self.index.register_tokenizer(BM25S_TOKENIZER, _analyzer(settings["tokenizer"]))
        self._analyzer = _analyzer(settings["tokenizer"])
        self._schema = self.index.schema
        self.index.reload()
        self.searcher = self.index.searcher()

    def __len__(self) -> int:
        return self.searcher.num_docs

    def tokens(self, query: str) -> list[str]:
        """The query's distinct index terms, in order."""
        return list(dict.fromkeys(self._analyzer.analyze(query)))

    def query(self, query: str) -> tantivy.Query | None:
        """The disjunction (SHOULD clauses) of the query's terms; None when it has none."""
        terms = self.tokens(query)
        if not terms:
            return None
        return tantivy.Query.boolean_query(
            [(tantivy.Occur.Should,
              tantivy.Query.term_query(self._schema, "text", term, index_option="freq"))
             for term in terms])

    def _hits(self, query: str, k: int) -> list[tuple[float, Any]]:
        parsed = self.query(query)
        if parsed is None:
            return []
        return self.searcher.search(parsed, limit=k, count=False).hits

    def search(self, query: str, k: int = 5) -> list[int]:
        """Document ids of the top ``k`` documents (best first); unknown terms match
        nothing, a query without terms returns []."""
        hits = self._hits(query, k)
        return self.searcher.fast_field_values("doc_id", [address for _, address in hits])

    def search_scored(self, query: str, k: int = 5) -> list[tuple[int, float]]:
        hits = self._hits(query, k)
        ids = self.searcher.fast_field_values("doc_id", [address for _, address in hits])
        return [(doc_id, score) for doc_id, (score, _) in zip(ids, hits, strict=True)]

    def search_pages(self, query: str, k: int = 5) -> list[tuple[int, str, str]]:
        """``(doc_id, url, title)`` of the top ``k``: the title and URL are read from the
        document store (where the HTML is too, when stored)."""
        hits = self._hits(query, k)
        ids = self.searcher.fast_field_values("doc_id", [address for _, address in hits])
        out = []
        for doc_id, (_, address) in zip(ids, hits, strict=True):
            doc = self.searcher.doc(address)
            out.append((doc_id, doc.get_first("url"), doc.get_first("title")))
        return out

    def page_html(self, url: str) -> str | None:
        """The stored HTML of the page at ``url`` (None when absent or HTML not stored)."""
        term = tantivy.Query.term_query(self._schema, "url", url, index_option="basic")
        hits = self.searcher.search(term, limit=1, count=False).hits
        if not hits:
            return None
        html = self.searcher.doc(hits[0][1]).get_first("html")
        return bytes(html).decode("utf-8") if html is not None else None


# --- the check ------------------------------------------------------------------------------

def _records(args: argparse.Namespace) -> Timed:
    from search_scale_corpus import iter_records

    return Timed(iter_records(args.docs, args.seed, args.html_padding_bytes))


def child_build(args: argparse.Namespace) -> dict[str, Any]:
    from search_scale_corpus import prepare

    prepare()  # the generator's own tables, before the measurement
    rss_before = peak_rss_mb()
    records = _records(args)
    result = build_tantivy(records, args.index, heap_mb=args.heap_mb,
                           threads=args.threads, store_html=args.store_html,
                           tokenizer=args.tokenizer)
    return {**result, "generate_seconds": records.seconds,
            "generate_cpu_seconds": records.cpu_seconds, "rss_before_mb": rss_before,
            "rss_mb": peak_rss_mb()}


def _read_queries(args: argparse.Namespace) -> list[str]:
    """The queries the parent wrote (made there, so the generator's tables are not in the
    query process's RSS)."""
    with open(args.query_file, encoding="utf-8") as handle:
        return json.load(handle)


def _by_max_df(search: TantivySearch, queries: list[str]) -> dict[str, dict[str, float]]:
    """Queries/s by the largest document frequency among a query's terms (share of the
    documents): the cost of a disjunction grows with its postings."""
    n = max(len(search), 1)
    groups: dict[str, list[float]] = {}
    for query in queries:
        terms = search.tokens(query)
        top = max((search.searcher.doc_freq("text", t) for t in terms), default=0) / n
        label = next(f"<={b}" for b in (0.05, 0.2, 0.5, 1.0) if top <= b)
        started = time.perf_counter()
        search.search(query, 5)
        groups.setdefault(label, []).append(time.perf_counter() - started)
    return {label: {"queries": len(times), "qps": len(times) / sum(times),
                    "p99_ms": 1000 * sorted(times)[int(0.99 * (len(times) - 1))]}
            for label, times in sorted(groups.items())}


def child_query(args: argparse.Namespace) -> dict[str, Any]:
    queries = _read_queries(args)
    rss_before = peak_rss_mb()
    started = time.perf_counter()
    search = TantivySearch(args.index)
    open_seconds = time.perf_counter() - started
    search.search(queries[0], 5)  # warm-up
    rss_open = peak_rss_mb()
    ids = timed(lambda q: search.search(q, 5), queries)
    rss_ids = peak_rss_mb()  # searching touches no stored document
    rss_ids_split = rss_split_mb()
    ids["by_max_df"] = _by_max_df(search, queries)
    pages = timed(lambda q: search.search_pages(q, 5), queries)
    result = {"queries": len(queries), "open_seconds": open_seconds, "ids": ids,
              "pages": pages, "rss_before_mb": rss_before, "rss_open_mb": rss_open,
              "rss_ids_mb": rss_ids, "rss_ids_split_mb": rss_ids_split,
              "rss_end_split_mb": rss_split_mb(), "rss_mb": peak_rss_mb()}
    if args.results:
        with open(args.results, "w", encoding="utf-8") as handle:
            json.dump([search.search(q, 5) for q in queries], handle)
    return result


def _child_command(args: argparse.Namespace, phase: str, index: Path, **extra) -> list[str]:
    command = [sys.executable, __file__, "--child", phase, "--index", str(index),
               "--docs", str(args.docs), "--seed", str(args.seed),
               "--html-padding-bytes", str(args.html_padding_bytes),
               "--query-file", str(args.query_file),
               "--heap-mb", str(args.heap_mb), "--threads", str(args.threads),
               "--tokenizer", args.tokenizer]
    for key, value in extra.items():
        command += [f"--{key.replace('_', '-')}", str(value)]
    return command


def _print_build(label: str, row: dict[str, Any]) -> None:
    """Build figures without the corpus generation (measured apart, ``generate_seconds``)."""
    seconds = row["seconds"] - row.get("generate_seconds", 0.0)
    cpu = row["cpu_seconds"] - row.get("generate_cpu_seconds", 0.0)
    print(f"  {label:24s} build {seconds:7.1f} s (CPU {cpu:.1f} s, "
          f"{row['docs'] / seconds:,.0f} docs/s; generating the corpus "
          f"{row.get('generate_seconds', 0.0):.1f} s more)  on disk "
          f"{row['disk_bytes'] / 1e6:8.1f} MB  segments {row.get('segments', '-')}  "
          f"peak RSS {row['rss_mb']:.0f} MB (before {row['rss_before_mb']:.0f})")


def _print_by_df(row: dict[str, Any]) -> None:
    groups = row.get("ids", {}).get("by_max_df")
    if groups:
        print("    by the largest term document frequency: " + ", ".join(
            f"{label} {g['queries']} queries {g['qps']:,.0f} q/s (p99 {g['p99_ms']:.1f} ms)"
            for label, g in groups.items()))


def _print_query(label: str, row: dict[str, Any]) -> None:
    parts = []
    for key in ("ids", "pages"):
        if key in row:
            t = row[key]
            parts.append(f"{key} {t['qps']:,.0f} q/s ({t['qps_per_cpu']:,.0f}/CPU s)")
    ids_rss = ""
    if "rss_ids_mb" in row:
        split = row.get("rss_ids_split_mb", {})
        ids_rss = (f"after ids {row['rss_ids_mb']:.0f} = anon {split.get('RssAnon', 0):.0f} "
                   f"+ files {split.get('RssFile', 0):.0f}, ")
    print(f"  {label:24s} {row['queries']} queries: {', '.join(parts)}  open "
          f"{row['open_seconds']:.2f} s  peak RSS {row['rss_mb']:.0f} MB ({ids_rss}open "
          f"{row['rss_open_mb']:.0f}, before {row['rss_before_mb']:.0f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=None, help="corpus seed")
    parser.add_argument("--html-padding-bytes", type=int, default=0)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--query-seed", type=int, default=1)
    parser.add_argument("--heap-mb", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tokenizer", choices=("default", "bm25s"), default="default")
    parser.add_argument("--html", choices=("both", "stored", "none"), default="both",
                        help="store the HTML in tantivy's document store, or not, or both")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--index", help=argparse.SUPPRESS)
    parser.add_argument("--store-html", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--results", help=argparse.SUPPRESS)
    parser.add_argument("--query-file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed is None:
        from search_scale_corpus import DEFAULT_SEED

        args.seed = DEFAULT_SEED
    args.store_html = bool(args.store_html)
    if args.child:
        phases = {"build": child_build, "query": child_query}
        report(phases[args.child](args))
        return
    print(f"tantivy {getattr(tantivy, '__version__', '?')}: {args.docs:,} docs "
          f"(html padding {args.html_padding_bytes} B), {args.queries} queries, "
          f"{args.threads} indexing thread(s), heap {args.heap_mb} MB, tokenizer "
          f"{args.tokenizer}")
    modes = {"both": (True, False), "stored": (True,), "none": (False,)}[args.html]
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="search_scale_tantivy_") as tmp_name:
        tmp = Path(tmp_name)
        from search_scale_corpus import queries as make_queries

        started = time.perf_counter()
        made = make_queries(args.queries, args.query_seed, args.docs, args.seed)
        print(f"  {len(made)} queries made in {time.perf_counter() - started:.1f} s, "
              f"e.g. {made[:3]}")
        args.query_file = tmp / "queries.json"
        args.query_file.write_text(json.dumps(made), encoding="utf-8")
        results: dict[str, list[list[int]]] = {}
        for store_html in modes:
            label = "tantivy html stored" if store_html else "tantivy html not stored"
            index = tmp / ("tantivy-html" if store_html else "tantivy")
            built = run_child(_child_command(args, "build", index, store_html=int(store_html)),
                              f"{label} build", ROOT)
            _print_build(label, built)
            result_file = tmp / f"{index.name}.json"
            queried = run_child(_child_command(args, "query", index, results=result_file),
                                f"{label} query", ROOT)
            _print_query(label, queried)
            _print_by_df(queried)
            results[label] = json.loads(result_file.read_text())
            rows[label] = {"build": built, "query": queried}
            shutil.rmtree(index, ignore_errors=True)
        if len(results) == 2:  # storing the HTML must not change the ranking
            from bench_search_scale import agreement

            same = agreement(*results.values())
            rows["tantivy html stored vs not"] = same
            print(f"  tantivy html stored vs not: mean |A∩B|/5 {same['overlap_at_k']:.3f}, "
                  f"top-1 agree {same['top1']:.3f}")
    print("JSON " + json.dumps({"docs": args.docs, "html_padding_bytes": args.html_padding_bytes,
                                **rows}))


if __name__ == "__main__":
    main()
