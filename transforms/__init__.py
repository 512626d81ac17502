"""Beam stages and IO: everything a pipeline composes, and the clients and metrics below them.

Subpackages, from the top layer down (``lint-imports`` checks the order; a package imports
only those below it and ``filters``, never ``pipelines``):

- dataset stages: ``jnq`` (reuses ``nq``), then ``nlquad``, ``nq``, ``reqa``, ``categories``,
  ``search_index``: each has its Beam stages, its schema and its data card;
- ``sources``: page sources (bundled, saved HTML, WARC, Wayback), query logs, search corpora;
- ``release``: staging, shards, accounting, stats, manifest, commit: the versioned release;
- ``core``: the exact accounting every stage reports through, progress logging;
- ``clients`` (Wayback, MediaWiki, REST pages, web search, local BM25 index) and ``metrics``
  (evaluation metrics and untrained baselines): plain Python, no ``apache_beam``.
"""
