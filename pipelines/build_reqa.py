"""Build a ReQA sentence-retrieval set (Ahmad, Constant, Yang, Cer 2019) from SQuAD, NQ or NLQuAD.

    python -m pipelines.build_reqa --runner=DirectRunner                  # bundled SQuAD sample
    python -m pipelines.build_reqa --source nq --input 'v1.0/train/nq-train-*.jsonl.gz'
    python -m pipelines.build_reqa --source squad --input train-v1.1.json --splitter reqa
    python -m pipelines.build_reqa --source nlquad --input releases/nlquad/1.0.0

Tables, files and options: ``transforms.reqa.spec``. Other ``--options`` go to Beam.
"""

import sys

if __name__ == "__main__":  # --help without importing Beam (pipelines.cli.quick_help)
    from pipelines.cli.quick_help import exit_with_stored_help

    exit_with_stored_help("python -m pipelines.build_reqa")

from pipelines.cli.spec_runner import entry_points
from transforms.reqa.inputs import release_of, resolve_input, sample_path
from transforms.reqa.spec import SPEC

__all__ = ["SPEC", "build_parser", "format_summary", "main", "release_of", "resolve_input",
           "run", "sample_path"]

build_parser, run, main, format_summary = entry_points(SPEC)

if __name__ == "__main__":
    sys.exit(main())
