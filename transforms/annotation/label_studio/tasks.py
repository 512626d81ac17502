"""Label Studio tasks (``{"data": {...}}``) for NQ examples and JNQ / JBoolQ release rows.

Every task carries what ``exports.py`` needs to turn its annotations back into votes without
the release: the ids, the stage, the release fingerprint, and for NQ each rendered candidate's
document-token indices and character starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from filters.annotation.votes import JNQ_STAGES, PARAGRAPH_STAGES
from transforms.annotation.label_studio.configs import NO_ANSWER
from transforms.annotation.render import render_candidates


def nq_task(example: dict[str, Any], split: str, release: str) -> dict[str, Any]:
    """The one task of an NQ original-format example (NQ §3.2's three stages, ``nq_config``).

    A page without candidates gets one placeholder paragraph (Label Studio's ``Paragraphs``
    cannot show an empty list) that is not an answer option: only "no answer" can be chosen."""
    rendered = render_candidates(example)
    shown = [{"label": c["label"], "text": c["text"]} for c in rendered] or [
        {"label": "(no candidates)", "text": "This page has no long-answer candidates."}]
    return {"data": {
        "dataset": "nq",
        "example_id": str(example["example_id"]),
        "question": example["question_text"],
        "document_title": example.get("document_title") or "",
        "document_url": example.get("document_url") or "",
        "candidates": shown,
        "long_answer_options": ([{"value": NO_ANSWER}]
                                + [{"value": c["label"]} for c in rendered]),
        "candidate_tokens": [c["tokens"] for c in rendered],
        "candidate_starts": [c["starts"] for c in rendered],
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
