"""A BM25 index (bm25s) over pre-tokenized texts with a deterministic vocabulary.

bm25s numbers its vocabulary from a Python set when given strings, so the index bytes (and
tie order) would change with the process's hash seed; numbering tokens in order of first
appearance makes the same texts give the same index in every process and runner.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from types import ModuleType


def import_bm25s() -> ModuleType:
    """``bm25s``, imported lazily, its logger put back to the level set before the import
    (``pipelines.cli.entry.quiet_loggers``: WARNING, INFO with ``--verbose``), else WARNING:
    bm25s sets its own logger to DEBUG on import, which floods every worker process with
    debug lines."""
    logger = logging.getLogger("bm25s")
    before = logger.level
    import bm25s

    if logger.level == logging.DEBUG:
        logger.setLevel(before if before not in (logging.NOTSET, logging.DEBUG)
                        else logging.WARNING)
    return bm25s


def bm25_retriever(token_lists: Sequence[Sequence[str]]):
    """``(bm25s.BM25 indexed over token_lists, vocabulary {token: id})``; document ids are
    positions in ``token_lists``."""
    bm25s = import_bm25s()
    from bm25s.tokenization import Tokenized

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(token, len(vocab)) for token in tokens] for tokens in token_lists]
    retriever = bm25s.BM25()
    retriever.index(Tokenized(ids=ids, vocab=vocab), show_progress=False)
    return retriever, vocab
