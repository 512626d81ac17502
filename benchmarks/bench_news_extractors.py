"""Measure main-content extractors, and the generic NLQuAD parser, on ../shared/data/news.
Not a test.

    python benchmarks/bench_news_extractors.py compare     # every extractor installed here
    python benchmarks/bench_news_extractors.py pipeline    # filters.nlquad.news_article + qa

``compare`` runs trafilatura, resiliparse and readability-lxml (those importable in this
interpreter: measure each in its own virtual environment, with ``PYTHONPATH`` at the
repository, to see its own install weight) with headings kept, and reports per page and in
all: whether the article body was found (the label's body phrase in the output), the real
interrogative sub-headings kept as headings, the boilerplate "?" headings kept as headings,
and the median time per page of 3 runs. ``pipeline`` runs the generic parser and the NLQuAD
rules and reports real sub-headings found with their answer section, boilerplate QA pairs
and body found, for the dev and the unseen publishers (``tests/realdata/news_labels.py``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.realdata.news_labels import NEWS_LABELS, normalized  # noqa: E402

NEWS = ROOT.parent / "shared" / "data" / "news"
RUNS = 3


def _trafilatura(text: str) -> str:
    import trafilatura

    return trafilatura.extract(text, output_format="html", include_formatting=True,
                               include_comments=False, include_tables=False,
                               include_images=False) or ""


def _resiliparse(text: str) -> str:
    from resiliparse.extract.html2text import extract_plain_text

    return "<div>" + extract_plain_text(text, preserve_formatting="minimal_html",
                                         main_content=True, list_bullets=False,
                                         alt_texts=False) + "</div>"


def _readability(text: str) -> str:
    from readability import Document

    return Document(text).summary(html_partial=True)


EXTRACTORS = {"trafilatura": ("trafilatura", _trafilatura),
              "resiliparse": ("resiliparse", _resiliparse),
              "readability-lxml": ("readability", _readability)}


def _outline(markup: str) -> tuple[list[str], str]:
    """Headings and all text of an extractor's HTML output, normalized."""
    from lxml import html

    if not markup.strip():
        return [], ""
    doc = html.fromstring(markup)
    headings = [normalized(h.text_content()) for h in doc.iter("h1", "h2", "h3", "h4", "h5",
                                                                "h6")]
    return headings, normalized(doc.text_content())


def compare(name: str, extract) -> dict[str, float]:
    body = real = real_kept = boiler_kept = 0
    times = []
    for page, label in sorted(NEWS_LABELS.items()):
        text = (NEWS / page).read_bytes().decode("utf-8", "replace")
        runs = []
        for _ in range(RUNS):
            start = time.perf_counter()
            markup = extract(text)
            runs.append(time.perf_counter() - start)
        times.append(statistics.median(runs))
        headings, all_text = _outline(markup)
        found = normalized(label.body) in all_text
        kept = [q for q in label.real if normalized(q) in headings]
        leaked = [h for h in headings if h.endswith("?") and h not in
                  {normalized(q) for q in label.real}]
        body += found
        real += len(label.real)
        real_kept += len(kept)
        boiler_kept += len(leaked)
        print(f"  {page:34s} body {'yes' if found else 'NO '}  real {len(kept)}/"
              f"{len(label.real)}  boilerplate ? headings {len(leaked)}  "
              f"{times[-1] * 1000:.0f} ms")
    figures = {"body": body, "pages": len(NEWS_LABELS), "real_kept": real_kept, "real": real,
               "boilerplate_kept": boiler_kept, "median_ms": statistics.median(times) * 1000,
               "max_ms": max(times) * 1000}
    print(f"{name}: body found {body}/{len(NEWS_LABELS)}, real headings kept {real_kept}/"
          f"{real}, boilerplate ? headings kept {boiler_kept}, time per page median "
          f"{figures['median_ms']:.0f} ms, max {figures['max_ms']:.0f} ms")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("compare", "pipeline"))
    args = parser.parse_args(argv)
    if not NEWS.is_dir():
        print(f"no news pages at {NEWS}", file=sys.stderr)
        return 1
    if args.what == "compare":
        for name, (module, extract) in EXTRACTORS.items():
            try:
                __import__(module)
            except ImportError:
                print(f"{name}: not installed here")
                continue
            compare(name, extract)
        return 0
    from tests.realdata.news_measure import measure_pipeline

    for split, values in sorted(measure_pipeline(NEWS).items()):
        pages = sorted(page for page, label in NEWS_LABELS.items() if label.split == split)
        print(f"{split} publishers: {', '.join(pages)}")
        print(f"  real sub-headings found with their answer: {values['real_found']}/"
              f"{values['real']}; boilerplate QA pairs: {values['boilerplate_pairs']} in "
              f"{values['pages']} pages; body found: {values['body']}/{values['pages']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
