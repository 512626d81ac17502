"""Untrained baselines the data cards report: NLQuAD windows (Table 4), NQ first paragraph.

``nlquad`` (first, last, random and BM25 answer-sized windows), ``nq`` (the first-paragraph
prediction scored with ``transforms.metrics.nq``). Plain Python, no Beam.
"""
