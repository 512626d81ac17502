"""The hidden truth of a simulated campaign, as JSON lines (``annotate simulate --truth``).

One line per item simulated, in the order of the votes file, keys sorted:

* NQ: ``{"dataset": "nq", "split", "example_id", "question_good", "long_answer_candidate"
  (-1 none), "short_answers": [{"start_token", "end_token"}], "yes_no_answer"
  (YES/NO/NONE)}`` -- the fields of a vote (``filters.annotation.votes``).
* JNQ / JBoolQ: ``{"dataset": "jnq"|"jboolq", "split", "question_id", "good",
  "yes_no_question", "paragraphs": [{"paragraph", "label" (EXIST/NONE), "span"
  ({"start", "end"} characters, or null), "yes_no_answer" (YES/NO/NONE)}]}``, one entry per
  candidate paragraph shown to the workers, in their order; ``span`` only for a question that
  is not yes/no, ``yes_no_answer`` only for a yes/no one.

``release`` (the release's fingerprint) is on every line when the votes carry it. The truth
is what the simulated workers were drawn from (``simulate.nq_truth`` / ``jnq_truth``), so a
campaign's aggregate can be scored against it (``simulate_scores``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from filters.annotation.jnq import EXIST, NONE
from transforms.annotation.simulate import WorkerPool, _candidates, jnq_truth, nq_truth


def nq_truth_record(example: Mapping[str, Any], pool: WorkerPool,
                    split: str | None = None) -> dict[str, Any]:
    """The truth line of one NQ example."""
    truth = nq_truth(example, pool)
    record: dict[str, Any] = {
        "dataset": "nq", "example_id": str(example["example_id"]),
        "question_good": truth.question_good,
        "long_answer_candidate": truth.long_answer_candidate,
        "short_answers": [{"start_token": s, "end_token": e} for s, e in truth.short_answers],
        "yes_no_answer": truth.yes_no_answer}
    if split is not None:
        record["split"] = split
    return record


def jnq_truth_record(row: Mapping[str, Any], pool: WorkerPool, order: str,
                     split: str | None = None) -> dict[str, Any]:
    """The truth line of one JNQ / JBoolQ question (``order`` is its dataset)."""
    truth = jnq_truth(row, pool, order)
    paragraphs = []
    for pid in _candidates(row):
        exist = pid in truth.exist
        span = truth.spans.get(pid) if exist and not truth.yes_no_question else None
        paragraphs.append({
            "paragraph": pid, "label": EXIST if exist else NONE,
            "span": None if span is None else {"start": span[0], "end": span[1]},
            "yes_no_answer": truth.yes_no_answers.get(pid, NONE) if exist else NONE})
    record: dict[str, Any] = {"dataset": order, "question_id": str(row["id"]),
                              "good": truth.good, "yes_no_question": truth.yes_no_question,
                              "paragraphs": paragraphs}
    if split is not None:
        record["split"] = split
    return record


def truth_line(record: Mapping[str, Any], release: str | None = None) -> str:
    """One JSON line (keys sorted, UTF-8 as is)."""
    if release is not None:
        record = {**record, "release": release}
    return json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"


def item_id(record: Mapping[str, Any]) -> str:
    """The id of the item a truth line is about (``example_id`` or ``question_id``)."""
    return str(record.get("example_id", record.get("question_id")))


def read_truth(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of a truth file, one per line."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)
