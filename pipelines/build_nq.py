"""Build Natural Questions-style data from search-query logs (NQ, Kwiatkowski et al. 2019).

    python -m pipelines.build_nq --runner=DirectRunner             # bundled sample log
    python -m pipelines.build_nq --input 'logs/*.parquet' --min-users 5 --window 7d

Stage 1: query logs -> normalization -> users within a window -> 8+ tokens -> NQ heuristics
1-5 -> the accepted questions (``--stop-after questions`` writes them as the release
``nq_questions``). Stage 2 (NQ §3.1, §4.1): search -> the top-ranked Wikipedia page among the
top 5 -> its page -> NQ tokens and long-answer candidates -> the release ``nq`` in the NQ
original format (``nq_original/<split>/*.jsonl.gz``) and the HuggingFace layout
(``<split>/*.parquet``). Other ``--options`` go to Beam. Declared in ``transforms.nq.spec``.
"""

import sys

if __name__ == "__main__":  # --help without importing Beam (pipelines.cli.quick_help)
    from pipelines.cli.quick_help import exit_with_stored_help

    exit_with_stored_help("python -m pipelines.build_nq")

from pipelines.cli.spec_runner import entry_points
from transforms.nq.spec import NQ_SPLITS, SPEC, categories_file, read_categories

__all__ = ["NQ_SPLITS", "SPEC", "build_parser", "categories_file", "format_summary", "main",
           "read_categories", "run"]

build_parser, run, main, format_summary = entry_points(SPEC)

if __name__ == "__main__":
    sys.exit(main())
