"""Build an NLQuAD-style release from archived BBC News pages.

    python -m pipelines.build_nlquad --runner=DirectRunner            # bundled sample, offline
    python -m pipelines.build_nlquad --source html --input 'pages/*.html'
    python -m pipelines.build_nlquad --source warc --input 'crawl/*.warc.gz'
    python -m pipelines.build_nlquad --source wayback --from 2016 --to 2020

Options not listed by ``--help`` are Beam pipeline options (``--runner``,
``--direct_running_mode``, ``--direct_num_workers``, Dataflow options, ...).
Declared in ``transforms.nlquad.spec``.
"""

import sys

if __name__ == "__main__":  # --help without importing Beam (pipelines.cli.quick_help)
    from pipelines.cli.quick_help import exit_with_stored_help

    exit_with_stored_help("python -m pipelines.build_nlquad")

from pipelines.cli.spec_runner import entry_points
from transforms.nlquad.spec import SPEC

build_parser, run, main, format_summary = entry_points(SPEC)

if __name__ == "__main__":
    sys.exit(main())
