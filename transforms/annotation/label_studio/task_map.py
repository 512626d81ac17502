"""What a Label Studio task showed and how its marks map back, as one digest: checked on import.

A Label Studio export carries each task's ``data`` as ``annotate export`` wrote it, and the
import reads a worker's marks back through it (``label_studio.exports``): an NQ page task's
``page``, its word map (``page_tokens``, ``page_starts``, ``page_lengths``) and ``boxes`` (box
-> candidate index); a task of the earlier layout its ``candidates`` with their token and start
lists; a JNQ / JBoolQ task its ``paragraph_text``. Nothing in the export ties that data to the
example the task names: a task whose page and boxes were copied from another example would
turn a mark on that page into a vote for the wrong candidate of this one.

So every task's map is digested (``task_digest``: ``<layout>:`` and the first 16 hex digits of
the sha256 of the question and the mapping fields as canonical JSON) and the import recomputes,
from the release row the vote names, what the export would have written (``nq_task_digests``,
``jnq_task_digest``). A vote whose task digest differs is refused as ``task_page_mismatch``
(``counters.TASK_PAGE_MISMATCH``), dead-lettered and counted like every refused vote. Votes
JSON lines carry no task and are not checked. Tasks exported by a version of this toolkit whose
page layout differs mismatch too: export the tasks again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from filters.annotation.votes import PARAGRAPH_STAGES, JnqVote, NqVote
from transforms.annotation.label_studio.tasks import jnq_tasks, nq_task
from transforms.annotation.render import render_candidates

PAGE = "page"  # an NQ task on the rendered page (``nq_task``)
LEGACY = "legacy"  # an NQ task of candidates in a list (the layout before the page)
PAGE_FIELDS = ("question", "page", "page_tokens", "page_starts", "page_lengths", "boxes")
LEGACY_FIELDS = ("question", "candidates", "candidate_tokens", "candidate_starts")
JNQ_FIELDS = ("question", "document_title", "paragraph_text")
TASK_MAPS = "task_maps"  # an NQ view's key (``release_examples``): its ``nq_task_digests``


def _digest(kind: str, data: Mapping[str, Any], fields: tuple[str, ...]) -> str:
    value = [kind, *(data.get(name) for name in fields)]
    text = json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return f"{kind}:{hashlib.sha256(text.encode('ascii')).hexdigest()[:16]}"


def nq_kind(data: Mapping[str, Any]) -> str:
    """``PAGE`` or ``LEGACY``: the layout of an NQ task's ``data``."""
    return PAGE if "page" in data else LEGACY


def task_digest(dataset: str, data: Mapping[str, Any]) -> str:
    """The digest of what a task of ``dataset`` (nq, jnq, jboolq) showed and how its marks
    map back to the example; the candidates of a legacy NQ task count by label and text."""
    if dataset != "nq":
        return _digest("jnq", data, JNQ_FIELDS)
    if nq_kind(data) == PAGE:
        return _digest(PAGE, data, PAGE_FIELDS)
    candidates = data.get("candidates")
    shown = [[c.get("label"), c.get("text")] if isinstance(c, Mapping) else c
             for c in candidates] if isinstance(candidates, list) else candidates
    return _digest(LEGACY, {**data, "candidates": shown}, LEGACY_FIELDS)


def nq_task_digests(example: dict[str, Any]) -> dict[str, str]:
    """``{PAGE: digest, LEGACY: digest}`` of the tasks ``annotate export`` writes (and once
    wrote) for an NQ original-format example."""
    rendered = render_candidates(example)
    legacy = {"question": example["question_text"],
              "candidates": [{"label": c["label"], "text": c["text"]} for c in rendered],
              "candidate_tokens": [c["tokens"] for c in rendered],
              "candidate_starts": [c["starts"] for c in rendered]}
    return {PAGE: task_digest("nq", nq_task(example, "", "")["data"]),
            LEGACY: task_digest("nq", legacy)}


def jnq_task_digest(row: dict[str, Any], stage: str, paragraph: int | None) -> str | None:
    """The digest of the task ``annotate export`` writes for a JNQ / JBoolQ row at ``stage``
    (and ``paragraph``); None when the row has no such paragraph (the vote is refused as
    ``unknown_paragraph`` instead)."""
    only = [paragraph] if stage in PARAGRAPH_STAGES else None
    try:
        [task] = jnq_tasks(row, stage, "", "", only)
    except ValueError:
        return None
    return task_digest("jnq", task["data"])


def expected_nq(task: str, digests: Mapping[str, str] | None) -> str | None:
    """Of an NQ example's ``nq_task_digests``, the one of ``task``'s layout."""
    return None if digests is None else digests.get(task.partition(":")[0])


def vote_mismatch(dataset: str, vote: NqVote | JnqVote, example: Mapping[str, Any]
                  ) -> str | None:
    """Why ``vote``'s task does not fit ``example`` (an NQ view, a JNQ / JBoolQ row): a
    message for its dead letter, or None."""
    if vote.task is None:
        return None
    if isinstance(vote, NqVote):
        return mismatch(dataset, vote.task, expected_nq(vote.task, example.get(TASK_MAPS)))
    return mismatch(dataset, vote.task,
                    jnq_task_digest(dict(example), vote.stage, vote.paragraph))


def mismatch(dataset: str, task: str | None, expected: str | None) -> str | None:
    """Why a vote's ``task`` digest does not fit the release row (a message), None when it
    does or when there is nothing to compare (a votes line, a paragraph the row lacks)."""
    if task is None or expected == task or (expected is None and dataset != "nq"):
        return None
    what = "page and candidate map" if dataset == "nq" else "question and paragraph"
    return (f"the task's {what} (digest {task}) is not what the export writes for this "
            f"{'example' if dataset == 'nq' else 'question'} (digest {expected}): a task "
            "copied from another item, or exported by another version; export the tasks "
            "again")
