"""Decisions of the rounds benchmark scored against the simulated campaign's hidden truth."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from filters.annotation.jnq import EXIST, JnqResult
from filters.annotation.nq_short import short_label


def jnq_decisions(result: JnqResult) -> tuple[Any, ...]:
    """What a question's aggregation decided (not how many votes it took)."""
    return (result.outcome, result.is_yes_no_question,
            tuple((p.paragraph_id, p.label, p.span, p.yes_no_answer)
                  for p in result.paragraphs))


def truth_span(span: dict[str, int] | None) -> tuple[int, int] | None:
    """A truth record's span as ``(start, end)`` (None for no span)."""
    return None if span is None else (span["start"], span["end"])


def jnq_truth_checks(result: JnqResult, truth: dict[str, Any], order: str) -> list[bool]:
    """One bool per decision the truth has (good; question kind; per candidate EXIST or not,
    when the truth reaches it; per true EXIST paragraph its span or YES/NO): right or not.
    A decision the aggregation never reached (an earlier one went another way) is wrong."""
    checks = [(result.outcome != "bad_question") == truth["good"]]
    if not truth["good"]:
        return checks
    checks.append(result.is_yes_no_question == truth["yes_no_question"])
    if order == "jboolq" and not truth["yes_no_question"]:
        return checks
    judged = {p.paragraph_id: p for p in result.paragraphs}
    for paragraph in truth["paragraphs"]:
        found = judged.get(paragraph["paragraph"])
        checks.append(found is not None and found.label == paragraph["label"])
        if paragraph["label"] == EXIST:
            checks.append(found is not None and found.label == EXIST
                          and found.span == truth_span(paragraph["span"])
                          and found.yes_no_answer == paragraph["yes_no_answer"])
    return checks


def jnq_confidences(rows: list[dict[str, Any]], truth: dict[str, Any]
                    ) -> list[tuple[float, bool]]:
    """(confidence, right) of each decision row (``worker_rules.decisions``) the truth has."""
    paragraphs = {p["paragraph"]: p for p in truth["paragraphs"]}
    pairs = []
    for row in rows:
        stage, paragraph, label = row["stage"], row["paragraph"], row["label"]
        if row["confidence"] is None:
            continue
        true = paragraphs.get(paragraph, {})
        if stage == "good_question":
            right = label == ("true" if truth["good"] else "false")
        elif stage == "yes_no_question":
            right = label == ("true" if truth["yes_no_question"] else "false")
        elif stage == "long_answer":
            right = label == true.get("label")
        elif stage == "yes_no_answer":
            right = label == true.get("yes_no_answer")
        else:
            span = truth_span(true.get("span"))
            right = label == ("null" if span is None else f"[{span[0]}, {span[1]}]")
        pairs.append((row["confidence"], right))
    return pairs


def nq_short(vote: dict[str, Any]) -> tuple[Any, ...] | None:
    spans = tuple(sorted((s["start_token"], s["end_token"]) for s in vote["short_answers"]))
    return (spans, vote["yes_no_answer"]) if spans or vote["yes_no_answer"] != "NONE" else None


def nq_decide(answers: list[Any]) -> Any:
    """NQ §5.1: an answer when at least 2 of the 5 give one; the one most gave (ties: the
    first in sorted order, the lowest candidate index)."""
    given = [a for a in answers if a is not None]
    if len(given) < 2:
        return None
    return min(sorted(set(given)), key=lambda a: -given.count(a))


def nq_reading(votes: list[dict[str, Any]], decide: Callable[..., Any] | None,
               aggregate: str = "paper", posteriors: Any = None,
               skills: Any = None) -> dict[str, Any]:
    """The long and short answer an aggregate reads from an example's votes, with the
    decision rows (``decision``, ``candidate``, ``label``, ``confidence``) of ``nq_decisions``
    given the votes' short answers and (``skills`` by worker) skills: NQ §5.1 for ``paper``;
    for a model P(has answer) >= 0.5, then the skill-weighted chosen candidate and short
    answer. Without ``nq_decisions``, ``paper`` reads NQ §5.1 itself (no rows)."""
    longs = [v["long_answer_candidate"] for v in votes]
    shorts = [nq_short(v) for v in votes]
    if decide is None:
        return {"long": nq_decide([c if c >= 0 else None for c in longs]),
                "short": nq_decide(shorts), "rows": []}
    rows = decide(str(votes[0]["example_id"]), longs, aggregate, posteriors, shorts,
                  None if skills is None else [skills.get(v["annotator_id"]) for v in votes])
    by_kind = {r["decision"]: r for r in rows}
    long, short = by_kind.get("long_answer"), by_kind.get("short_answer")
    labelled = {short_label(s): s for s in shorts if s is not None}
    return {"long": long["candidate"] if long else None,
            "short": labelled.get(short["label"]) if short else None, "rows": rows}


def nq_confidences(reading: dict[str, Any], truth: dict[str, Any]) -> list[tuple[float, bool]]:
    """(confidence, right) of each NQ decision row against the truth."""
    long = truth["long_answer_candidate"]
    pairs = []
    for row in reading["rows"]:
        if row["decision"] == "has_answer":
            pairs.append((row["confidence"], (row["label"] == "true") == (long >= 0)))
        elif row["decision"] == "short_answer":
            pairs.append((row["confidence"], row["label"] == short_label(nq_short(truth))))
        else:
            pairs.append((row["confidence"], row["candidate"] == long))
    return pairs


def nq_truth_checks(decision: dict[str, Any], truth: dict[str, Any]) -> list[bool]:
    long = truth["long_answer_candidate"] if truth["long_answer_candidate"] >= 0 else None
    return [decision["long"] == long, decision["short"] == nq_short(truth)]


def right_share(checks: list[bool]) -> float:
    return sum(checks) / len(checks)
