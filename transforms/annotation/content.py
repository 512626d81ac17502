"""What a worker saw of an example, as one digest per part: when annotations may be carried.

A judgment answers what its task showed. It stays valid in a later release exactly when that
content is unchanged, so ``annotate export --previous`` and ``annotate import --previous``
compare these digests, part by part, between the example of the new release and the one the
previous annotated release judged:

* **NQ** (one task per example, NQ §3.2): ``question`` (``question_text``), ``document`` (the
  page revision: ``document_title``, the revision-pinned ``document_url``, ``document_html``
  and ``document_tokens``, which the candidates' text and every short answer's offsets are
  read from) and ``candidates`` (``long_answer_candidates``, which a vote's
  ``long_answer_candidate`` indexes);
* **JNQ / JBoolQ** (every stage's task shows the question and the page's title; the paragraph
  stages one candidate paragraph each): ``question`` (``question``), ``document``
  (``document_title``, ``document_url``, ``revision``) and ``paragraphs`` (the candidate
  paragraphs' ids, in order, with their text; votes name paragraphs by id, spans are in
  characters of that text).

Everything else (an NQ example's annotations, a JNQ row's search rank, snippet, scores, users)
is not shown to a worker and may change without invalidating a judgment. A digest is the first
16 hex digits of the sha256 of the part's canonical JSON (sorted keys, ASCII), so it depends
on the content only, never on a file's layout or compression. The first part that differs
names why an annotation is invalidated (``question_changed``, ``document_changed``,
``candidates_changed``, ``paragraphs_changed``). Nothing new is stored in a base release; the
previous annotated release holds every example it judged, except JNQ questions it dropped,
whose ``rejected/dropped_questions/`` record carries this digest as ``content``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

Digest = dict[str, str]  # part -> 16 hex digits

NQ_PARTS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "question": lambda e: e["question_text"],
    "document": lambda e: [e.get("document_title"), e.get("document_url"),
                           e.get("document_html"), e["document_tokens"]],
    "candidates": lambda e: e["long_answer_candidates"],
}


def _candidate_paragraphs(row: Mapping[str, Any]) -> list[list[Any]]:
    texts = {int(p["id"]): p["text"] for p in row["paragraphs"]}
    return [[int(i), texts.get(int(i))] for i in row["candidate_paragraph_ids"]]


JNQ_PARTS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "question": lambda r: r["question"],
    "document": lambda r: [r.get("document_title"), r.get("document_url"), r.get("revision")],
    "paragraphs": _candidate_paragraphs,
}

PARTS = {"nq": NQ_PARTS, "jnq": JNQ_PARTS, "jboolq": JNQ_PARTS}
UNKNOWN = "content_unknown"  # the previous release did not record what its worker saw


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def content_digest(base: str, example: Mapping[str, Any]) -> Digest:
    """``{part: digest}`` of what a worker annotating ``example`` (an NQ original-format
    example, or a JNQ / JBoolQ row) was shown; ``base`` is nq, jnq or jboolq."""
    return {part: _digest(read(example)) for part, read in PARTS[base].items()}


def changed_part(base: str, old: Any, new: Digest) -> str | None:
    """Why an annotation of content ``old`` does not hold for ``new``: ``<part>_changed`` for
    the first part (in ``PARTS`` order) that differs, ``content_unknown`` when ``old`` is not
    a digest of every part; ``None`` when the content is unchanged."""
    if not isinstance(old, Mapping) or any(not isinstance(old.get(p), str) for p in PARTS[base]):
        return UNKNOWN
    for part in PARTS[base]:
        if old[part] != new[part]:
            return f"{part}_changed"
    return None
