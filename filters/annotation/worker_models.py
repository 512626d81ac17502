"""Worker-quality aggregation: how votes become categorical items for a worker model, and
how a model's posterior maps back to each paper's decisions. No Beam, no pandas.

``--aggregate``: ``paper`` (the papers' rules: JNQ §3.2-3.5 thresholds, NQ's annotations as
given), or a crowd-kit model fitted on every vote of the campaign: ``ds`` (Dawid and Skene
1979: a confusion matrix per worker), ``mace`` (Hovy et al. 2013: each worker is competent or
spams with some probability), ``glad`` (Whitehill et al. 2009: worker ability and item
difficulty).

Formulation (one model fit per decision kind, so a worker's confusion matrix is per kind):

* JNQ / JBoolQ: an item is ``(question, stage, paragraph)``; the kinds are ``good_question``
  (true/false), ``yes_no_question`` (true/false), ``long_answer`` per paragraph (true/false:
  "contains enough information") and ``yes_no_answer`` per paragraph (YES/NO/NONE). Spans
  have no categorical model: the paper's ``majority_span`` decides them under every aggregate.
* NQ: candidates differ per page, so there is no one label set per example. Three kinds:
  ``has_answer`` per example (true when the worker chose a long answer),
  ``candidate`` per (example, candidate) pair, for every candidate some worker chose: a
  worker who judged the example votes true for the candidate they chose and false for the
  others chosen by someone; and ``short_given`` per (example, candidate) pair, voted only by
  the workers who chose that candidate: true when they gave a short answer (a span or
  YES/NO) inside it. Which short answer, like which candidate, is a skill-weighted vote
  (``filters.annotation.nq_decisions``): its values differ per page too.

Posterior to decision (``binary_decision``, ``answer_decision``): the paper's thresholds as
fractions of the posterior. A paragraph is EXIST when P(contains) >= exist/workers (0.7),
AMBIGUOUS when >= ambiguous/workers (0.4), else NONE; a good question needs P(good) >= 0.6; a
yes/no question P(yes/no) >= 0.7 (>= 0.4 ambiguous); a yes/no answer is YES (NO) when its
posterior is >= 0.8, else NONE. With a sure model (posteriors near 0 or 1) this is the
majority label; the middle band keeps the paper's AMBIGUOUS for items the model is unsure of.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from filters.annotation.nq_short import nq_short
from filters.annotation.votes import JnqVote, NqVote

PAPER = "paper"
AGGREGATES = (PAPER, "ds", "mace", "glad")
MODEL_STAGES = ("good_question", "yes_no_question", "long_answer", "yes_no_answer")
NQ_DECISIONS = ("has_answer", "candidate", "short_given")
TRUE, FALSE = "true", "false"
SEPARATOR = "\x1f"

Triple = tuple[str, str, str]  # (item, worker, label)
Posterior = Mapping[str, float]  # label -> probability


def item_key(question_id: str, stage: str, paragraph: int | None = None) -> str:
    """The model's item id of a JNQ/JBoolQ judgment, or of an NQ decision
    (``item_key(example_id, "candidate", index)``)."""
    return SEPARATOR.join((question_id, stage, "" if paragraph is None else str(paragraph)))


def label_text(value: Any) -> str:
    """A vote value as the model's label: ``true``/``false`` or YES/NO/NONE."""
    if isinstance(value, bool):
        return TRUE if value else FALSE
    return str(value)


def jnq_items(votes: Iterable[JnqVote]) -> dict[str, list[Triple]]:
    """Per model stage, the ``(item, worker, label)`` triples of ``votes`` (spans left out),
    sorted (a fit does not depend on the order the votes arrived in)."""
    kinds: dict[str, list[Triple]] = defaultdict(list)
    for vote in votes:
        if vote.stage in MODEL_STAGES:
            kinds[vote.stage].append((item_key(vote.question_id, vote.stage, vote.paragraph),
                                      vote.annotator_id, label_text(vote.value)))
    return {stage: sorted(triples) for stage, triples in sorted(kinds.items())}


def nq_items(votes: Iterable[NqVote]) -> dict[str, list[Triple]]:
    """The ``has_answer``, ``candidate`` and ``short_given`` triples of NQ ``votes`` (module
    doc)."""
    by_example: dict[str, list[NqVote]] = defaultdict(list)
    for vote in votes:
        by_example[vote.example_id].append(vote)
    has_answer: list[Triple] = []
    candidate: list[Triple] = []
    short_given: list[Triple] = []
    for example_id, judged in sorted(by_example.items()):
        chosen = sorted({v.long_answer_candidate for v in judged if v.long_answer_candidate >= 0})
        for vote in judged:
            has_answer.append((item_key(example_id, "has_answer"), vote.annotator_id,
                               label_text(vote.long_answer_candidate >= 0)))
            for index in chosen:
                candidate.append((item_key(example_id, "candidate", index), vote.annotator_id,
                                  label_text(vote.long_answer_candidate == index)))
            if vote.long_answer_candidate >= 0:
                short = nq_short(vote.short_answers, vote.yes_no_answer)
                short_given.append((item_key(example_id, "short_given",
                                             vote.long_answer_candidate),
                                    vote.annotator_id, label_text(short is not None)))
    kinds = dict(zip(NQ_DECISIONS, (sorted(has_answer), sorted(candidate),
                                    sorted(short_given)), strict=True))
    return {kind: triples for kind, triples in kinds.items() if triples}


def binary_decision(posterior: Posterior, upper: float, lower: float | None = None) -> bool | str:
    """From P(true): ``True`` at or above ``upper``; with ``lower``, ``"ambiguous"`` at or
    above it; else ``False``."""
    p = posterior.get(TRUE, 0.0)
    if p >= upper:
        return True
    if lower is not None and p >= lower:
        return "ambiguous"
    return False


def answer_decision(posterior: Posterior, threshold: float) -> str:
    """YES or NO when its posterior reaches ``threshold`` (and the other's does not), else
    NONE (JNQ §3.4's "more than seven of ten", as a posterior)."""
    yes, no = posterior.get("YES", 0.0) >= threshold, posterior.get("NO", 0.0) >= threshold
    if yes != no:
        return "YES" if yes else "NO"
    return "NONE"


def posterior_confidence(posterior: Posterior, label: str) -> float:
    """The model's confidence in a decided binary or categorical ``label``: the posterior of
    that label; for a label the model does not output (AMBIGUOUS, or NONE decided because no
    answer reached its threshold), the largest posterior (how sure the model is of its
    most likely label)."""
    if label in posterior:
        return float(posterior[label])
    return float(max(posterior.values(), default=0.0))


def vote_share(values: Iterable[Any]) -> float | None:
    """``paper``'s confidence: the share of the judgments that gave the most common value
    (None without judgments). A 7-of-10 EXIST is 0.7; a 5-of-10 AMBIGUOUS 0.5."""
    counts: dict[str, int] = defaultdict(int)
    for value in values:
        counts[repr(value)] += 1
    total = sum(counts.values())
    return max(counts.values()) / total if total else None
