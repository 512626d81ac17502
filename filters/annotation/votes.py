"""The vote formats: one JSON object per worker judgment, from any tool or crowd platform.

NQ (one line per annotator per example, NQ's own annotation fields, NQ §3.2)::

    {"example_id": "-1234", "annotator_id": "w17", "question_good": true,
     "long_answer_candidate": 3, "short_answers": [{"start_token": 120, "end_token": 123}],
     "yes_no_answer": "NONE"}

JNQ / JBoolQ (one line per judgment, JNQ §3.2-3.5)::

    {"question_id": "...", "annotator_id": "w3", "stage": "good_question", "value": true}
    {"question_id": "...", "annotator_id": "w3", "stage": "long_answer", "paragraph": 5,
     "value": true}
    {"question_id": "...", "annotator_id": "w3", "stage": "span", "paragraph": 5,
     "value": {"start": 10, "end": 14}}

Every answer field is required (``question_good: false`` alone is a bad question), so a misspelt
column is refused rather than read as "no answer". Optional on both: ``release`` (the
fingerprint of the release the task was exported from; a vote naming another release is refused)
and ``submitted_at`` (when a worker judged the same thing twice, the latest counts, then the
later line of the later file). ``submitted_at`` is an instant, compared in UTC:

* an ISO 8601 string with a UTC offset or ``Z`` (``2025-01-02T03:04:05.123Z``,
  ``2025-01-02T12:04:05+09:00``), to the microsecond;
* a JSON number: seconds since 1970-01-01T00:00:00Z (epoch seconds), from 0 up to the end of
  year 9999 (so epoch *milliseconds* of any recent date are refused, not read as year 50000);
* ``null`` or absent: no time, older than any timed vote.

Anything else is refused with ``invalid_submitted_at``: a time without an offset (naive: it
could be any zone, so its order against other votes is unknown), a date alone, a string of
digits (seconds or milliseconds?), a boolean, NaN, junk. ``parse_*`` raise ``VoteError`` with a
named reason;
they check the vote's own shape only, the checks against the example (candidate in range, span
inside the paragraph) are the aggregators'.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

YES_NO = ("YES", "NO", "NONE")
JNQ_STAGES = ("good_question", "yes_no_question", "long_answer", "yes_no_answer", "span")
PARAGRAPH_STAGES = ("long_answer", "yes_no_answer", "span")
MAX_ID_CHARS = 200
NQ_ANSWER_FIELDS = ("long_answer_candidate", "short_answers", "yes_no_answer")
INVALID_SUBMITTED_AT = "invalid_submitted_at"
NO_TIME = -(1 << 63)  # the order of a vote without submitted_at: before any instant
MAX_EPOCH_SECONDS = 253_402_300_799  # 9999-12-31T23:59:59Z
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


class VoteError(ValueError):
    """A vote that cannot be used; ``reason`` names why (it is the dead-letter reason)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class NqVote:
    """One annotator's judgment of one NQ example (NQ §3.2)."""

    example_id: str
    annotator_id: str
    question_good: bool
    long_answer_candidate: int
    short_answers: tuple[tuple[int, int], ...]
    yes_no_answer: str
    release: str | None = None
    order: tuple[int, str, int] = field(default=(NO_TIME, "", 0), compare=False)
    task: str | None = field(default=None, compare=False)  # its Label Studio task's digest

    @property
    def key(self) -> tuple[str, str]:
        return (self.example_id, self.annotator_id)


@dataclass(frozen=True)
class JnqVote:
    """One worker's judgment at one stage of JNQ / JBoolQ annotation (JNQ §3.2-3.5).

    ``value`` is a bool (good_question, yes_no_question, long_answer), ``YES``/``NO``/``NONE``
    (yes_no_answer), or a ``(start, end)`` character span or ``None`` (span)."""

    question_id: str
    annotator_id: str
    stage: str
    value: Any
    paragraph: int | None = None
    release: str | None = None
    order: tuple[int, str, int] = field(default=(NO_TIME, "", 0), compare=False)
    task: str | None = field(default=None, compare=False)  # its Label Studio task's digest

    @property
    def key(self) -> tuple[str, str, str, int | None]:
        return (self.question_id, self.annotator_id, self.stage, self.paragraph)


def _identifier(record: dict[str, Any], name: str) -> str:
    value = record.get(name)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise VoteError("malformed_vote", f"{name} must be a string or an integer")
    text = str(value).strip()
    if not text or len(text) > MAX_ID_CHARS:
        raise VoteError("malformed_vote", f"{name} must be 1-{MAX_ID_CHARS} characters")
    _require_unicode(text, name)
    return text


def _require_unicode(text: str, name: str) -> None:
    """Refuse a lone surrogate (JSON's ``"\\ud800"``): not text, it cannot be hashed or
    written as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise VoteError("malformed_vote", f"{name} holds a lone surrogate (not text)") from None


def _integer(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise VoteError("malformed_vote", f"{name} must be an integer")
    return value


def _optional_text(record: dict[str, Any], name: str) -> str | None:
    value = record.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_ID_CHARS:
        raise VoteError("malformed_vote", f"{name} must be a string")
    _require_unicode(value, name)
    return value


def submitted_instant(value: Any) -> int:
    """``submitted_at`` as microseconds since the Unix epoch (UTC), ``NO_TIME`` for None;
    ``VoteError(invalid_submitted_at)`` for anything that is not an instant (module doc)."""
    if value is None:
        return NO_TIME
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not (math.isfinite(value) and 0 <= value <= MAX_EPOCH_SECONDS):
            raise VoteError(INVALID_SUBMITTED_AT, f"submitted_at {value!r} is not epoch "
                            f"seconds between 0 and {MAX_EPOCH_SECONDS}")
        return round(value * 1_000_000) if isinstance(value, float) else value * 1_000_000
    if not isinstance(value, str) or not value.isascii() or len(value) > 64:
        raise VoteError(INVALID_SUBMITTED_AT, "submitted_at must be an ISO 8601 time with a "
                        "UTC offset, epoch seconds or null")
    try:
        instant = datetime.fromisoformat(value.strip())
    except ValueError:
        raise VoteError(INVALID_SUBMITTED_AT,
                        f"submitted_at {value!r} is not an ISO 8601 time") from None
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise VoteError(INVALID_SUBMITTED_AT, f"submitted_at {value!r} has no UTC offset (add "
                        "Z or +hh:mm): its order against other votes is unknown")
    return (instant - _EPOCH) // _MICROSECOND


def _order(record: dict[str, Any], source: str, line: int) -> tuple[int, str, int]:
    return (submitted_instant(record.get("submitted_at")), source, line)


def parse_nq_vote(record: Any, source: str = "", line: int = 0) -> NqVote:
    """An NQ vote from its JSON object; ``VoteError`` when it is malformed."""
    if not isinstance(record, dict):
        raise VoteError("malformed_vote", "a vote must be a JSON object")
    good = record.get("question_good", True)
    if not isinstance(good, bool):
        raise VoteError("malformed_vote", "question_good must be true or false")
    missing = [k for k in NQ_ANSWER_FIELDS if k not in record]
    if good and missing:
        raise VoteError("malformed_vote", f"a vote for a good question needs {', '.join(missing)}"
                        " (misspelt or renamed columns would otherwise read as no answer)")
    candidate = _integer(record.get("long_answer_candidate", -1), "long_answer_candidate")
    if candidate < -1:
        raise VoteError("malformed_vote", "long_answer_candidate must be -1 or an index")
    yes_no = record.get("yes_no_answer", "NONE")
    if yes_no not in YES_NO:
        raise VoteError("malformed_vote", f"yes_no_answer must be one of {', '.join(YES_NO)}")
    raw_spans = record.get("short_answers", [])
    if not isinstance(raw_spans, list):
        raise VoteError("malformed_vote", "short_answers must be a list")
    spans = []
    for span in raw_spans:
        if not isinstance(span, dict):
            raise VoteError("malformed_vote", "a short answer must be an object")
        start = _integer(span.get("start_token"), "start_token")
        end = _integer(span.get("end_token"), "end_token")
        if not 0 <= start < end:
            raise VoteError("malformed_vote", "a short answer needs 0 <= start_token < end_token")
        spans.append((start, end))
    if not good and (candidate != -1 or spans or yes_no != "NONE"):
        raise VoteError("inconsistent_vote", "a bad question has no answer")
    if candidate == -1 and (spans or yes_no != "NONE"):
        raise VoteError("inconsistent_vote", "a short or yes/no answer needs a long answer")
    if spans and yes_no != "NONE":
        raise VoteError("inconsistent_vote", "a vote has short answers or YES/NO, not both")
    return NqVote(example_id=_identifier(record, "example_id"),
                  annotator_id=_identifier(record, "annotator_id"), question_good=good,
                  long_answer_candidate=candidate, short_answers=tuple(sorted(spans)),
                  yes_no_answer=yes_no, release=_optional_text(record, "release"),
                  order=_order(record, source, line))


def _jnq_value(stage: str, value: Any) -> Any:
    if stage in ("good_question", "yes_no_question", "long_answer"):
        if not isinstance(value, bool):
            raise VoteError("malformed_vote", f"{stage} takes true or false")
        return value
    if stage == "yes_no_answer":
        if value not in YES_NO:
            raise VoteError("malformed_vote", f"yes_no_answer takes {', '.join(YES_NO)}")
        return value
    if value is None:
        return None
    if not isinstance(value, dict):
        raise VoteError("malformed_vote", "a span is {\"start\": c, \"end\": c} or null")
    start, end = _integer(value.get("start"), "start"), _integer(value.get("end"), "end")
    if not 0 <= start < end:
        raise VoteError("malformed_vote", "a span needs 0 <= start < end")
    return (start, end)


def parse_jnq_vote(record: Any, source: str = "", line: int = 0) -> JnqVote:
    """A JNQ/JBoolQ vote from its JSON object; ``VoteError`` when it is malformed."""
    if not isinstance(record, dict):
        raise VoteError("malformed_vote", "a vote must be a JSON object")
    stage = record.get("stage")
    if stage not in JNQ_STAGES:
        raise VoteError("unknown_stage", f"stage must be one of {', '.join(JNQ_STAGES)}")
    paragraph = record.get("paragraph")
    if stage in PARAGRAPH_STAGES:
        paragraph = _integer(paragraph, "paragraph")
    elif paragraph is not None:
        raise VoteError("malformed_vote", f"{stage} is judged per question, not per paragraph")
    if "value" not in record:
        raise VoteError("malformed_vote", "a JNQ vote needs a value (null only for no span)")
    return JnqVote(question_id=_identifier(record, "question_id"),
                   annotator_id=_identifier(record, "annotator_id"), stage=stage,
                   value=_jnq_value(stage, record.get("value")), paragraph=paragraph,
                   release=_optional_text(record, "release"),
                   order=_order(record, source, line))


V = TypeVar("V", NqVote, JnqVote)


def latest_votes(votes: Iterable[V]) -> list[V]:
    """One vote per worker and judgment: the latest (``submitted_at``, then file and line).

    Re-reading the same export gives the same votes, so importing it twice changes nothing."""
    latest: dict[Any, V] = {}
    for vote in votes:
        kept = latest.get(vote.key)
        if kept is None or (vote.order, _canonical(vote)) > (kept.order, _canonical(kept)):
            latest[vote.key] = vote
    return sorted(latest.values(), key=lambda v: (str(v.key), v.order))


def _canonical(vote: NqVote | JnqVote) -> str:
    return repr(vote)
