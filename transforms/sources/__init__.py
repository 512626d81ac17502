"""Beam sources: where a dataset's raw inputs come from.

``pages`` (the ``CapturedPage`` record), ``page_files`` (bundled sample, saved HTML, WARC/ARC),
``wayback`` (CDX listing and ``id_`` fetching through ``transforms.clients.wayback``),
``query_logs`` (TSV/CSV/JSONL/Parquet logs aggregated per normalized query), ``search_corpus``
(pages for the local search index: bundled corpus, page directories, Wikimedia dumps). May
import ``transforms.release``, ``transforms.core``, ``transforms.clients`` and ``filters``.
"""
