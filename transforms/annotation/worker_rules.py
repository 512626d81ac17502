"""Stage decisions and their confidences under ``--aggregate`` (JNQ / JBoolQ).

``ModelRules`` decides the stages of ``filters.annotation.jnq.aggregate_question`` from a
fitted worker model's posteriors, mapped to the paper's labels as
``filters.annotation.worker_models`` documents; an item the model did not see (none should
be) falls back to the paper's rule. ``decisions`` lists every decision a result made, with its
confidence: under ``paper`` the vote share of the most common value, under a model the
posterior of the decided label (``posterior_confidence``); a span is always the paper's
majority span, its confidence the share of the judgments that gave exactly that span.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from filters.annotation.jnq import (
    AMBIGUOUS,
    AMBIGUOUS_YES_NO,
    EXIST,
    NONE,
    NOT_YES_NO,
    YES_NO,
    JnqResult,
    JnqThresholds,
    PaperRules,
)
from filters.annotation.votes import JnqVote, latest_votes
from filters.annotation.worker_models import (
    PAPER,
    answer_decision,
    binary_decision,
    item_key,
    label_text,
    posterior_confidence,
    vote_share,
)
from transforms.annotation.worker_fit import WorkerModel


@dataclass(frozen=True)
class ModelRules(PaperRules):
    """The paper's stage order, each stage decided from the model's posterior."""

    model: WorkerModel = WorkerModel(PAPER)

    def _posterior(self, question_id: str, stage: str, paragraph: int | None = None):
        return self.model.posteriors.get(item_key(question_id, stage, paragraph))

    def good_question(self, question_id: str, values: Sequence[Any]) -> bool:
        posterior = self._posterior(question_id, "good_question")
        if posterior is None:
            return super().good_question(question_id, values)
        return binary_decision(posterior, self.t.good_question / self.t.workers) is True

    def yes_no_question(self, question_id: str, values: Sequence[Any]) -> str:
        posterior = self._posterior(question_id, "yes_no_question")
        if posterior is None:
            return super().yes_no_question(question_id, values)
        decided = binary_decision(posterior, self.t.yes_no_question / self.t.workers,
                                  self.t.yes_no_ambiguous / self.t.workers)
        return {True: YES_NO, False: NOT_YES_NO}.get(decided, AMBIGUOUS_YES_NO)

    def paragraph_label(self, question_id: str, paragraph: int, values: Sequence[Any]) -> str:
        posterior = self._posterior(question_id, "long_answer", paragraph)
        if posterior is None:
            return super().paragraph_label(question_id, paragraph, values)
        decided = binary_decision(posterior, self.t.exist / self.t.workers,
                                  self.t.ambiguous / self.t.workers)
        return {True: EXIST, False: NONE}.get(decided, AMBIGUOUS)

    def yes_no_answer(self, question_id: str, paragraph: int, values: Sequence[Any]) -> str:
        posterior = self._posterior(question_id, "yes_no_answer", paragraph)
        if posterior is None:
            return super().yes_no_answer(question_id, paragraph, values)
        return answer_decision(posterior, self.t.yes_no_answer / self.t.workers)


def rules_for(model: WorkerModel | None, t: JnqThresholds) -> PaperRules:
    """``PaperRules`` for ``paper`` (or no model), else ``ModelRules`` of the fit."""
    if model is None or model.aggregate == PAPER:
        return PaperRules(t)
    return ModelRules(t, model)


def _binary(label: str) -> str:
    return {EXIST: "true", NONE: "false", YES_NO: "true", NOT_YES_NO: "false"}.get(label, label)


def decisions(result: JnqResult, votes: Iterable[JnqVote], model: WorkerModel | None
              ) -> list[dict[str, Any]]:
    """One row per decision of ``result``: ``stage``, ``paragraph``, ``label`` (true/false,
    EXIST/AMBIGUOUS/NONE, YES/NO/NONE, ``[start, end]`` or null) and ``confidence``."""
    by_item: dict[tuple[str, int | None], list[Any]] = {}
    for vote in latest_votes(votes):
        by_item.setdefault((vote.stage, vote.paragraph), []).append(vote.value)
    use_model = model is not None and model.aggregate != PAPER

    def row(stage: str, paragraph: int | None, label: str) -> dict[str, Any]:
        values = by_item.get((stage, paragraph), [])
        posterior = (model.posteriors.get(item_key(result.question_id, stage, paragraph))
                     if use_model and stage != "span" else None)
        if stage == "span":
            confidence = (sum(1 for v in values if label_text_span(v) == label) / len(values)
                          if values else None)
        elif posterior is not None:
            confidence = posterior_confidence(posterior, _binary(label))
        else:
            confidence = vote_share(values)
        return {"stage": stage, "paragraph": paragraph, "label": label,
                "confidence": None if confidence is None else round(confidence, 6)}

    rows = []
    if result.outcome == "pending" or "good_question" not in result.stage_votes:
        return rows
    good = result.outcome != "bad_question"
    rows.append(row("good_question", None, label_text(good)))
    if "yes_no_question" in result.stage_votes:
        kind = ("ambiguous" if result.outcome == "ambiguous_yes_no"
                else label_text(bool(result.is_yes_no_question)))
        rows.append(row("yes_no_question", None, kind))
    for paragraph in result.paragraphs:
        rows.append(row("long_answer", paragraph.paragraph_id, paragraph.label))
        if paragraph.label != EXIST or result.outcome != "kept":
            continue
        if result.is_yes_no_question:
            rows.append(row("yes_no_answer", paragraph.paragraph_id, paragraph.yes_no_answer))
        else:
            rows.append(row("span", paragraph.paragraph_id,
                            label_text_span(paragraph.span)))
    return rows


def label_text_span(span: Any) -> str:
    """A span value as decision text: ``[start, end]`` or ``null``."""
    return "null" if span is None else f"[{span[0]}, {span[1]}]"
