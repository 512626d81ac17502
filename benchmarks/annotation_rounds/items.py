"""Synthetic JNQ / JBoolQ questions and NQ pages for the rounds benchmark (seeded)."""

from __future__ import annotations

import random
from typing import Any

KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわ"
WORDS = ("the river flows north through the valley and feeds the lake near the old town "
         "where the bridge was built in the year of the flood").split()


def jnq_row(number: int, order: str) -> dict[str, Any]:
    """A question with seven paragraphs, five of them candidates (seeded by ``number``)."""
    rng = random.Random(f"{order}-{number}")
    texts = ["".join(rng.choice(KANA) for _ in range(rng.randint(20, 80))) + "。"
             for _ in range(7)]
    shown = rng.sample(range(7), 5)
    return {"id": f"{order}-{number}", "question": "富士山の高さは?", "variant": order,
            "paragraphs": [{"id": i, "text": text} for i, text in enumerate(texts)],
            "candidate_paragraph_ids": shown, "candidate_ranks": list(range(5))}


def nq_example(number: int, paragraphs: int = 20) -> dict[str, Any]:
    """An NQ page of ``paragraphs`` top-level paragraphs of 8 words, each a candidate."""
    tokens, candidates = [], []
    for paragraph in range(paragraphs):
        start = len(tokens)
        for word in ["<P>", *WORDS[paragraph % 6:paragraph % 6 + 8], "</P>"]:
            tokens.append({"token": word, "html_token": word.startswith("<"),
                           "start_byte": 0, "end_byte": 1})
        candidates.append({"start_token": start, "end_token": len(tokens), "top_level": True})
    return {"example_id": str(number), "document_tokens": tokens,
            "long_answer_candidates": candidates}
