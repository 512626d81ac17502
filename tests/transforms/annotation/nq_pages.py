"""A synthetic NQ page of uniform paragraphs, for the simulated crowd's tests and the rounds
benchmark (``benchmarks/annotation_rounds``)."""

from __future__ import annotations

from typing import Any

WORDS = ("the river flows north through the valley and feeds the lake near the old town "
         "where the bridge was built in the year of the flood").split()


def uniform_nq_page(example_id: str | int, paragraphs: int = 20) -> dict[str, Any]:
    """An NQ example of ``paragraphs`` top-level paragraphs of 8 words, each a candidate."""
    tokens, candidates = [], []
    for paragraph in range(paragraphs):
        start = len(tokens)
        for word in ["<P>", *WORDS[paragraph % 6:paragraph % 6 + 8], "</P>"]:
            tokens.append({"token": word, "html_token": word.startswith("<"),
                           "start_byte": 0, "end_byte": 1})
        candidates.append({"start_token": start, "end_token": len(tokens), "top_level": True})
    return {"example_id": example_id, "document_tokens": tokens,
            "long_answer_candidates": candidates}
