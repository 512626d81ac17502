"""The sequential stop rule beyond exact curtailment (``annotate next --stop confident``).

Exact curtailment (``filters.annotation.curtail``) stops asking about a stage once no vote the
overlap still allows can change the paper's label. The confident rule also stops once the
campaign's worker model (Dawid-Skene, ``--aggregate ds``, fitted on every vote so far) is sure
enough of the stage's label. Per stage of one question (per paragraph where the stage is per
paragraph), in the paper's stage order (``curtail`` walks the same order):

* closed when it holds ``ways`` judgments (never more than the paper's overlap);
* closed when it holds at least ``min_votes`` judgments and the posterior of the label the
  model decides (``posterior_confidence`` of ``rules``' label, the confidence ``decisions/``
  records) is at least ``confidence``;
* else open: ``more`` is what the cold start still needs (``min_votes`` minus the judgments
  held), else ``step`` (1: one judgment a round, the fewest judgments for the most rounds),
  never more than the overlap left.

Exact curtailment does not close a model stage on its own: it proves that no further vote
changes the *paper's* label, but the import decides these stages with the model, whose label
further votes can still change. Closing them anyway saved 1% of the judgments and lost 0.4 to
0.8 points of accuracy against the truth (JNQ, 400 and 2,000 simulated questions, seed 1:
``benchmarks/bench_annotation_rounds.py``); a stage asked to ``ways`` is closed either way, so
the rule never asks more than the overlap.

A closed stage's label is ``rules``' decision on the judgments held (the model's posterior
mapped to the paper's labels, ``transforms.annotation.worker_rules.ModelRules``), so the
next stages follow the labels the import will publish. Spans (JNQ §3.5 short answers) have no
Dawid-Skene model (no two paragraphs share a label set): a span stage is closed when exact
curtailment closes it (no span voted and too few judgments left to adopt one), or at
``min_votes`` judgments when the skill-weighted posterior (``span_model.span_posterior``, the
workers' skills from the model's other stages) of the span the paper's rule adopts on the
judgments held (``spans.majority_span``, subsumption included, the label the import
publishes) is at least ``confidence``. Subsumption does not raise that posterior, so a span
adopted only through it keeps being asked. The cold start: with no model yet (the first
round) or a stage below ``min_votes``, nothing is closed by the model. One judgment never
reaches 0.99 (a 0.9-accurate worker's vote is odds of 9 to 1); two agreeing good workers can,
so ``min_votes`` defaults to 2 (1 used as many judgments on 500 simulated questions of seed
1, ``benchmarks/bench_annotation_rounds.py``). ``confidence`` defaults to 0.99, chosen on
2,000 simulated items per dataset of that benchmark's seeds 1 and 2.

The rule suits a worker model fitted on the campaign so far: ``annotate next`` refits it every
round (``transforms.annotation.confident``), with smoothed confusion matrices
(``smoothed_ds``), since maximum-likelihood ones are overconfident on few votes.

NQ (``nq_confident``): an example is closed at ``ways`` annotations, or at ``min_votes`` when
every decision ``nq_decisions`` makes from the model (has-answer and, with an answer, the long
answer) has a confidence of at least ``confidence``. The short answer is not part of the
stop: it is decided (``nq_decisions``) from the annotations collected.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from filters.annotation.curtail import (
    UNDECIDED,
    Curtailment,
    StageState,
    stage_state,
    walk_stages,
)
from filters.annotation.jnq import (
    EXIST,
    NONE,
    NOT_YES_NO,
    ORDERS,
    YES_NO,
    JnqResult,
    JnqThresholds,
    PaperRules,
    aggregate_question,
)
from filters.annotation.nq_decisions import nq_decisions
from filters.annotation.span_model import span_posterior
from filters.annotation.spans import majority_span
from filters.annotation.votes import JnqVote, latest_votes
from filters.annotation.worker_models import item_key, label_text, posterior_confidence

EXACT, CONFIDENT = "exact", "confident"
STOP_RULES = (EXACT, CONFIDENT)
DEFAULT_CONFIDENCE = 0.99
DEFAULT_MIN_VOTES = 2
DEFAULT_STEP = 1
Posteriors = Mapping[str, Mapping[str, float]]


class StopRuleError(ValueError):
    """A confidence outside (0.5, 1), or a cold start or step below 1."""


@dataclass(frozen=True)
class StopRule:
    """``annotate next --stop``: ``exact`` curtailment, or ``confident`` (module doc)."""

    rule: str = EXACT
    confidence: float = DEFAULT_CONFIDENCE
    min_votes: int = DEFAULT_MIN_VOTES
    step: int = DEFAULT_STEP

    def __post_init__(self) -> None:
        if self.rule not in STOP_RULES:
            raise StopRuleError(f"--stop must be one of {', '.join(STOP_RULES)}")
        if not 0.5 < self.confidence < 1:
            raise StopRuleError(f"--confidence must be above 0.5 and below 1, not "
                                f"{self.confidence}")
        if self.min_votes < 1 or self.step < 1:
            raise StopRuleError("--min-votes must be at least 1")

    @property
    def confident(self) -> bool:
        return self.rule == CONFIDENT

    def describe(self) -> dict[str, Any]:
        """What a manifest, ``stats.json`` and the card record of the rule."""
        if not self.confident:
            return {"rule": EXACT}
        return {"rule": CONFIDENT, "confidence": self.confidence, "min_votes": self.min_votes,
                "step": self.step, "model": "ds"}


EXACT_RULE = StopRule()  # the default: exact curtailment


def _binary(label: Any) -> str:
    if isinstance(label, bool):
        return label_text(label)
    return {EXIST: "true", NONE: "false", YES_NO: "true", NOT_YES_NO: "false"}.get(label, label)


def _labeller(rules: PaperRules, question_id: str, stage: str, paragraph: int | None
              ) -> Callable[[Sequence[Any]], Any]:
    if stage == "good_question":
        return lambda values: rules.good_question(question_id, values)
    if stage == "yes_no_question":
        return lambda values: rules.yes_no_question(question_id, values)
    if stage == "long_answer":
        return lambda values: rules.paragraph_label(question_id, paragraph, values)
    return lambda values: rules.yes_no_answer(question_id, paragraph, values)


def model_state(question_id: str, stage: str, paragraph: int | None, values: Sequence[Any],
                ways: int, t: JnqThresholds, rules: PaperRules, posteriors: Posteriors,
                rule: StopRule, workers: Sequence[str] = (),
                skills: Mapping[str, float] | None = None) -> StageState:
    """One stage's (one paragraph's) state under the confident rule (module doc);
    ``workers``: who gave ``values`` (the span stage weighs them by ``skills``)."""
    judged = len(values)
    if stage == "span":
        exact = stage_state(stage, values, ways, t)
        if exact.decided:
            return exact
        adopted = majority_span(values, t.span_min_votes)
        if judged >= rule.min_votes and skills and span_posterior(
                values, workers, skills, adopted) >= rule.confidence:
            return StageState("decided", judged, 0)
        return StageState(UNDECIDED, judged, _more(judged, ways, rule))
    label = _labeller(rules, question_id, stage, paragraph)
    if judged >= ways:
        return StageState(label(values), judged, 0)
    posterior = posteriors.get(item_key(question_id, stage, paragraph))
    if judged >= rule.min_votes and posterior is not None:
        decided = label(values)
        if posterior_confidence(posterior, _binary(decided)) >= rule.confidence:
            return StageState(decided, judged, 0)
    return StageState(UNDECIDED, judged, _more(judged, ways, rule))


def _more(judged: int, ways: int, rule: StopRule) -> int:
    return min(max(rule.min_votes - judged, rule.step), ways - judged)


def _by_worker(votes: Iterable[JnqVote]) -> dict[tuple[str, int | None], dict[str, Any]]:
    by_slot: dict[tuple[str, int | None], dict[str, Any]] = {}
    for vote in latest_votes(votes):
        by_slot.setdefault((vote.stage, vote.paragraph), {})[vote.annotator_id] = vote.value
    return by_slot


def confident_state(question_id: str, votes: Iterable[JnqVote], candidate_ids: Sequence[int],
                    order: str, ways: int, t: JnqThresholds, rules: PaperRules,
                    posteriors: Posteriors, rule: StopRule,
                    skills: Mapping[str, float] | None = None) -> Curtailment:
    """Which of a question's stages the confident rule has closed and what it asks next
    (module doc); ``votes`` as for ``curtail``, ``posteriors`` the model's (empty before the
    first fit), ``rules`` the labels of the closed stages, ``skills`` the model's worker
    skills (the span stage's weights)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    values = _by_worker(votes)

    def judge(stage: str, paragraph: int | None) -> StageState:
        given = values.get((stage, paragraph), {})
        return model_state(question_id, stage, paragraph, list(given.values()), ways, t,
                           rules, posteriors, rule, list(given), skills)

    return walk_stages(question_id, candidate_ids, order, judge)


def aggregate_confident(question_id: str, votes: Iterable[JnqVote],
                        candidate_ids: Sequence[int], order: str, ways: int,
                        t: JnqThresholds, rules: PaperRules, posteriors: Posteriors,
                        rule: StopRule, skills: Mapping[str, float] | None = None
                        ) -> JnqResult:
    """The import's aggregate of a question asked under the confident rule: ``pending`` at
    its first open stage (``annotate next`` would ask more), else ``aggregate_question``
    with ``rules`` on the judgments held, however few (every closed stage holds one at
    least); the labels are those ``confident_state`` walked."""
    votes = list(votes)
    state = confident_state(question_id, votes, candidate_ids, order, ways, t, rules,
                            posteriors, rule, skills)
    if state.open:
        annotators = len({v.annotator_id for v in votes if v.stage == "good_question"})
        return JnqResult(question_id, "pending", state.open[0].stage, None, (), annotators, {})
    return aggregate_question(question_id, votes, candidate_ids, order, 1, t, rules)


def nq_confident(example_id: str, candidates: Sequence[int], ways: int,
                 posteriors: Posteriors, rule: StopRule) -> int:
    """How many more annotations an NQ example needs under the confident rule (0: closed);
    ``candidates``: its annotators' long-answer candidates so far (-1 for none)."""
    judged = len(candidates)
    if judged >= ways:
        return 0
    if judged >= rule.min_votes and item_key(example_id, "has_answer") in posteriors:
        decided = nq_decisions(example_id, candidates, "ds", posteriors)
        if decided and all(d["confidence"] >= rule.confidence for d in decided):
            return 0
    return _more(judged, ways, rule)

