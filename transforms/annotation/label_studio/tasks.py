"""Label Studio tasks (``{"data": {...}}``) for NQ examples and JNQ / JBoolQ release rows.

Every task carries what ``exports.py`` needs to turn its annotations back into votes without
the release: the ids, the stage, the release fingerprint, and for NQ the page and the map
from its characters back to document tokens and candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from filters.annotation.votes import JNQ_STAGES, PARAGRAPH_STAGES
from transforms.annotation.page import render_page

_EMPTY_PAGE = '<div class="nq-page">This page has no long-answer candidates.</div>'


def nq_task(example: dict[str, Any], split: str, release: str) -> dict[str, Any]:
    """The one task of an NQ original-format example (NQ §3.2's three stages, ``nq_config``).

    ``page`` is the page as ``render_page`` lays it out; ``page_tokens``, ``page_starts`` and
    ``page_lengths`` map each rendered word to its document token and its characters, and
    ``boxes`` give each candidate's character range, so an export maps back exactly without
    the release. A page without candidates says so; only "No answer" fits it."""
    page = render_page(example)
    markup = page.html if any(start >= 0 for start, _ in page.boxes) else _EMPTY_PAGE
    return {"data": {
        "dataset": "nq",
        "example_id": str(example["example_id"]),
        "question": example["question_text"],
        "document_title": example.get("document_title") or "",
        "document_url": example.get("document_url") or "",
        "page": markup,
        "page_tokens": list(page.tokens) if markup is page.html else [],
        "page_starts": list(page.starts) if markup is page.html else [],
        "page_lengths": list(page.lengths) if markup is page.html else [],
        "boxes": [list(box) for box in page.boxes] if markup is page.html else [],
        "split": split,
        "release": release,
    }}


def jnq_tasks(row: dict[str, Any], stage: str, split: str, release: str,
              paragraphs: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """The tasks of one JNQ / JBoolQ release row at one stage (JNQ §3.2-3.5, JBoolQ §4).

    ``good_question`` and ``yes_no_question`` give one task; ``long_answer``,
    ``yes_no_answer`` and ``span`` one per paragraph: the row's five candidates, or
    ``paragraphs`` (e.g. the EXIST ones) when given."""
    if stage not in JNQ_STAGES:
        raise ValueError(f"unknown JNQ stage {stage!r}; one of {', '.join(JNQ_STAGES)}")
    base = {
        "question_id": str(row["id"]),
        "question": row["question"],
        "document_title": row.get("document_title") or "",
        "stage": stage,
        "split": split,
        "release": release,
    }
    if stage not in PARAGRAPH_STAGES:
        return [{"data": base}]
    texts = {int(p["id"]): p["text"] for p in row["paragraphs"]}
    ids = row["candidate_paragraph_ids"] if paragraphs is None else paragraphs
    tasks = []
    for paragraph in ids:
        paragraph = int(paragraph)
        if paragraph not in texts:
            raise ValueError(f"question {base['question_id']} has no paragraph {paragraph}")
        tasks.append({"data": {**base, "paragraph": paragraph,
                               "paragraph_text": texts[paragraph]}})
    return tasks
