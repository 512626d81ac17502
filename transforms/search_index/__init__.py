"""Beam stages and card of the local search index release (``search_<lang>``).

``stages``: read pages from a corpus directory or Wikimedia Enterprise dumps in parallel and
build the BM25 index from the staged pages; ``card``: its stats and data card. It may import
``transforms.sources``, ``transforms.release``, ``transforms.core``, ``transforms.clients``
and ``filters``.
"""
