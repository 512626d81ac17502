"""Synthetic JNQ / JBoolQ questions and NQ pages for the rounds benchmark (seeded)."""

from __future__ import annotations

import random
from typing import Any

from tests.transforms.annotation.nq_pages import uniform_nq_page

KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわ"


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
    return uniform_nq_page(str(number), paragraphs)
