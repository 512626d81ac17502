"""Simulated workers answering ``annotate next``'s requests (for demos, tests, benchmarks).

Each request (``question_id``/``example_id``, ``stage``, ``paragraph``, ``more``) is answered
by the next ``more`` workers, in id order, of the ``ways`` workers ``pick_workers`` gives the
item, who have not judged that slot yet; each value is drawn exactly as ``annotate simulate``
draws it (same seed, item, stage, paragraph and worker). So a curtailed campaign's votes are a
subset of the full overlap's simulated votes, vote for vote, and the two can be compared item
for item.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from filters.annotation.curtail import PAPER, aggregate_curtailed, curtail
from filters.annotation.jnq import JnqResult, JnqThresholds, aggregate_question
from filters.annotation.votes import JnqVote, NqVote, parse_jnq_vote
from transforms.annotation.export import read_examples
from transforms.annotation.manifest import ReleaseRef, base_dataset
from transforms.annotation.simulate import (
    WorkerPool,
    _jnq_value,
    _rng,
    _texts,
    _with_release,
    jnq_truth,
    pick_workers,
    simulate_jnq_votes,
    simulate_nq_votes,
)
from transforms.core.interrupt import point_of_no_return


def _truth_value(truth: Any, stage: str, paragraph: int | None) -> Any:
    if stage == "good_question":
        return truth.good
    if stage == "yes_no_question":
        return truth.yes_no_question
    if stage == "long_answer":
        return paragraph in truth.exist
    if stage == "yes_no_answer":
        return truth.yes_no_answers.get(paragraph, "NONE")
    return truth.spans.get(paragraph)


def jnq_vote_record(question_id: str, worker_id: str, stage: str, paragraph: int | None,
                    value: Any, release: str | None) -> dict[str, Any]:
    """A simulated JNQ vote's JSON record (a span as ``{"start", "end"}``), stamped with
    ``release``."""
    vote: dict[str, Any] = {"question_id": question_id, "annotator_id": worker_id,
                            "stage": stage, "simulated": True}
    if paragraph is not None:
        vote["paragraph"] = paragraph
    vote["value"] = ({"start": value[0], "end": value[1]}
                     if stage == "span" and value is not None else value)
    return _with_release(vote, release)


def answer_jnq_requests(row: Mapping[str, Any], requests: Iterable[Mapping[str, Any]],
                        judged: Iterable[JnqVote], ways: int, pool: WorkerPool, order: str,
                        release: str | None = None) -> list[dict[str, Any]]:
    """Votes JSON records answering one question's ``requests`` (``judged``: its votes so
    far, whose workers are not asked the same slot again)."""
    question_id = str(row["id"])
    workers = pick_workers(pool, question_id, ways)
    truth = jnq_truth(row, pool, order)
    texts = _texts(row)
    done = {(v.stage, v.paragraph, v.annotator_id) for v in judged}
    votes = []
    for request in requests:
        stage, paragraph = request["stage"], request.get("paragraph")
        free = [w for w in workers if (stage, paragraph, w.id) not in done]
        for worker in free[:request["more"]]:
            rng = _rng(pool.seed, question_id, f"{stage}:{paragraph}:{worker.id}")
            value = _jnq_value(stage, _truth_value(truth, stage, paragraph),
                               texts.get(paragraph, ""), worker, rng)
            votes.append(jnq_vote_record(question_id, worker.id, stage, paragraph, value,
                                         release))
    return votes


def answer_nq_request(example: Mapping[str, Any], request: Mapping[str, Any],
                      judged: Iterable[NqVote], ways: int, pool: WorkerPool,
                      release: str | None = None) -> list[dict[str, Any]]:
    """The next ``more`` of the example's ``ways`` simulated NQ annotations."""
    done = {vote.annotator_id for vote in judged}
    fresh = [v for v in simulate_nq_votes(example, ways, pool, release)
             if v["annotator_id"] not in done]
    return [{**vote, "simulated": True} for vote in fresh[:request["more"]]]


def jnq_campaign(rows: Iterable[Mapping[str, Any]], pool: WorkerPool, order: str,
                 ways: int = 10, t: JnqThresholds = PAPER) -> dict[str, Any]:
    """A simulated campaign, full overlap against exact curtailment, without Beam: each
    question is answered round by round as ``curtail`` asks (``answer_jnq_requests``) and
    by ``simulate_jnq_votes`` at the full overlap. Returns the judgments each used, the
    rounds, and how many questions' decisions (outcome, yes/no question, every paragraph's
    label, span and yes/no answer) are identical."""
    used = full = identical = questions = most_rounds = 0
    for row in rows:
        question_id = str(row["id"])
        candidates = [int(p) for p in row["candidate_paragraph_ids"]]
        everything = [parse_jnq_vote(v) for v in simulate_jnq_votes(row, ways, pool, order)]
        expected = aggregate_question(question_id, everything, candidates, order, ways, t)
        given: list[JnqVote] = []
        rounds = 0
        while (state := curtail(question_id, given, candidates, order, ways, t)).open:
            asked = [{"stage": s.stage, "paragraph": s.paragraph, "more": s.more}
                     for s in state.open]
            given += [parse_jnq_vote(v) for v in
                      answer_jnq_requests(row, asked, given, ways, pool, order)]
            rounds += 1
        result = aggregate_curtailed(question_id, given, candidates, order, ways, t)
        questions += 1
        identical += decisions(result) == decisions(expected)
        used += len(given)
        full += len(everything)
        most_rounds = max(most_rounds, rounds)
    return {"questions": questions, "judgments": used, "full_overlap": full,
            "share": used / full if full else 0.0, "identical": identical,
            "most_rounds": most_rounds}


def decisions(result: JnqResult) -> tuple:
    """What a question's aggregate decides (outcome, yes/no question, per paragraph: label,
    short answer type, span, yes/no answer): what curtailment must leave unchanged."""
    return (result.outcome, result.is_yes_no_question,
            tuple((p.paragraph_id, p.label, p.short_answer_type, p.span, p.yes_no_answer)
                  for p in result.paragraphs))


def write_request_answers(release: ReleaseRef, requests_path: str, judged: Mapping[str, list],
                          ways: Mapping[str, int], pool: WorkerPool, out: str
                          ) -> dict[str, int]:
    """Answer every request of ``requests_path`` (``annotate next``'s ``requests.jsonl``)
    with simulated workers; ``judged``: the votes so far by item id. Writes votes JSON lines
    to ``out`` atomically (never overwriting); returns ``{"items", "votes"}``."""
    base = base_dataset(release)
    key = "example_id" if base == "nq" else "question_id"
    asked: dict[str, list[dict[str, Any]]] = {}
    with open(requests_path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                request = json.loads(line)
                asked.setdefault(str(request[key]), []).append(request)
    target = Path(out)
    partial = target.with_name(f".{target.name}.partial")
    items = votes = 0
    with open(partial, "w", encoding="utf-8") as handle:
        for split in release.splits:
            for example in read_examples(release, split):
                item = str(example["example_id" if base == "nq" else "id"])
                if item not in asked:
                    continue
                items += 1
                if base == "nq":
                    answers = [v for request in asked[item] for v in answer_nq_request(
                        example, request, judged.get(item, []), ways[split], pool,
                        release.fingerprint)]
                else:
                    answers = answer_jnq_requests(example, asked[item], judged.get(item, []),
                                                  ways[split], pool, base, release.fingerprint)
                for vote in answers:
                    handle.write(json.dumps(vote, ensure_ascii=False, sort_keys=True) + "\n")
                    votes += 1
    if target.exists():
        partial.unlink()
        raise FileExistsError(f"{out} appeared while simulating; not overwritten")
    with point_of_no_return(str(target)):
        os.replace(partial, target)
    return {"items": items, "votes": votes}
