"""Benchmark the NLQuAD pipeline against the plain-Python limit of the same work.

    python benchmarks/bench_nlquad.py --pages 2000
    python benchmarks/bench_nlquad.py --pages 2000 \
        --beam-args="--direct_running_mode=multi_processing --direct_num_workers=2"

Synthesizes N pages by repeating the bundled sample under distinct URLs (each copy gets a
unique sentence in its first body paragraph, so deduplication keeps them apart), then measures
in separate processes:

* ``plain``: one Python loop over the same functions (decode, classify, parse, deduplicate,
  find repeated paragraphs, build the document, count sentences, assign splits, write
  Parquet): the limit;
* ``pipeline``: ``python -m pipelines.build_nlquad --source html`` on the same files.

Prints pages/s, peak RSS of each and the pipeline/plain time ratio. Not a test.
"""

from __future__ import annotations

import argparse
import re
import resource
import shlex
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from child_process import report, run_child

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_BODY_MARKERS = (b"story-body__inner", b'data-component="text-block"', b'data-block="text"',
                 b'class="story-body"')
_ASSET = re.compile(r"-(\d{7,9})(?=$|[/?#])|/articles/([a-z0-9]{12})")


def synthesize(directory: Path, pages: int) -> int:
    """Write ``pages`` HTML files and an index.tsv; return the number written."""
    from importlib import resources

    from transforms.sources.page_files import SAMPLE_DIR, SAMPLE_PACKAGE, sample_index

    base = resources.files(SAMPLE_PACKAGE).joinpath(*SAMPLE_DIR, "pages")
    sample = sorted(sample_index().items())
    rows = ["file\turl\ttimestamp"]
    for n in range(pages):
        name, (url, timestamp) = sample[n % len(sample)]
        content = base.joinpath(name).read_bytes()
        copy = n // len(sample)
        if copy:
            url = _ASSET.sub(lambda m, c=copy: _new_id(m, c), url, count=1)
            content = _unique_text(content, copy)
        file_name = f"{n:06d}_{name}"
        (directory / file_name).write_bytes(content)
        rows.append(f"{file_name}\t{url}\t{timestamp}")
    (directory / "index.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return pages


def _new_id(match: re.Match, copy: int) -> str:
    if match.group(1):
        return f"-{(int(match.group(1)) + copy * 1_000_003) % 900_000_000 + 10_000_000}"
    return f"/articles/{match.group(2)[:6]}{copy:06d}"


def _unique_text(content: bytes, copy: int) -> bytes:
    start = max((content.find(m) for m in _BODY_MARKERS), default=-1)
    end = content.find(b"</p>", start if start >= 0 else 0)
    if end < 0:
        return content
    return content[:end] + f" Copy {copy}.".encode() + content[end:]


def peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def run_plain(directory: Path, output: Path, min_docs: int) -> dict:
    """The plain-Python limit: the same functions in one loop, one process."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from filters.bbc.article import ParseSkip, parse_bbc_article
    from filters.bbc.boilerplate import (
        document_fingerprint,
        is_template_text,
        paragraph_fingerprint,
    )
    from filters.bbc.urls import classify_bbc_url
    from filters.nlquad.dedup import capture_preference
    from filters.nlquad.qa import build_document
    from filters.text.html_decoding import decode_html
    from filters.text.splits import DEFAULT_SPLITS, assign_split
    from filters.text.stats import SentenceCounter, word_count
    from transforms.nlquad.schema import NLQUAD_SCHEMA
    from transforms.sources.page_files import read_index

    started = time.perf_counter()
    index = read_index((directory / "index.tsv").read_text(encoding="utf-8"))
    sentences = SentenceCounter()
    best: dict[str, tuple] = {}
    for name, (url, timestamp) in sorted(index.items()):
        content = (directory / name).read_bytes()
        url_class = classify_bbc_url(url)
        if not url_class.is_article:
            continue
        parsed = parse_bbc_article(decode_html(content).text)
        if isinstance(parsed, ParseSkip):
            continue
        key = capture_preference(parsed.published, timestamp, url_class.is_amp, url)
        if url_class.asset_key not in best or key < best[url_class.asset_key][0]:
            best[url_class.asset_key] = (key, url_class, parsed, url, timestamp)
    by_text: dict[str, tuple] = {}
    for key, url_class, parsed, url, timestamp in best.values():
        fingerprint = document_fingerprint(parsed.paragraphs)
        by_text.setdefault(fingerprint, (key, url_class, parsed, url, timestamp))
    repeated_counts = Counter(f for _, _, parsed, _, _ in by_text.values()
                              for f in {paragraph_fingerprint(p) for p in parsed.paragraphs
                                        if word_count(p) >= 4})
    repeated = {f for f, n in repeated_counts.items() if n >= min_docs}
    splits: dict[str, list[dict]] = {}
    for _, url_class, parsed, url, timestamp in by_text.values():
        document = build_document(parsed.blocks, lambda t: is_template_text(t) or (
            paragraph_fingerprint(t) in repeated))
        if not document.qas:
            continue
        sentences.per_paragraph(document.paragraphs)
        document_id = "bbc-" + url_class.asset_key.split("/")[-1]
        split = assign_split(document_id, "nlquad", DEFAULT_SPLITS)
        for qa in document.qas:
            splits.setdefault(split, []).append({
                "id": f"{document_id}-q{qa.ordinal}", "document_id": document_id,
                "title": parsed.headline, "date": parsed.published[:10],
                "published": parsed.published, "url": url_class.canonical_url,
                "capture_url": url, "capture_timestamp": timestamp, "layout_era": parsed.era,
                "question": qa.question, "question_index": qa.ordinal,
                "context": document.context, "answer_text": qa.answer_text,
                "answer_start": qa.answer_start, "answer_end": qa.answer_end,
                "answer_word_start": qa.answer_word_start,
                "answer_word_end": qa.answer_word_end,
                "answer_paragraphs": qa.answer_paragraphs,
                "answers": {"text": [qa.answer_text], "answer_start": [qa.answer_start]},
            })
    output.mkdir(parents=True, exist_ok=True)
    for split, rows in splits.items():
        rows.sort(key=lambda r: r["id"])
        pq.write_table(pa.Table.from_pylist(rows, schema=NLQUAD_SCHEMA),
                       output / f"{split}.parquet", compression="zstd")
    return {"seconds": time.perf_counter() - started,
            "rows": sum(len(r) for r in splits.values())}


def run_pipeline(directory: Path, output: Path, min_docs: int, beam_args: list[str]) -> dict:
    from pipelines.build_nlquad import run

    started = time.perf_counter()
    result = run(["--source", "html", "--input", str(directory / "*.html"),
                  "--output", str(output), f"--boilerplate-min-docs={min_docs}", *beam_args])
    return {"seconds": time.perf_counter() - started,
            "rows": sum(result["manifest"]["rows_per_split"].values())}


def child(mode: str, directory: Path, output: Path, min_docs: int,
          beam_args: list[str]) -> None:
    result = (run_plain(directory, output, min_docs) if mode == "plain"
              else run_pipeline(directory, output, min_docs, beam_args))
    result["peak_rss_mb"] = peak_rss_mb()
    report(result)


def measure(mode: str, directory: Path, output: Path, min_docs: int,
            beam_args: list[str]) -> dict:
    command = [sys.executable, __file__, "--child", mode, "--dir", str(directory),
               "--out", str(output), f"--min-docs={min_docs}",
               f"--beam-args={shlex.join(beam_args)}"]
    return run_child(command, f"{mode} run", ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--beam-args", default="--runner=DirectRunner",
                        help="Beam options for the pipeline run, one string")
    parser.add_argument("--child", choices=("plain", "pipeline"), help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--min-docs", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    beam_args = shlex.split(args.beam_args)
    if args.child:
        child(args.child, Path(args.dir), Path(args.out), args.min_docs, beam_args)
        return
    with tempfile.TemporaryDirectory(prefix="bench_nlquad_") as tmp:
        pages_dir = Path(tmp) / "pages"
        pages_dir.mkdir()
        pages = synthesize(pages_dir, args.pages)
        # Copies repeat the sample's paragraphs; only the sample's own repeats are boilerplate.
        min_docs = max(3, args.pages // 8)
        plain = measure("plain", pages_dir, Path(tmp) / "plain", min_docs, beam_args)
        pipeline = measure("pipeline", pages_dir, Path(tmp) / "release", min_docs, beam_args)
    print(f"NLQuAD benchmark: {pages} pages (bundled sample repeated under distinct URLs)")
    for name, result in (("plain Python (limit)", plain), (f"pipeline {args.beam_args}",
                                                            pipeline)):
        rate = pages / result["seconds"]
        print(f"  {name:45s} {result['seconds']:7.2f} s  {rate:8.1f} pages/s  "
              f"peak RSS {result['peak_rss_mb']:7.1f} MB  rows {result['rows']}")
    print(f"  ratio pipeline/plain time: {pipeline['seconds'] / plain['seconds']:.2f}x")


if __name__ == "__main__":
    main()
