"""Agreement and speed of NQ tokens + long-answer candidates (NQ §4.1). Not a test.

    python benchmarks/bench_nq_candidates.py [--shared ../shared/data/nq] [--repeat 10]
    python benchmarks/bench_nq_candidates.py --file nq-dev-00.jsonl.gz [--limit 10] [--min-kb 100]

``--file`` measures any NQ original-format file (``.jsonl`` or ``.jsonl.gz``, one example a
line with its ``document_html``; Google's ``v1.0/*/nq-*.jsonl.gz`` are such files): its
first ``--limit`` examples (of at least ``--min-kb`` of HTML) are read, each line bounded at
``--max-line-mb`` and the file at ``--max-decoded-mb`` decoded, so a huge or damaged file
costs a bounded read; agreement is measured on them too when they carry Google's tokens and
candidates. ``benchmarks/nq_table_pages.py`` writes such a file of synthetic table- and
list-heavy pages.

Agreement, on the official NQ dev examples (``nq_dev_original_first3.jsonl.gz``): precision
and recall of our candidate byte spans against Google's, top_level agreement on the shared
spans, annotated long answers among ours, the same with Google's tokens as input, and exact
token agreement; on TyDi QA's Parsoid pages, our top-level candidates against its passages.

Speed, on one core: pages/s of ``nq_document`` (tokenize + candidates) and of
``tokenize_nq_html`` alone against a bare ``lxml.html`` parse of the same pages (the limit),
the ratio (the issue's target for ``nq_document`` is >= 0.33), the same work with the Python
walker and word splitter (the reference the C extensions replace), peak RSS, and the peak
Python heap of ``nq_document`` on the largest page.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from filters.nq.candidates import (  # noqa: E402
    _candidates,
    long_answer_candidates,
    nq_document,
    page_region,
)
from filters.nq.tokens import (  # noqa: E402
    NATIVE_TOKENS,
    NqToken,
    python_scan_nq_html,
    tokenize_nq_html,
)


def read_jsonl_gz(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_nq_file(path: Path, limit: int, min_bytes: int = 0, max_line_bytes: int = 64 << 20,
                 max_decoded_bytes: int = 4 << 30) -> list[dict]:
    """The first ``limit`` examples of an NQ original-format file (``.jsonl``/``.jsonl.gz``)
    whose ``document_html`` has at least ``min_bytes`` bytes. Reads stop there; a line over
    ``max_line_bytes`` is skipped and never held whole, and decoding stops at
    ``max_decoded_bytes`` (``transforms.sources.compressed``), so the read stays bounded."""
    from transforms.sources.compressed import CompressionDamage, LongLine, iter_path_lines

    rows: list[dict] = []
    lines = iter_path_lines(str(path), max_decoded_bytes=max_decoded_bytes,
                            max_line_bytes=max_line_bytes)
    try:
        for number, line in enumerate(lines, start=1):
            if isinstance(line, LongLine):
                print(f"{path}:{number}: skipped, {line.message()}", file=sys.stderr)
                continue
            if not line.strip():
                continue
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("document_html"), str):
                sys.exit(f"{path}:{number}: not an NQ original-format example "
                         "(no document_html)")
            if len(row["document_html"].encode("utf-8")) >= min_bytes:
                rows.append(row)
                if len(rows) >= limit:
                    break
    except CompressionDamage as damage:
        print(f"{path}: read stopped ({damage.reason}); measuring the {len(rows)} examples "
              "before it", file=sys.stderr)
    finally:
        lines.close()
    return rows


def ratio(a: int, b: int) -> str:
    return f"{a / b:.4f} ({a}/{b})" if b else "n/a"


def google_tokens(row: dict) -> list[NqToken]:
    return [NqToken(t["token"], t["start_byte"], t["end_byte"], t["html_token"])
            for t in row["document_tokens"]]


def candidate_agreement(rows: list[dict], use_google_tokens: bool) -> list[str]:
    ours_n = theirs_n = shared = top_same = annotated = found = 0
    for row in rows:
        html = row["document_html"]
        if use_google_tokens:
            candidates = long_answer_candidates(html, google_tokens(row))
        else:
            candidates = nq_document(html)[1]
        ours = {(c.start_byte, c.end_byte): c.top_level for c in candidates}
        theirs = {(c["start_byte"], c["end_byte"]): c["top_level"]
                  for c in row["long_answer_candidates"]}
        common = ours.keys() & theirs.keys()
        ours_n, theirs_n, shared = ours_n + len(ours), theirs_n + len(theirs), shared + len(common)
        top_same += sum(ours[k] == theirs[k] for k in common)
        for annotation in row["annotations"]:
            answer = annotation["long_answer"]
            if answer["start_byte"] >= 0:
                annotated += 1
                found += (answer["start_byte"], answer["end_byte"]) in ours
    source = "Google's tokens" if use_google_tokens else "our tokens"
    return [f"candidates from {source}:",
            f"  precision (byte spans)   {ratio(shared, ours_n)}",
            f"  recall (byte spans)      {ratio(shared, theirs_n)}",
            f"  top_level agreement      {ratio(top_same, shared)}",
            f"  annotated long answers   {ratio(found, annotated)}"]


def token_agreement(rows: list[dict]) -> list[str]:
    ours_n = theirs_n = shared = 0
    for row in rows:
        ours = set(tokenize_nq_html(row["document_html"]))
        theirs = set(google_tokens(row))
        ours_n, theirs_n, shared = ours_n + len(ours), theirs_n + len(theirs), shared + len(
            ours & theirs)
    return ["tokens (exact token and byte span):",
            f"  precision                {ratio(shared, ours_n)}",
            f"  recall                   {ratio(shared, theirs_n)}"]


def tydi_agreement(rows: list[dict]) -> list[str]:
    same = total = 0
    for row in rows:
        passages = row["passage_answer_candidates"]
        if isinstance(passages, str):
            passages = ast.literal_eval(passages)
        theirs = {(p["html_start_byte"], p["html_end_byte"]) for p in passages}
        ours = {(c.start_byte, c.end_byte) for c in nq_document(row["document_html"])[1]
                if c.top_level}
        same += len(ours & theirs)
        total += len(ours | theirs)
    return [f"TyDi QA Parsoid pages: top-level candidates = passages {ratio(same, total)}"]


def agreement(rows: list[dict]) -> list[str]:
    """Candidate and token agreement where the rows carry Google's tokens and candidates."""
    keys = ("document_tokens", "long_answer_candidates", "annotations")
    if not all(all(key in row for key in keys) for row in rows):
        return ["agreement: not measured (the examples lack Google's tokens or candidates)"]
    return (candidate_agreement(rows, use_google_tokens=False)
            + candidate_agreement(rows, use_google_tokens=True) + token_agreement(rows))


def pass_seconds(fn: Callable[[str], object], pages: list[str]) -> float:
    """Seconds for one pass of ``fn`` over the pages."""
    started = time.perf_counter()
    for page in pages:
        fn(page)
    return time.perf_counter() - started


def python_peak_mb(fn: Callable[[str], object], page: str) -> float:
    """Peak Python heap (tracemalloc) of one call of ``fn`` on ``page``, in MB."""
    tracemalloc.start()
    try:
        fn(page)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def speed(pages: list[str], repeat: int) -> list[str]:
    """Interleaved passes (bare parse, tokens, tokens + candidates), so that a neighbour's
    load on a shared core hits all three alike; medians over the passes, and the median of
    the per-pass ratios to the bare parse."""
    from lxml import html as lxml_html

    def python_nq_document(html: str) -> object:
        return _candidates(*python_scan_nq_html(html, page_region))

    runs = {"lxml": lxml_html.document_fromstring, "tokens": tokenize_nq_html,
            "nq_document": nq_document, "python": python_nq_document}
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, fn in runs.items():
            seconds[name].append(pass_seconds(fn, pages))
    rate = {name: len(pages) / statistics.median(times) for name, times in seconds.items()}
    ratio = {name: statistics.median(b / t for b, t in zip(seconds["lxml"], times, strict=True))
             for name, times in seconds.items()}
    mean_mb = sum(len(p.encode("utf-8")) for p in pages) / len(pages) / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    heap = python_peak_mb(nq_document, max(pages, key=len))
    return [f"speed on {len(pages)} pages ({mean_mb * 1024:.0f} KB mean), {repeat} interleaved "
            "passes, one core (medians):",
            f"  lxml.html parse (limit)  {rate['lxml']:8.1f} pages/s "
            f"{rate['lxml'] * mean_mb:6.1f} MB/s",
            f"  tokenize_nq_html         {rate['tokens']:8.1f} pages/s "
            f"{rate['tokens'] * mean_mb:6.1f} MB/s  ratio to the parse {ratio['tokens']:.3f}",
            f"  nq_document              {rate['nq_document']:8.1f} pages/s "
            f"{rate['nq_document'] * mean_mb:6.1f} MB/s  ratio to the parse "
            f"{ratio['nq_document']:.3f} (target >= 0.33; "
            f"{'C walker and word splitter' if NATIVE_TOKENS else 'C extensions NOT built'})",
            f"  nq_document, Python walker {rate['python']:6.1f} pages/s "
            f"{rate['python'] * mean_mb:6.1f} MB/s  ratio to the parse {ratio['python']:.3f} "
            "(the reference, and the path before the C extensions)",
            f"  peak RSS                 {peak:8.1f} MB",
            f"  nq_document Python heap  {heap:8.1f} MB peak on the largest page "
            f"({len(max(pages, key=len).encode('utf-8')) / 1024:.0f} KB)"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data" / "nq")
    parser.add_argument("--repeat", type=int, default=10, help="passes over the pages")
    parser.add_argument("--file", type=Path, default=None,
                        help="an NQ original-format .jsonl or .jsonl.gz to measure instead")
    parser.add_argument("--limit", type=int, default=10, help="--file: examples to read")
    parser.add_argument("--min-kb", type=float, default=0.0,
                        help="--file: only pages of at least this much HTML")
    parser.add_argument("--max-line-mb", type=int, default=64,
                        help="--file: longer lines are skipped unread")
    parser.add_argument("--max-decoded-mb", type=int, default=4096,
                        help="--file: stop decoding after this much")
    parser.add_argument("--speed-only", action="store_true", help="skip the agreement figures")
    args = parser.parse_args()
    if args.file is not None:
        if args.limit < 1 or not args.file.is_file():
            sys.exit(f"--file {args.file}: no such file" if args.limit >= 1
                     else "--limit must be at least 1")
        rows = read_nq_file(args.file, args.limit, int(args.min_kb * 1024),
                            args.max_line_mb << 20, args.max_decoded_mb << 20)
        if not rows:
            sys.exit(f"{args.file}: no example with at least {args.min_kb} KB of HTML")
        source = str(args.file)
    else:
        nq_path = args.shared / "nq_dev_original_first3.jsonl.gz"
        if not nq_path.exists():
            sys.exit(f"no NQ examples at {nq_path}")
        rows, source = read_jsonl_gz(nq_path), "NQ dev examples"
    lines = [f"{source}: {len(rows)} pages"]
    if not args.speed_only:
        lines += agreement(rows)
    tydi_path = args.shared / "tydiqa_small_gold_annotation.jsonl.gz"
    if args.file is None and not args.speed_only and tydi_path.exists():
        lines += tydi_agreement(read_jsonl_gz(tydi_path))
    lines += speed([row["document_html"] for row in rows], args.repeat)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
