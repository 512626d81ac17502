"""``qa-build <dataset> [OPTIONS]``: one console script for every dataset pipeline.

``qa-build nlquad --source html --input 'pages/*.html'`` is
``python -m pipelines.build_nlquad --source html --input 'pages/*.html'``, with the same options,
output and exit codes (``pipelines.cli.errors``); ``--help`` after the dataset shows the
pipeline's options. ``qa-release``, ``qa-annotate`` and ``qa-evaluate`` are the ``main`` of
``pipelines.release``, ``pipelines.annotate`` and ``pipelines.evaluate`` (``pyproject.toml``).
"""

from __future__ import annotations

import difflib
import importlib
import sys

from pipelines.cli.errors import EXIT_OK, EXIT_USAGE
from pipelines.cli.parsers import program_name

PROGRAM = "qa-build"

#: dataset name -> (module under ``pipelines``, what it builds)
DATASETS: dict[str, tuple[str, str]] = {
    "nlquad": ("build_nlquad", "NLQuAD-style long-answer QA from BBC News pages"),
    "nq": ("build_nq", "Natural Questions-style data from search-query logs and Wikipedia"),
    "jnq": ("build_jnq", "Japanese Natural Questions (JNQ) or JBoolQ from Japanese query logs"),
    "reqa": ("build_reqa", "a ReQA sentence-retrieval set from SQuAD, NQ or NLQuAD"),
    "search-index": ("build_search_index", "the local BM25 search index (build_nq --search local)"),
    "categories": ("build_categories", "the categorical noun lexicon of NQ heuristics 4 and 5"),
}
ALIASES = {"search_index": "search-index"}


def usage() -> str:
    """The help of ``qa-build`` itself: its datasets."""
    width = max(map(len, DATASETS))
    lines = [f"usage: {PROGRAM} DATASET [OPTIONS]  (or {PROGRAM} DATASET --help)", "",
             "Build a dataset release; the options are those of "
             "python -m pipelines.build_<dataset>.", "", "datasets:"]
    lines += [f"  {name:{width}s}  {about}" for name, (_, about) in DATASETS.items()]
    return "\n".join(lines)


def build(argv: list[str] | None = None) -> int:
    """The ``qa-build`` console script: run ``pipelines.build_<dataset>.main``."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(f"{usage()}\n\nerror: name a dataset", file=sys.stderr)
        return EXIT_USAGE
    name, rest = argv[0], argv[1:]
    if name in ("-h", "--help"):
        print(usage())
        return EXIT_OK
    name = ALIASES.get(name, name)
    if name not in DATASETS:
        close = difflib.get_close_matches(name, list(DATASETS), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        print(f"error: unknown dataset {name!r}{hint}; choose from {', '.join(DATASETS)}",
              file=sys.stderr)
        return EXIT_USAGE
    module = importlib.import_module(f"pipelines.{DATASETS[name][0]}")
    with program_name(f"{PROGRAM} {name}"):
        return module.main(rest)
