"""Build a ReQA sentence-retrieval set (Ahmad, Constant, Yang, Cer 2019) from SQuAD, NQ or NLQuAD.

    python -m pipelines.build_reqa --runner=DirectRunner                  # bundled SQuAD sample
    python -m pipelines.build_reqa --source nq                            # bundled NQ sample
    python -m pipelines.build_reqa --source squad --input train-v1.1.json
    python -m pipelines.build_reqa --source squad --input train-v1.1.json --splitter reqa
    python -m pipelines.build_reqa --source nq --input 'v1.0/train/nq-train-*.jsonl.gz'
    python -m pipelines.build_reqa --source nq --input releases/nq/1.0.0 --split dev
    python -m pipelines.build_reqa --source nlquad --input releases/nlquad/1.0.0

ReQA ("ReQA: An Evaluation for End-to-End Answer Retrieval Models", MRQA 2019) splits every
paragraph into sentences; the answer index holds each sentence with its paragraph as context,
and a question's correct answers are the sentences containing its answer span. Writes
``<output>/reqa_<source>/<version>/``: ``questions/*.parquet`` (qid, question,
correct_candidate_ids, source, document, example_ids), ``candidates/*.parquet``
(candidate_id, sentence, context, paragraph_id, document, source, sentence_start,
sentence_end), ``rejected/`` (dropped examples with their reason, dead letters),
``stats.json`` (with BM25 baselines over every question at sentence and paragraph level),
a card and the manifest. ``--splitter reqa`` uses the paper's own sentence rules instead of
spaCy's ``senter``. ``--source nlquad`` needs ``--input`` (an NLQuAD
release directory or Parquet glob). Other ``--options`` go to Beam. Declared in
``transforms.reqa.spec``.
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
