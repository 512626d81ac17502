"""NQ votes into NQ annotations (Kwiatkowski et al. 2019, §3.2 and §5).

NQ does not vote: every annotator's judgment is one entry of the example's ``annotations``
list, and the evaluation (§5.1) decides from all of them. Train is normally 1-way and dev/test
5-way (§5); 25-way studies (§4.4) are the same with more entries. So aggregation here is
conversion and checking: a vote names a long-answer candidate by index (§3.2: "the earliest
bounding box"), its short answers are token spans inside that long answer, and the byte and
token offsets come from the example itself, so the result is exactly NQ's original format.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from filters.annotation.votes import NqVote

NULL_SPAN = {"start_token": -1, "end_token": -1, "start_byte": -1, "end_byte": -1}
LONG_ANSWER_TYPES = {"<P>": "paragraph", "<Table>": "table", "<Tr>": "table_row",
                     "<Ul>": "list", "<Ol>": "list", "<Dl>": "list",
                     "<Li>": "list_item", "<Dd>": "list_item", "<Dt>": "list_item"}


class NqVoteError(ValueError):
    """A vote that does not fit its example; ``reason`` is the dead-letter reason."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def annotation_id(example_id: str, annotator_id: str) -> int:
    """A stable unsigned 64-bit id of (example, annotator), like NQ's ``annotation_id``."""
    digest = hashlib.sha256(f"{example_id}\x1f{annotator_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def check_nq_vote(vote: NqVote, example: Mapping[str, Any]) -> None:
    """Raise ``NqVoteError`` when the vote does not fit the example (NQ §3.2).

    The long answer is one of the example's candidates; each short answer lies inside it
    (§3.2: "short answers ... within the long answer") and inside the document."""
    candidates = example["long_answer_candidates"]
    if vote.long_answer_candidate >= len(candidates):
        raise NqVoteError("candidate_out_of_range",
                          f"long_answer_candidate {vote.long_answer_candidate} but the example "
                          f"has {len(candidates)} candidates")
    if vote.long_answer_candidate < 0:
        return
    candidate = candidates[vote.long_answer_candidate]
    for start, end in vote.short_answers:
        if start < candidate["start_token"] or end > candidate["end_token"]:
            raise NqVoteError("short_answer_outside_long_answer",
                              f"short answer [{start}, {end}) is not inside the long answer "
                              f"[{candidate['start_token']}, {candidate['end_token']})")


def _token_span(start: int, end: int, tokens: Any) -> dict[str, int]:
    if tokens is None:  # a document-less view: the bytes are filled in with the document
        return {"start_token": start, "end_token": end, "start_byte": -1, "end_byte": -1}
    return {"start_token": start, "end_token": end,
            "start_byte": tokens[start]["start_byte"], "end_byte": tokens[end - 1]["end_byte"]}


def with_short_answer_bytes(annotation: dict[str, Any],
                            tokens: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The annotation with its short answers' byte offsets read from the document's tokens
    (for annotations built from a view without the document)."""
    shorts = [dict(sorted(_token_span(s["start_token"], s["end_token"], tokens).items()))
              for s in annotation["short_answers"]]
    return {**annotation, "short_answers": shorts}


def nq_annotation(vote: NqVote, example: Mapping[str, Any]) -> dict[str, Any]:
    """The NQ ``annotations`` entry of one checked vote (§3.2; -1 everywhere for no answer).

    ``example`` may be a view without ``document_tokens``: the short answers' byte offsets
    are then -1 until ``with_short_answer_bytes`` reads them from the document."""
    long_answer = {**NULL_SPAN, "candidate_index": -1}
    if vote.long_answer_candidate >= 0:
        candidate = example["long_answer_candidates"][vote.long_answer_candidate]
        long_answer = {key: candidate[key] for key in NULL_SPAN}
        long_answer["candidate_index"] = vote.long_answer_candidate
    tokens = example.get("document_tokens")
    return {"annotation_id": annotation_id(vote.example_id, vote.annotator_id),
            "long_answer": dict(sorted(long_answer.items())),
            "short_answers": [dict(sorted(_token_span(s, e, tokens).items()))
                              for s, e in vote.short_answers],
            "yes_no_answer": vote.yes_no_answer}


def long_answer_type(example: Mapping[str, Any], candidate_index: int) -> str:
    """paragraph, table, table_row, list, list_item or other, from the candidate's first
    token (``candidate_heads`` of a view, or the document's tokens); ``none`` for no long
    answer (NQ §3.3's long-answer types)."""
    if candidate_index < 0:
        return "none"
    start = example["long_answer_candidates"][candidate_index]["start_token"]
    heads = example.get("candidate_heads")
    token = heads.get(start, "") if heads is not None else example["document_tokens"][start][
        "token"]
    return LONG_ANSWER_TYPES.get(token, "other")


def votes_from_annotations(example: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The NQ votes that give back an annotated example's annotations (the inverse of
    ``nq_annotation``): how an existing NQ file becomes votes, e.g. to re-aggregate it."""
    votes = []
    for annotation in example["annotations"]:
        long_answer = annotation["long_answer"]
        index = long_answer["candidate_index"]
        if index < 0 and long_answer["start_token"] >= 0:
            index = _candidate_at(example, long_answer)
        votes.append({
            "example_id": str(example["example_id"]),
            "annotator_id": str(annotation["annotation_id"]),
            "question_good": True,
            "long_answer_candidate": index,
            "short_answers": [{"start_token": s["start_token"], "end_token": s["end_token"]}
                              for s in annotation["short_answers"]],
            "yes_no_answer": annotation["yes_no_answer"],
        })
    return votes


def _candidate_at(example: Mapping[str, Any], span: Mapping[str, int]) -> int:
    for index, candidate in enumerate(example["long_answer_candidates"]):
        if (candidate["start_token"], candidate["end_token"]) == (span["start_token"],
                                                                  span["end_token"]):
            return index
    return -1
