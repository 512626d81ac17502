"""Beam stages, card and spec of the local search index release (``search_<lang>``).

``stages``: read pages from a corpus directory or Wikimedia Enterprise dumps in parallel and
build the BM25 index from the staged pages; ``counters``: the counts they tally and the card
and summary read; ``card``: its stats and data card; ``spec``: the dataset declared once
(options, plan, composite transform, summary). It may import ``transforms.sources``,
``transforms.release``, ``transforms.core``, ``transforms.clients`` and ``filters``.
"""
