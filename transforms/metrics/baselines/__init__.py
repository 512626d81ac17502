"""Untrained baselines the data cards report, as predictions ``evaluate`` reads.

``nlquad`` (first, last, random and BM25 answer-sized windows, Table 4), ``nq`` (the first
paragraph, Table 3), ``jnq`` (first and most snippet-similar paragraph), ``reqa`` (BM25
rankings over sentences or paragraphs, Table 6); ``output`` writes a predictions file.
``python -m pipelines.evaluate baseline`` reads the release and writes them. Plain Python,
no Beam.
"""
