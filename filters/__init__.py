"""Pure rules and parsers, no Beam: what each paper decided, one function at a time.

A filter returns keep, or drop with a named reason, and cites the paper section it implements.
Subpackages by paper or source: ``bbc`` (BBC News pages), ``nlquad``, ``nq``, ``jnq``; shared
text helpers (splits, sentences, BM25, statistics, decoding) live in ``text``. Filters import
only each other (``nlquad`` over ``bbc | nq | jnq`` over ``text``) and third-party libraries;
never ``transforms``, ``pipelines`` or ``apache_beam`` (checked by ``lint-imports``).
"""
