"""Gold questions: items whose answer is known, mixed into a campaign to measure workers.

``--gold FILE`` is JSON lines, one known answer a line, in the vote format of
``filters.annotation.votes`` without ``annotator_id`` (JNQ / JBoolQ)::

    {"question_id": "q17", "stage": "good_question", "value": true}
    {"question_id": "q17", "stage": "long_answer", "paragraph": 2, "value": false}
    {"question_id": "q17", "stage": "yes_no_answer", "paragraph": 2, "value": "YES"}

Stages: ``good_question``, ``yes_no_question``, ``long_answer``, ``yes_no_answer`` and ``span``
(``{"start": c, "end": c}`` or null). Blank lines are skipped. ``read_gold`` refuses (``GoldError``,
naming the line) a line that is not such an object, and the same item given two answers.
A worker's gold accuracy is the share of their judgments of gold items that equal the answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from filters.annotation.votes import VoteError, parse_jnq_vote
from filters.annotation.worker_models import SEPARATOR, item_key, label_text

GOLD_WORKER = "gold"


class GoldError(ValueError):
    """A gold file that cannot be used (the message names the line)."""


def answer_text(value: object) -> str:
    """A vote or gold value as the votes table's ``value`` text."""
    if isinstance(value, tuple):
        return f"[{value[0]}, {value[1]}]"
    return "null" if value is None else label_text(value)


def parse_gold(lines: Iterable[str], source: str = "gold") -> dict[str, str]:
    """``item_key -> answer text`` (the votes table's ``value`` text) of a gold file's lines."""
    gold: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if isinstance(record, dict) and "annotator_id" not in record:
                record = {**record, "annotator_id": GOLD_WORKER}
            vote = parse_jnq_vote(record, source, number)
        except (ValueError, VoteError) as error:
            raise GoldError(f"{source} line {number}: {error}") from None
        key = item_key(vote.question_id, vote.stage, vote.paragraph)
        answer = answer_text(vote.value)
        if gold.setdefault(key, answer) != answer:
            raise GoldError(f"{source} line {number}: {vote.question_id} {vote.stage} has two "
                            "gold answers")
    return gold


def gold_questions(gold: dict[str, str]) -> frozenset[str]:
    """The question ids with a gold answer (control items, not published)."""
    return frozenset(key.split(SEPARATOR, 1)[0] for key in gold)
