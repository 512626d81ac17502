"""Simulated workers answering a round's gold requests (``annotate simulate --requests``).

``annotate next --gold-rate`` marks its gold requests ``"gold": true``
(``transforms.annotation.gold_rounds``). ``answer_round`` answers the ordinary requests as
``simulate_rounds.write_request_answers`` does (byte for byte: a round without gold is
answered by it alone), then each gold request by ``more`` workers of that round drawn in
proportion to the judgments they gave in it (seeded; a worker who judged the gold item
already is not asked it again), as a crowd platform hands gold to whoever is working. Each
value is drawn as a full simulation draws that worker's judgment of that item
(``simulate._jnq_value`` from the item's simulated truth), so a gold file written from the
truth (``gold_lines``) scores the simulated workers' real accuracy.
"""

from __future__ import annotations

import json
import os
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator, Mapping
from itertools import accumulate
from pathlib import Path
from typing import Any

from transforms.annotation.export import read_examples
from transforms.annotation.gold_rounds import GOLD_FIELD
from transforms.annotation.manifest import ReleaseRef, base_dataset
from transforms.annotation.simulate import (
    WorkerPool,
    _jnq_value,
    _rng,
    _texts,
    jnq_truth,
)
from transforms.annotation.simulate_rounds import (
    _truth_value,
    jnq_vote_record,
    write_request_answers,
)
from transforms.annotation.simulate_truth import jnq_truth_record


def _split_requests(path: str) -> tuple[list[str], list[dict[str, Any]]]:
    ordinary, gold = [], []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                if record.get(GOLD_FIELD):
                    gold.append(record)
                else:
                    ordinary.append(line)
    return ordinary, gold


def _weighted_pick(weights: Mapping[str, int], count: int, rng: Any) -> list[str]:
    """``count`` distinct names drawn with probability proportional to their weight."""
    pool = dict(sorted(weights.items()))
    chosen = []
    while pool and len(chosen) < count:
        names, bounds = list(pool), list(accumulate(pool.values()))
        name = names[min(bisect_right(bounds, rng.random() * bounds[-1]), len(names) - 1)]
        chosen.append(name)
        del pool[name]
    return sorted(chosen)


def answer_gold(row: Mapping[str, Any], request: Mapping[str, Any], judged: list,
                workload: Mapping[str, int], pool: WorkerPool, order: str,
                release: str | None = None) -> list[dict[str, Any]]:
    """Votes answering one gold request: ``more`` of the round's workers (``workload``:
    judgments each gave in the round), weighted by their work, who have not judged it."""
    question_id = str(row["id"])
    stage, paragraph = request["stage"], request.get("paragraph")
    done = {v.annotator_id for v in judged if v.stage == stage and v.paragraph == paragraph}
    weights = {w: n for w, n in workload.items() if w not in done and n > 0}
    if not weights:  # nobody worked this round: any worker of the pool
        weights = {w.id: 1 for w in pool.workers() if w.id not in done}
    rng = _rng(pool.seed, question_id, f"gold:{stage}:{paragraph}:{sum(workload.values())}")
    workers = {w.id: w for w in pool.workers()}
    truth = _truth_value(jnq_truth(row, pool, order), stage, paragraph)
    text = _texts(row).get(paragraph, "")
    votes = []
    for worker_id in _weighted_pick(weights, request["more"], rng):
        draw = _rng(pool.seed, question_id, f"{stage}:{paragraph}:{worker_id}")
        value = _jnq_value(stage, truth, text, workers[worker_id], draw)
        votes.append(jnq_vote_record(question_id, worker_id, stage, paragraph, value, release))
    return votes


def answer_round(release: ReleaseRef, requests_path: str, judged: Mapping[str, list],
                 ways: Mapping[str, int], pool: WorkerPool, out: str) -> dict[str, int]:
    """Answer ``annotate next``'s ``requests.jsonl``, gold requests included; votes JSON
    lines to ``out`` (atomically, never overwriting); ``{"items", "votes"}`` (``"gold"``:
    gold votes, when there are gold requests)."""
    ordinary, gold = _split_requests(requests_path)
    if not gold:
        return write_request_answers(release, requests_path, judged, ways, pool, out)
    target = Path(out)
    asked = target.with_name(f".{target.name}.ordinary-requests")
    answered = target.with_name(f".{target.name}.ordinary")
    try:
        asked.write_text("".join(ordinary), encoding="utf-8")
        counts = write_request_answers(release, str(asked), judged, ways, pool, str(answered))
        lines = answered.read_text(encoding="utf-8").splitlines(keepends=True)
    finally:
        asked.unlink(missing_ok=True)
        answered.unlink(missing_ok=True)
    workload = Counter(json.loads(line)["annotator_id"] for line in lines)
    rows = {str(r["id"]): r for r in _gold_rows(release, {str(g["question_id"]) for g in gold})}
    given: dict[str, list] = {k: list(v) for k, v in judged.items()}
    gold_votes = 0
    for request in gold:
        question_id = str(request["question_id"])
        votes = answer_gold(rows[question_id], request, given.get(question_id, []), workload,
                            pool, base_dataset(release), release.fingerprint)
        given.setdefault(question_id, []).extend(_Judged(v) for v in votes)
        lines += [json.dumps(v, ensure_ascii=False, sort_keys=True) + "\n" for v in votes]
        gold_votes += len(votes)
    partial = target.with_name(f".{target.name}.partial")
    partial.write_text("".join(lines), encoding="utf-8")
    if target.exists():
        partial.unlink()
        raise FileExistsError(f"{out} appeared while simulating; not overwritten")
    os.replace(partial, target)
    return {"items": counts["items"] + len(rows), "votes": counts["votes"] + gold_votes,
            "gold": gold_votes}


class _Judged:
    """The fields of a vote record ``answer_gold`` reads of the judgments so far."""

    def __init__(self, record: Mapping[str, Any]):
        self.annotator_id = record["annotator_id"]
        self.stage = record["stage"]
        self.paragraph = record.get("paragraph")


def _gold_rows(release: ReleaseRef, questions: set[str]) -> Iterator[dict[str, Any]]:
    for split in release.splits:
        for row in read_examples(release, split):
            if str(row["id"]) in questions:
                yield row


def gold_lines(row: Mapping[str, Any], pool: WorkerPool, order: str,
               stages: tuple[str, ...] = ("good_question", "long_answer")) -> list[str]:
    """Gold file lines (``--gold``'s format) of one question from its simulated truth: the
    ``stages`` asked of every question (``good_question``, ``yes_no_question``) and of every
    candidate paragraph (``long_answer``)."""
    truth = jnq_truth_record(row, pool, order)
    question_id = truth["question_id"]
    records: list[dict[str, Any]] = []
    if "good_question" in stages:
        records.append({"question_id": question_id, "stage": "good_question",
                        "value": truth["good"]})
    if "yes_no_question" in stages:
        records.append({"question_id": question_id, "stage": "yes_no_question",
                        "value": truth["yes_no_question"]})
    if "long_answer" in stages:
        records += [{"question_id": question_id, "stage": "long_answer",
                     "paragraph": p["paragraph"], "value": p["label"] == "EXIST"}
                    for p in truth["paragraphs"]]
    return [json.dumps(r, sort_keys=True) + "\n" for r in records]
