"""The ladder's inputs, made once under a work directory and reused by later runs.

* NLQuAD: ``pages/`` holds the largest rung's pages, synthesized from the bundled sample as
  ``bench_refresh.py`` does (each copy of a sample page under a new article id, every
  paragraph made its own so copies are not each other's boilerplate); ``nlquad-<N>/`` holds
  hard links to the first N of them and their ``index.tsv``.
* NQ: ``index-<D>/`` is a local search index and page store (``build_search_index``'s
  layout) of D synthetic Wikipedia-like documents (``search_scale_corpus``, as
  ``bench_search_scale.py`` builds it), and ``nq-<N>.jsonl`` a pre-aggregated log of N
  distinct questions, each drawn from one document: ``search_scale_corpus``'s query words of
  that document put in a question NQ's heuristics accept (``who played <words> in the
  <words>``, 8 or more words), issued by 2 users.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROOT = HERE.parent
for _path in (str(ROOT), str(HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

DONE = ".complete"  # written last: a directory without it is rebuilt


def _complete(directory: Path) -> bool:
    return (directory / DONE).is_file()


def _mark(directory: Path) -> None:
    (directory / DONE).write_text("", encoding="utf-8")


def nlquad_pages(work: Path, count: int, largest: int) -> Path:
    """The directory of the first ``count`` pages (of ``largest`` synthesized once)."""
    from bench_nlquad import synthesize
    from bench_refresh import unique_paragraphs

    pages = work / f"pages-{largest}"
    if not _complete(pages):
        pages.mkdir(parents=True, exist_ok=True)
        synthesize(pages, largest)
        for number, path in enumerate(sorted(pages.glob("*.html"))):
            path.write_bytes(unique_paragraphs(path.read_bytes(), number))
        _mark(pages)
    rung = work / f"nlquad-{count}"
    if not _complete(rung):
        rung.mkdir(parents=True, exist_ok=True)
        rows = (pages / "index.tsv").read_text(encoding="utf-8").splitlines()[:count + 1]
        for row in rows[1:]:
            name = row.split("\t")[0]
            if not (rung / name).exists():
                os.link(pages / name, rung / name)
        (rung / "index.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
        _mark(rung)
    return rung


def nlquad_arguments(rung: Path) -> list[str]:
    """``build_nlquad``'s input options for a rung's directory."""
    return ["--source", "html", "--input", str(rung / "*.html"),
            "--index", str(rung / "index.tsv")]


def nq_index(work: Path, docs: int) -> Path:
    """A local index and page store of ``docs`` synthetic documents (built once)."""
    import search_scale_corpus as corpus

    from transforms.sources.search_corpus import build_index

    index = work / f"index-{docs}"
    if not _complete(index):
        index.mkdir(parents=True, exist_ok=True)
        corpus.prepare()
        build_index(corpus.iter_records(docs), str(index), ordered=True)
        _mark(index)
    return index


def question(words: str) -> str:
    """A question NQ's heuristics accept (rule 2: "who" and a verb; 8+ words) around the
    query ``words`` of one document."""
    terms = words.split()
    half = max(1, len(terms) // 2)
    return f"who played {' '.join(terms[:half])} in the {' '.join(terms[half:]) or 'film'} series"


def nq_log(work: Path, count: int, docs: int) -> Path:
    """A pre-aggregated log of ``count`` distinct questions over the ``docs`` documents."""
    import search_scale_corpus as corpus

    log = work / f"nq-{count}-of-{docs}.jsonl"
    if not log.is_file():
        corpus.prepare()
        seen: set[str] = set()
        lines = []
        for words, _ in corpus.query_targets(count * 2, 1, docs):
            text = question(words)
            if text not in seen:
                seen.add(text)
                lines.append(json.dumps({"query": text, "count": 2, "users": 2}) + "\n")
            if len(lines) == count:
                break
        partial = log.with_suffix(".partial")
        partial.write_text("".join(lines), encoding="utf-8")
        partial.replace(log)
    return log


def nq_arguments(log: Path, index: Path) -> list[str]:
    """``build_nq``'s input and linking options for a rung."""
    return ["--input", str(log), "--search", "local", "--index-dir", str(index),
            "--stop-after", "examples"]
