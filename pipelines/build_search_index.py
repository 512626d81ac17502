"""Build the local BM25 search index used by ``build_nq --search local``.

    python -m pipelines.build_search_index --runner=DirectRunner          # bundled corpus
    python -m pipelines.build_search_index --source pages --input DIR     # DIR/index.tsv + pages
    python -m pipelines.build_search_index --source enterprise \\
        --input 'enwiki-NS0-*-ENTERPRISE-HTML.json.tar.gz' --lang en

Beam reads and cleans the pages (in parallel over dump files); the BM25 index is then built
on one machine, out of core (memory bounded by the vocabulary, not the corpus; see
docs/datasets/nq.md, "Search at Wikipedia scale"). Output
``<output>/search_<lang>/<version>/`` (``--output`` defaults to ``releases``, the root every
builder and ``release list`` share): ``bm25/`` (bm25s files), ``pages/`` (the page store),
``docs/*.parquet``, stats, card and manifest.
Declared in ``transforms.search_index.spec``.
"""

import sys

if __name__ == "__main__":  # --help without importing Beam (pipelines.cli.quick_help)
    from pipelines.cli.quick_help import exit_with_stored_help

    exit_with_stored_help("python -m pipelines.build_search_index")

from pipelines.cli.spec_runner import entry_points
from transforms.search_index.spec import SPEC

build_parser, run, main, format_summary = entry_points(SPEC)

if __name__ == "__main__":
    sys.exit(main())
