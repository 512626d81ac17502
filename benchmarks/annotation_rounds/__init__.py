"""Helpers of ``benchmarks/bench_annotation_rounds.py``: synthetic items (``items``), scoring
decisions against the hidden truth (``scoring``) and the confident stop rule's campaigns
(``confident``)."""
