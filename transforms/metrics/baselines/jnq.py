"""JNQ's untrained baselines (JNQ §5): the first paragraph, and the paragraph most similar to
the search snippet, as paragraph-level predictions (``transforms.metrics.jnq``).

A JNQ row lists its candidate paragraphs (``candidate_paragraph_ids``) with their rank
(``candidate_ranks``): rank 0 is the document's first paragraph, rank 1 the paragraph most
similar to the search engine's snippet. Each baseline predicts that one paragraph (NONE when
the row has no such candidate), as the annotated release's card scores them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: ``evaluate baseline jnq --method`` names -> (candidate rank, the card's row name).
METHODS: dict[str, tuple[int, str]] = {
    "first-paragraph": (0, "first paragraph"),
    "snippet-similar": (1, "most snippet-similar paragraph"),
}


def paragraph_predictions(rows: Iterable[Mapping[str, Any]], method: str
                          ) -> dict[str, list[int]]:
    """``{question id: [paragraph id]}`` (``[]``: NONE) of a :data:`METHODS` baseline."""
    if method not in METHODS:
        raise ValueError(f"unknown JNQ baseline {method!r} (one of {', '.join(METHODS)})")
    rank = METHODS[method][0]
    predictions = {}
    for row in rows:
        ranked = dict(zip(row["candidate_ranks"] or [], row["candidate_paragraph_ids"] or [],
                          strict=False))
        predictions[str(row["id"])] = [ranked[rank]] if rank in ranked else []
    return predictions
