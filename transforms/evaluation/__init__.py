"""Scoring predictions against a release's gold, and the untrained baselines' predictions.

``python -m pipelines.evaluate`` parses the command line and composes these modules:
``options`` (what a command reads, typed), ``errors`` (``EvaluationError`` and its hints,
warnings), ``files`` (JSON and Parquet read with one-line errors), ``gold`` (``--gold`` as a
release directory, a dataset root with ``LATEST``, Parquet files or the original formats;
checked against its manifest), ``ids`` (prediction ids against gold ids), ``tasks`` (one
evaluator per task, scoring with ``transforms.metrics``) and ``baselines`` (the predictions
of the baselines a release's card reports, written atomically). Formats, baselines and a
worked example: ``docs/guides/evaluation.md``.
"""
