"""Build Japanese Natural Questions (JNQ) or JBoolQ data from Japanese search-query logs.

    python -m pipelines.build_jnq --runner=DirectRunner                  # JNQ, bundled sample
    python -m pipelines.build_jnq --runner=DirectRunner --variant=jboolq
    python -m pipelines.build_jnq --stop-after questions --input 'logs/*.tsv'

Uematsu, Wang, Kawahara, Shibata, "A Benchmark Suite of Japanese Natural Questions":
queries without spaces, of 8+ words (fugashi/unidic-lite), matching pattern 1 (topic "は" +
an interrogative), 2 (final "?") or 3 (意味/方法/理由...) — or, for JBoolQ, more than six words
ending with "?" or "か" — are searched; the top-ranked ja.wikipedia.org article among the top 5
is the document; its first paragraph and the 4 paragraphs most similar to the search snippet
are the long-answer candidates. Other ``--options`` go to Beam. Declared in
``transforms.jnq.spec``.
"""

import sys

if __name__ == "__main__":  # --help without importing Beam (pipelines.cli.quick_help)
    from pipelines.cli.quick_help import exit_with_stored_help

    exit_with_stored_help("python -m pipelines.build_jnq")

from pipelines.cli.spec_runner import entry_points
from transforms.jnq.spec import SPEC

build_parser, run, main, format_summary = entry_points(SPEC)

if __name__ == "__main__":
    sys.exit(main())
