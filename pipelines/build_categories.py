"""Build the categorical noun lexicon for NQ heuristics 4 and 5 with Hearst patterns.

    python -m pipelines.build_categories --runner=DirectRunner        # bundled corpus
    python -m pipelines.build_categories --input 'corpus/*.txt' --input 'wiki/*.html'

Reads plain text (one paragraph per line), JSONL (``--text-field``) or Wikipedia HTML pages,
runs the Hearst (1992) patterns over every sentence and writes
``<output>/categories/<version>/``: ``categories.tsv`` (lemma, count, distinct hyponyms,
examples; what ``build_nq --categories`` reads), ``lexicon/*.parquet``, ``stats.json``, a card
and the manifest. Other ``--options`` go to Beam. Declared in ``transforms.categories.spec``.
"""

import sys

if __name__ == "__main__":  # --help without importing Beam (pipelines.cli.quick_help)
    from pipelines.cli.quick_help import exit_with_stored_help

    exit_with_stored_help("python -m pipelines.build_categories")

from pipelines.cli.spec_runner import entry_points
from transforms.categories.spec import SPEC

build_parser, run, main, format_summary = entry_points(SPEC)

if __name__ == "__main__":
    sys.exit(main())
