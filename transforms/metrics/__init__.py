"""Evaluation metrics and untrained baselines: plain Python, no Beam.

``nq`` (NQ §5.1 long/short answer P/R/F1, the official keys), ``nlquad`` (EM, F1 and IoU of
NLQuAD §5.1, with the published script's legacy IoU), ``reqa`` (MRR, R@N), ``jnq``
(paragraph-level multi-label P/R/F1); ``baselines`` (NLQuAD windows, NQ and JNQ first
paragraph, ReQA BM25 rankings, as prediction files); ``hints`` (likely causes of predictions
that match nothing or score 0).
Imports ``filters`` only (and no ``apache_beam``: checked by ``lint-imports``).
"""
